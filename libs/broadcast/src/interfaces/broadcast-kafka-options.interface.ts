import type { ConnectionOptions } from 'node:tls';

/** SASL credentials for the Kafka connection. */
export interface BroadcastSaslOptions {
  mechanism: 'plain' | 'scram-sha-256' | 'scram-sha-512';
  username: string;
  password: string;
}

/**
 * How the engine reaches Kafka. These are the library's own options; the bundled kafkajs
 * adapter maps them to its client, so another client adapter can take the same options.
 */
export interface BroadcastKafkaOptions {
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
