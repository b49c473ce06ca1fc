import type { BroadcastKafkaOptions } from '../../interfaces/broadcast-kafka-options.interface.js';
import { BroadcastStartupError } from '../../errors/broadcast-startup.error.js';

/** librdkafka's global configuration, as @confluentinc/kafka-javascript takes it. */
export type RdkafkaConfig = Record<string, string | number | boolean | undefined>;

/**
 * Maps the library's own Kafka options to librdkafka's configuration (the properties of
 * librdkafka's CONFIGURATION.md). `logLevel` has no counterpart: librdkafka's logs are not
 * routed (the adapter reports through the module's logger). SASL/OAUTHBEARER is refused: a
 * token provider would need librdkafka's refresh callback, which this adapter does not wire yet.
 */
export function toRdkafkaConfig(
  o: BroadcastKafkaOptions,
  brokers: readonly string[],
): RdkafkaConfig {
  const retry = o.retry;
  const config: RdkafkaConfig = {
    'bootstrap.servers': brokers.join(','),
    'client.id': o.clientId ?? 'nestjs-kafka-broadcast',
    // Nothing of librdkafka's own goes to stderr: the adapter reports what failed.
    log_level: 0,
  };
  const tls = o.ssl !== undefined && o.ssl !== false;
  if (tls && typeof o.ssl === 'object') {
    const { ca, cert, key } = o.ssl;
    if (ca !== undefined) config['ssl.ca.pem'] = pem(ca);
    if (cert !== undefined) config['ssl.certificate.pem'] = pem(cert);
    if (key !== undefined) config['ssl.key.pem'] = pem(key);
    if (o.ssl.rejectUnauthorized === false) config['enable.ssl.certificate.verification'] = false;
  }
  if (o.sasl) {
    if (o.sasl.mechanism === 'oauthbearer')
      throw new BroadcastStartupError(
        'kafka.sasl',
        "SASL/OAUTHBEARER is not supported with kafka.client 'confluent' yet: use PLAIN or SCRAM, or kafka.client 'platformatic'.",
      );
    config['sasl.mechanisms'] = o.sasl.mechanism.toUpperCase();
    config['sasl.username'] = o.sasl.username;
    config['sasl.password'] = o.sasl.password;
  }
  config['security.protocol'] = o.sasl
    ? tls
      ? 'sasl_ssl'
      : 'sasl_plaintext'
    : tls
      ? 'ssl'
      : 'plaintext';
  if (o.connectionTimeoutMs !== undefined)
    config['socket.connection.setup.timeout.ms'] = Math.max(1_000, o.connectionTimeoutMs);
  if (o.requestTimeoutMs !== undefined)
    config['socket.timeout.ms'] = Math.max(10, o.requestTimeoutMs);
  if (retry?.initialRetryTimeMs !== undefined)
    config['retry.backoff.ms'] = retry.initialRetryTimeMs;
  if (retry?.maxRetryTimeMs !== undefined) config['retry.backoff.max.ms'] = retry.maxRetryTimeMs;
  return config;
}

/** A PEM as one string (Node's TLS options also take Buffers and arrays of them). */
function pem(value: string | Buffer | (string | Buffer | object)[]): string {
  return (Array.isArray(value) ? value : [value])
    .map((v) => (typeof v === 'string' || Buffer.isBuffer(v) ? v.toString() : ''))
    .join('\n');
}
