import { readFileSync } from 'node:fs';
import type { BroadcastKafkaOptions } from '../interfaces/broadcast-kafka-options.interface.js';

/** One environment variable the CLI reads. */
export interface EnvironmentVariable {
  name: string;
  description: string;
}

/**
 * Every environment variable the CLI reads, as --help lists them. The names are the demo's, so
 * one shell configures both. Every command connects to Kafka, so every command reads them all.
 */
export const ENVIRONMENT: readonly EnvironmentVariable[] = [
  { name: 'KAFKA_BROKERS', description: 'Kafka brokers, host:port comma-separated (--brokers)' },
  {
    name: 'KAFKA_CLIENT',
    description: 'kafkajs or platformatic (@platformatic/kafka) (--client)',
  },
  { name: 'BROADCAST_TOPIC_PREFIX', description: "the application's topicPrefix (--prefix)" },
  { name: 'KAFKA_SSL', description: "true: TLS, trusting the system's CAs" },
  { name: 'KAFKA_SSL_CA_FILE', description: 'TLS, trusting the CAs of this PEM file' },
  { name: 'KAFKA_SASL_MECHANISM', description: 'plain, scram-sha-256 or scram-sha-512' },
  { name: 'KAFKA_SASL_USERNAME', description: 'the SASL user' },
  {
    name: 'KAFKA_SASL_PASSWORD',
    description: 'its password (only from the environment: a flag would show in ps)',
  },
];

/** The "Environment variables:" section of --help, one line per variable. */
export function environmentHelp(): string {
  const width = Math.max(...ENVIRONMENT.map((v) => v.name.length));
  const lines = ENVIRONMENT.map((v) => `  ${v.name.padEnd(width)}  ${v.description}`);
  return `\nEnvironment variables:\n${lines.join('\n')}`;
}

const SASL_MECHANISMS = ['plain', 'scram-sha-256', 'scram-sha-512'] as const;
type SaslMechanism = (typeof SASL_MECHANISMS)[number];

/**
 * TLS and SASL from the environment, checked as the demo checks them. The password is never
 * printed, not even in the error for a missing one.
 */
export function kafkaSecurityFromEnv(env = process.env): Partial<BroadcastKafkaOptions> {
  const ssl = sslFromEnv(env);
  const { KAFKA_SASL_MECHANISM: raw, KAFKA_SASL_USERNAME: username } = env;
  const password = env.KAFKA_SASL_PASSWORD;
  if (!raw && !username && !password) return ssl === undefined ? {} : { ssl };
  const mechanism = (raw ?? '').toLowerCase() as SaslMechanism;
  if (!SASL_MECHANISMS.includes(mechanism))
    throw new Error(
      `KAFKA_SASL_MECHANISM must be plain, scram-sha-256 or scram-sha-512, got '${raw ?? ''}'`,
    );
  if (!username || !password)
    throw new Error('KAFKA_SASL_USERNAME and KAFKA_SASL_PASSWORD are both required');
  return { ...(ssl !== undefined && { ssl }), sasl: { mechanism, username, password } };
}

function sslFromEnv(env: NodeJS.ProcessEnv): BroadcastKafkaOptions['ssl'] {
  const caFile = env.KAFKA_SSL_CA_FILE;
  if (caFile) {
    try {
      return { ca: [readFileSync(caFile, 'utf8')] };
    } catch (error) {
      throw new Error(
        `KAFKA_SSL_CA_FILE must name a readable PEM file, got '${caFile}' (${(error as Error).message})`,
      );
    }
  }
  const ssl = env.KAFKA_SSL?.toLowerCase();
  if (ssl === undefined || ssl === '' || ssl === 'false') return undefined;
  if (ssl === 'true') return true;
  throw new Error(`KAFKA_SSL must be true or false, got '${env.KAFKA_SSL}'`);
}
