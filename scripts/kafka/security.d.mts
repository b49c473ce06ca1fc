// Types for scripts/kafka/security.mjs.
import type { KafkaCluster, StartClusterOptions } from '../kafka-cluster.mjs';

export const SCRAM_MECHANISM: 'SCRAM-SHA-512';

export interface SecuredCluster extends KafkaCluster {
  /** '127.0.0.1:port' of each node's SASL_SSL listener */
  saslBrokers: string[];
  /** '127.0.0.1:port' of each node's OAUTHBEARER listener (SASL_PLAINTEXT, unsigned JWS tokens) */
  oauthBrokers: string[];
  /** PEM of the CA that signed the broker certificate */
  ca: string;
  caFile: string;
}

export function startSecuredCluster(
  options: {
    /** user name → password, created at format time */
    users: Record<string, string>;
    /** default ['admin'] */
    superUsers?: string[];
    dir?: string;
  } & Omit<StartClusterOptions, 'nodes' | 'dir' | 'extraPorts' | 'properties' | 'formatArgs'>,
): Promise<SecuredCluster>;

export function makeCertificates(
  dir: string,
  options?: { days?: number },
): Promise<{ caFile: string; ca: string; keyStore: string }>;

export function scramFormatArgs(users: Record<string, string>): string[];
