import type { ConnectionOptions } from 'node:tls';

/** SASL credentials for the Kafka connection. */
export interface BroadcastSaslOptions {
  mechanism: 'plain' | 'scram-sha-256' | 'scram-sha-512';
  username: string;
  password: string;
}

/** The Kafka client libraries the engine has an adapter for (each an optional peer). */
export type BroadcastKafkaClient = 'kafkajs' | 'platformatic';

/**
 * How the engine reaches Kafka. These are the library's own options; each client adapter
 * (kafkajs, @platformatic/kafka) maps them to its client.
 */
export interface BroadcastKafkaOptions {
  /**
   * Which installed client the engine uses: 'kafkajs' or 'platformatic' (@platformatic/kafka).
   * Default: kafkajs when it is installed, else @platformatic/kafka. Install one of them.
   */
  client?: BroadcastKafkaClient;
  /** Bootstrap brokers as "host:port", or a function that returns them. */
  brokers: string[] | (() => string[] | Promise<string[]>);
  /** Client id sent to the broker (default 'nestjs-kafka-broadcast'). */
  clientId?: string;
  /** TLS: `true` for the platform's trusted CAs, or Node.js TLS options (ca, cert, key, ...). */
  ssl?: boolean | ConnectionOptions;
  /** SASL authentication. */
  sasl?: BroadcastSaslOptions;
  /** Time to establish a TCP (and TLS) connection, in ms (client default). */
  connectionTimeoutMs?: number;
  /** Time a single request may take, in ms (client default). */
  requestTimeoutMs?: number;
  /** Retries of a failed request (client default). */
  retries?: number;
}
