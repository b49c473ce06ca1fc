import type { BroadcastKafkaOptions } from '../../interfaces/broadcast-kafka-options.interface.js';

/** librdkafka's global configuration, as @confluentinc/kafka-javascript takes it. */
export type RdkafkaConfig = Record<string, string | number | boolean | undefined>;

/**
 * Maps the library's own Kafka options to librdkafka's configuration (the properties of
 * librdkafka's CONFIGURATION.md). `logLevel` has no counterpart: librdkafka's logs are not
 * routed (the adapter reports through the module's logger). Plain data (the describe helper
 * process gets it over IPC): SASL/OAUTHBEARER's token refresh callback is added where each client
 * is made (confluent-oauth-tokens.ts).
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
    // Upper case: the binding moves the token refresh callback to librdkafka's background thread
    // (nothing polls an admin client) only when `sasl.mechanisms` reads exactly 'OAUTHBEARER'
    // (Conf::is_sasl_oauthbearer); 'oauthbearer' failed AdminClient.create ('Local: Erroneous
    // state') in a probe.
    config['sasl.mechanisms'] = o.sasl.mechanism.toUpperCase();
    if (o.sasl.mechanism !== 'oauthbearer') {
      config['sasl.username'] = o.sasl.username;
      config['sasl.password'] = o.sasl.password;
    }
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
