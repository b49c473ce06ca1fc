import { hostname } from 'node:os';

/** Everything the demo reads from its environment, checked once at startup. */
export interface DemoConfig {
  /** HTTP port (env PORT, default 3000). */
  port: number;
  /** Interface to listen on (env HOST; default: all interfaces). */
  host: string | undefined;
  /** Kafka bootstrap brokers (env KAFKA_BROKERS, comma-separated, required). */
  brokers: string[];
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
    topicPrefix: env.BROADCAST_TOPIC_PREFIX ?? 'demo.',
    instanceName: env.INSTANCE_NAME || `${hostname()}-${process.pid}`,
    heartbeatIntervalMs: integer(env, 'BROADCAST_HEARTBEAT_MS', 5_000, 100, 600_000),
  };
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
