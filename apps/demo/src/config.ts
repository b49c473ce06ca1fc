import { readFileSync } from 'node:fs';
import { hostname } from 'node:os';
import type { BroadcastKafkaClient } from 'nestjs-kafka-broadcast';

/** Everything the demo reads from its environment, checked once at startup. */
export interface DemoConfig {
  /** HTTP port (env PORT, default 3000). */
  port: number;
  /** Interface to listen on (env HOST; default: all interfaces). */
  host: string | undefined;
  /** Kafka bootstrap brokers (env KAFKA_BROKERS, comma-separated, required). */
  brokers: string[];
  /** TLS (env KAFKA_SSL=true, or KAFKA_SSL_CA_FILE=<PEM file> to trust that CA). */
  ssl: boolean | { ca: string[] } | undefined;
  /** SASL (env KAFKA_SASL_MECHANISM, KAFKA_SASL_USERNAME, KAFKA_SASL_PASSWORD). */
  sasl: KafkaSasl | undefined;
  /** The module's kafka.client (env KAFKA_CLIENT, default 'platformatic', the library's own default). */
  kafkaClient: BroadcastKafkaClient;
  /** Longest startup may take (env BROADCAST_STARTUP_TIMEOUT_MS, default 60000). */
  startupTimeoutMs: number;
  /**
   * The module's waitForReady (env BROADCAST_WAIT_FOR_READY, default false, as behind probes):
   * false opens the port at once, and readiness and /metrics say what the instance waits for;
   * true holds app.listen() until this instance reads, and exits on a startup failure.
   */
  waitForReady: boolean;
  /** The pool's size, the module's maxGroups (env BROADCAST_MAX_GROUPS; default the library's). */
  maxGroups: number | undefined;
  /**
   * Where product.changed records whose handler failed for good are copied, a logical topic
   * (env BROADCAST_DEAD_LETTER_TOPIC, default 'dead-letters'; empty: none).
   */
  deadLetterTopic: string | undefined;
  /** URL told of every final handler failure, by onHandlerError (env DEMO_FAILURE_WEBHOOK). */
  failureWebhook: string | undefined;
  /** Prefix of every topic and consumer group (env BROADCAST_TOPIC_PREFIX, default 'demo.'). */
  topicPrefix: string;
  /** This instance's name in logs, heartbeats and /broadcast/status (env INSTANCE_NAME). */
  instanceName: string;
  /** Target gap between broadcast heartbeats, in ms (env BROADCAST_HEARTBEAT_MS, default 5000). */
  heartbeatIntervalMs: number;
  /** The PostgreSQL database, or undefined for lock-free mode with in-memory products. */
  database: DatabaseChoice | undefined;
}

/** Which PostgreSQL database the demo uses, and how it was found. */
export interface DatabaseChoice {
  url: string;
  source: 'DATABASE_URL' | 'local';
}

export interface KafkaSasl {
  mechanism: 'plain' | 'scram-sha-256' | 'scram-sha-512';
  username: string;
  password: string;
}

const SASL_MECHANISMS = ['plain', 'scram-sha-256', 'scram-sha-512'] as const;
const KAFKA_CLIENTS: readonly BroadcastKafkaClient[] = ['kafkajs', 'platformatic'];

/** Injection token of the DemoConfig. */
export const DEMO_CONFIG = Symbol('DEMO_CONFIG');

/** The local PostgreSQL tried when DATABASE_URL is unset. */
export const LOCAL_DATABASE_URL = 'postgres://postgres@127.0.0.1:5432/test';

/** Thrown for a missing or malformed environment variable; main.ts prints it and exits 1. */
export class DemoConfigError extends Error {}

/** Reads the environment; the database is chosen later (see database/database-probe.ts). */
export function readEnvironment(
  env: NodeJS.ProcessEnv = process.env,
): Omit<DemoConfig, 'database'> {
  const brokers = (env.KAFKA_BROKERS ?? '')
    .split(',')
    .map((b) => b.trim())
    .filter(Boolean);
  if (brokers.length === 0) {
    throw new DemoConfigError(
      'KAFKA_BROKERS is required, e.g. KAFKA_BROKERS=127.0.0.1:9092 (start one with `npm run kafka:start`)',
    );
  }
  return {
    port: integer(env, 'PORT', 3000, 0, 65_535),
    host: env.HOST || undefined,
    brokers,
    ssl: kafkaSsl(env),
    sasl: kafkaSasl(env),
    kafkaClient: kafkaClient(env),
    startupTimeoutMs: integer(env, 'BROADCAST_STARTUP_TIMEOUT_MS', 60_000, 1_000, 600_000),
    waitForReady: boolean(env, 'BROADCAST_WAIT_FOR_READY', false),
    maxGroups: env.BROADCAST_MAX_GROUPS
      ? integer(env, 'BROADCAST_MAX_GROUPS', 200, 1, 10_000)
      : undefined,
    deadLetterTopic: (env.BROADCAST_DEAD_LETTER_TOPIC ?? 'dead-letters') || undefined,
    failureWebhook: webhook(env),
    topicPrefix: env.BROADCAST_TOPIC_PREFIX ?? 'demo.',
    instanceName: env.INSTANCE_NAME || `${hostname()}-${process.pid}`,
    heartbeatIntervalMs: integer(env, 'BROADCAST_HEARTBEAT_MS', 5_000, 100, 600_000),
  };
}

function kafkaSsl(env: NodeJS.ProcessEnv): DemoConfig['ssl'] {
  const caFile = env.KAFKA_SSL_CA_FILE;
  if (caFile) {
    try {
      return { ca: [readFileSync(caFile, 'utf8')] };
    } catch (error) {
      throw new DemoConfigError(
        `KAFKA_SSL_CA_FILE must name a readable PEM file, got '${caFile}' (${(error as Error).message})`,
      );
    }
  }
  const ssl = env.KAFKA_SSL?.toLowerCase();
  if (ssl === undefined || ssl === '' || ssl === 'false') return undefined;
  if (ssl === 'true') return true;
  throw new DemoConfigError(`KAFKA_SSL must be true or false, got '${env.KAFKA_SSL}'`);
}

/** The same names as the operator CLI's KAFKA_CLIENT; unset or empty: @platformatic/kafka. */
function kafkaClient(env: NodeJS.ProcessEnv): BroadcastKafkaClient {
  const raw = env.KAFKA_CLIENT;
  if (raw === undefined || raw === '') return 'platformatic';
  if (!KAFKA_CLIENTS.includes(raw as BroadcastKafkaClient))
    throw new DemoConfigError(
      `KAFKA_CLIENT must be one of ${KAFKA_CLIENTS.join(', ')}, got '${raw}'`,
    );
  return raw as BroadcastKafkaClient;
}

/** The password is never echoed, not even in the error for a missing one. */
function kafkaSasl(env: NodeJS.ProcessEnv): KafkaSasl | undefined {
  const { KAFKA_SASL_MECHANISM: raw, KAFKA_SASL_USERNAME: username } = env;
  const password = env.KAFKA_SASL_PASSWORD;
  if (!raw && !username && !password) return undefined;
  const mechanism = raw?.toLowerCase() as KafkaSasl['mechanism'];
  if (!SASL_MECHANISMS.includes(mechanism))
    throw new DemoConfigError(
      `KAFKA_SASL_MECHANISM must be one of ${SASL_MECHANISMS.join(', ')}, got '${raw ?? ''}'`,
    );
  if (!username || !password)
    throw new DemoConfigError('KAFKA_SASL_USERNAME and KAFKA_SASL_PASSWORD are both required');
  return { mechanism, username, password };
}

function boolean(env: NodeJS.ProcessEnv, name: string, fallback: boolean): boolean {
  const raw = env[name]?.toLowerCase();
  if (raw === undefined || raw === '') return fallback;
  if (raw === 'true' || raw === 'false') return raw === 'true';
  throw new DemoConfigError(`${name} must be true or false, got '${env[name]}'`);
}

function webhook(env: NodeJS.ProcessEnv): string | undefined {
  const raw = env.DEMO_FAILURE_WEBHOOK;
  if (!raw) return undefined;
  if (!URL.canParse(raw) || !/^https?:$/.test(new URL(raw).protocol))
    throw new DemoConfigError(`DEMO_FAILURE_WEBHOOK must be an http(s) URL, got '${raw}'`);
  return raw;
}

function integer(
  env: NodeJS.ProcessEnv,
  name: string,
  fallback: number,
  min: number,
  max: number,
): number {
  const raw = env[name];
  if (raw === undefined || raw === '') return fallback;
  const value = Number(raw);
  if (!Number.isInteger(value) || value < min || value > max) {
    throw new DemoConfigError(`${name} must be an integer from ${min} to ${max}, got '${raw}'`);
  }
  return value;
}
