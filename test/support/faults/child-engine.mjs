// What the stop-at-a-moment children (seams-stop-child.mjs, seams-stop-early-child.mjs) share: the
// library as the spec built it, a PostgreSQL DataSource when asked for, and one engine with the
// fault suite's short timings and a logger that says nothing.
import { DataSource } from 'typeorm';

const { BroadcastEngine } = await import(process.env.BROADCAST_LIB || 'nestjs-kafka-broadcast');

/** A PostgreSQL DataSource named `applicationName` for `lock: 'postgres'`, else undefined. */
export async function childDataSource(lock, applicationName) {
  if (lock !== 'postgres') return undefined;
  return new DataSource({
    type: 'postgres',
    host: '127.0.0.1',
    port: 5432,
    username: 'postgres',
    database: 'test',
    applicationName,
  }).initialize();
}

/**
 * One engine over `config` ({ brokers, prefix, lock, client? }: `client` is kafka.client, the
 * library's default when omitted), with the given deps (dataSource, probe).
 */
export function childEngine(config, clientId, deps) {
  const quiet = { log: () => undefined, warn: () => undefined, error: () => undefined };
  return new BroadcastEngine(
    {
      kafka: {
        brokers: config.brokers,
        clientId,
        ...(config.client && { client: config.client }),
        // BROADCAST_GROUP_PROTOCOL picks the group protocol of @platformatic/kafka and
        // @confluentinc/kafka-javascript (kafka-clients.ts).
        ...(['platformatic', 'confluent'].includes(config.client ?? 'platformatic') &&
          process.env.BROADCAST_GROUP_PROTOCOL && {
            groupProtocol: process.env.BROADCAST_GROUP_PROTOCOL,
          }),
      },
      topicPrefix: config.prefix,
      consumer: { sessionTimeoutMs: 6000, heartbeatIntervalMs: 500, maxWaitTimeMs: 100 },
      heartbeat: { intervalMs: 1000 },
      lock: config.lock === 'none' ? false : { checkIntervalMs: 100 },
      startupTimeoutMs: 20_000,
    },
    { logger: quiet, ...deps },
  );
}
