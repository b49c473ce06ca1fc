import type { ConnectionOptions } from 'node:tls';

/** SASL login with a user name and password (PLAIN or SCRAM). */
export interface BroadcastPasswordSaslOptions {
  mechanism: 'plain' | 'scram-sha-256' | 'scram-sha-512';
  username: string;
  password: string;
}

/** An OAuth 2 bearer token as an `oauthBearerProvider` returns it (kafkajs's shape). */
export interface BroadcastOauthBearerToken {
  /** The token itself, e.g. a JWT; sent as `auth=Bearer <value>`. */
  value: string;
  /**
   * SASL extensions sent with the token (KIP-342), e.g. Confluent Cloud's `logicalCluster` and
   * `identityPoolId`.
   */
  extensions?: Record<string, string>;
}

/**
 * SASL/OAUTHBEARER: the client asks `oauthBearerProvider` for a token each time it authenticates
 * a connection (every new connection, and kafkajs and @platformatic/kafka both again before the
 * broker's session lifetime ends), so the provider should cache a token until shortly before it
 * expires. Tokens should live well over 10 s: kafkajs re-authenticates whenever less than that
 * remains. This is also how AWS MSK IAM works: return the signer's token (see the README,
 * "Cloud authentication").
 */
export interface BroadcastOauthBearerSaslOptions {
  mechanism: 'oauthbearer';
  oauthBearerProvider: () => Promise<BroadcastOauthBearerToken>;
}

/** SASL authentication for the Kafka connection. */
export type BroadcastSaslOptions = BroadcastPasswordSaslOptions | BroadcastOauthBearerSaslOptions;

/**
 * How the client retries a failed request: `retries` times, waiting from `initialRetryTimeMs`,
 * doubling up to `maxRetryTimeMs` (kafkajs adds its own jitter). Unset fields keep the client's
 * default.
 */
export interface BroadcastKafkaRetryOptions {
  /** Retries of a failed request (0: none). */
  retries?: number;
  /** Wait before the first retry, in ms. */
  initialRetryTimeMs?: number;
  /** Longest wait between two retries, in ms. */
  maxRetryTimeMs?: number;
}

/** How much the Kafka client logs through the module's logger. */
export type BroadcastKafkaLogLevel = 'nothing' | 'error' | 'warn' | 'info' | 'debug';

/** The Kafka client libraries the engine has an adapter for (each an optional peer). */
export type BroadcastKafkaClient = 'kafkajs' | 'platformatic' | 'confluent';

/**
 * The consumer group protocol: 'classic' (JoinGroup/SyncGroup), 'consumer' (KIP-848: the broker
 * assigns partitions; Apache Kafka 4.0+) or 'auto' (KIP-848 when the broker offers it, else
 * classic).
 */
export type BroadcastGroupProtocol = 'classic' | 'consumer' | 'auto';

/**
 * How the engine reaches Kafka. These are the library's own options; each client adapter
 * (kafkajs, @platformatic/kafka) maps them to its client.
 */
export interface BroadcastKafkaOptions {
  /**
   * Which installed client the engine uses: 'kafkajs', 'platformatic' (@platformatic/kafka) or
   * 'confluent' (@confluentinc/kafka-javascript, librdkafka). Default: the first installed of
   * @platformatic/kafka, @confluentinc/kafka-javascript and kafkajs. Install one of them.
   */
  client?: BroadcastKafkaClient;
  /**
   * The group protocol of the broadcast groups. 'consumer' (KIP-848) needs the @platformatic/kafka
   * client and a broker that offers ConsumerGroupHeartbeat (Apache Kafka 4.0+); it has no
   * initial rebalance delay, so a start on production broker settings is ~3 s shorter. 'auto'
   * uses it when the broker offers it and the client speaks it, else 'classic'.
   * On KIP-848 a crashed member stays in its group for the broker's
   * group.consumer.session.timeout.ms (45 s by default), not consumer.sessionTimeoutMs: size
   * maxGroups for the instances plus those that crashed within that time (libs/broadcast/docs/DEPLOYMENT.md).
   * Default: 'auto' (so KIP-848 with @platformatic/kafka on a broker that offers it; kafkajs
   * speaks only classic).
   */
  groupProtocol?: BroadcastGroupProtocol;
  /** Bootstrap brokers as "host:port", or a function that returns them. */
  brokers: string[] | (() => string[] | Promise<string[]>);
  /** Client id sent to the broker (default 'nestjs-kafka-broadcast'). */
  clientId?: string;
  /** TLS: `true` for the platform's trusted CAs, or Node.js TLS options (ca, cert, key, ...). */
  ssl?: boolean | ConnectionOptions;
  /** SASL authentication: PLAIN, SCRAM or OAUTHBEARER (token provider; also AWS MSK IAM). */
  sasl?: BroadcastSaslOptions;
  /** Time to establish a TCP (and TLS) connection, in ms (client default). */
  connectionTimeoutMs?: number;
  /** Time a single request may take, in ms (client default). */
  requestTimeoutMs?: number;
  /** How failed requests are retried (client defaults). */
  retry?: BroadcastKafkaRetryOptions;
  /**
   * Retries of a failed request (client default).
   * @deprecated Use `retry.retries`; setting both is refused.
   */
  retries?: number;
  /**
   * The kafkajs client's log level, its lines routed to the module's logger (default 'warn';
   * connection retries are logged at debug only, the engine reports what failed).
   * @platformatic/kafka writes no logs of its own: there the option is accepted and has no
   * effect (the adapter reports through the module's logger either way).
   */
  logLevel?: BroadcastKafkaLogLevel;
}
