/**
 * What a roster look (KafkaAdminPort.liveMembers: a receipt's look before its send, and every
 * roster refresh) asks the real broker on kafkajs. kafkajs's own `admin.listGroups` reads the
 * cluster's metadata again on every call, and its `admin.describeGroups` asks FindCoordinator for
 * every group on every call: a look at ten instances sent a Metadata, a ListGroups, ten
 * FindCoordinator and a DescribeGroups, one after another. The adapter lists the groups on the
 * brokers of the metadata kafkajs keeps (read again past metadataMaxAge, as Kafka's Java admin
 * does) and keeps each group's coordinator from one look to the next (kafkajs-group-coordinators.ts):
 * a later look sends one ListGroups per broker and, at the same time, one DescribeGroups per
 * coordinator for the groups the previous look saw; a group seen for the first time is looked up
 * once, and described once the listing shows it. Requests of the adapter's client id are counted by
 * wrapping kafkajs's Connection.send (as group-coordinators.spec.ts).
 */
import { createRequire } from 'node:module';
import { KafkajsAdapter } from '../../libs/broadcast/src/adapters/kafkajs/kafkajs.adapter.js';
import { kafkaBrokers } from '../support/broker/kafka.js';
import { useEngineHarness } from '../support/engine/engine.js';

const API: Record<number, string> = {
  3: 'Metadata',
  10: 'FindCoordinator',
  15: 'DescribeGroups',
  16: 'ListGroups',
  18: 'ApiVersions',
};
const require = createRequire(import.meta.url);
const Connection = require('kafkajs/src/network/connection.js') as {
  prototype: { clientId: string; send(request: { request: { apiKey: number } }): Promise<unknown> };
};
const SILENT = { log: () => undefined, warn: () => undefined, error: () => undefined };

/** The requests of `clientId` while `run` runs, by name, in order. */
async function requestsOf(clientId: string, run: () => Promise<unknown>): Promise<string[]> {
  const sent: string[] = [];
  const send = Connection.prototype.send;
  Connection.prototype.send = function (this: { clientId: string }, request) {
    if (this.clientId === clientId) sent.push(API[request.request.apiKey] ?? 'other');
    return send.call(this, request);
  };
  try {
    await run();
  } finally {
    Connection.prototype.send = send;
  }
  return sent.sort();
}

describe('kafkajs roster look', () => {
  it('looks each group coordinator up once, then sends the listing and one DescribeGroups', async () => {
    const h = useEngineHarness('roster-look', { heartbeat: false }, 'kafkajs');
    const engines = [];
    for (let i = 0; i < 3; i++) engines.push(await h.start({ lock: 'none', topics: ['news'] }));
    const clientId = `${h.prefix}looker`;
    const admin = new KafkajsAdapter(
      {
        kafka: { brokers: kafkaBrokers(), clientId },
        consumer: {
          sessionTimeoutMs: 6_000,
          heartbeatIntervalMs: 500,
          maxWaitTimeMs: 100,
          metadataMaxAgeMs: 30_000,
        },
        topics: { numPartitions: 1, replicationFactor: 1 },
      },
      SILENT,
    ).admin;
    onTestFinished(() => admin.disconnect());
    const groups = (members: { groupId: string }[]) => members.map((m) => m.groupId).sort();
    const live = engines.map((e) => e.status().groupId!).sort();

    let members: { groupId: string }[] = [];
    const first = await requestsOf(clientId, async () => {
      members = await admin.liveMembers(h.prefix);
    });
    expect(groups(members)).toEqual(live);
    // Besides the connect's ApiVersions and Metadata: the listing, a lookup per group, the describe.
    expect(first.filter((r) => r !== 'ApiVersions' && r !== 'Metadata')).toEqual([
      'DescribeGroups',
      'FindCoordinator',
      'FindCoordinator',
      'FindCoordinator',
      'ListGroups',
    ]);

    const second = await requestsOf(clientId, async () => {
      members = await admin.liveMembers(h.prefix);
    });
    expect(groups(members)).toEqual(live);
    expect(second).toEqual(['DescribeGroups', 'ListGroups']);

    // A fourth instance: the three known groups are described during the listing, then the new
    // one, looked up first.
    engines.push(await h.start({ lock: 'none', topics: ['news'] }));
    const third = await requestsOf(clientId, async () => {
      members = await admin.liveMembers(h.prefix);
    });
    expect(groups(members)).toEqual(engines.map((e) => e.status().groupId!).sort());
    expect(third).toEqual(['DescribeGroups', 'DescribeGroups', 'FindCoordinator', 'ListGroups']);
  });
});
