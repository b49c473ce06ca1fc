// Issue #37 item 1, @platformatic/kafka: the group membership survives the only broker stopped
// for 20 s and started again. Broker defaults for groups (KIP-848 sessions of 45 s) and the
// library's default consumer options: before, the adapter gave its member up during the outage
// and joined anew, and the new member waited out the old one's broker session (about 50 s back
// to ready under KIP-848, 12 s under classic). Now the member keeps heartbeating with its id and
// epoch (KIP-848) or its id and generation (classic), so the broker that comes back still holds it.
//
// One private 1-node cluster, one outage, both rows at once (each under its own topic prefix):
// @platformatic/kafka classic and KIP-848, one lock-free and one PostgreSQL-locked worker process
// each (test/support/faults/outage-child.mjs), a publish every 50 ms per prefix. Per instance:
// - it never stops being ready, or is ready again within READY_AGAIN_MS of the broker answering;
// - every record acknowledged and sent after it was ready reaches its handler once;
// - it keeps its group.
// The time from "the broker answers" to "ready again" and to "the first record sent after that
// received" is printed per instance (docs/RELIABILITY.md quotes it).
import { setTimeout as delay } from 'node:timers/promises';
import { join } from 'node:path';
import type { Producer } from 'kafkajs';
import { REPO_ROOT, startCluster, type KafkaCluster } from '../../scripts/kafka-cluster.mjs';
import { ensureLibBuilt, kafkaFor } from '../support/faults/faults.js';
import { Instances, type Instance } from '../support/faults/instances.js';
import { testPrefix, waitFor } from '../support/broker/kafka.js';
import { kafkaClients } from '../support/broker/kafka-clients.js';
import { BROKER_DEFAULT_GROUP_SETTINGS } from '../support/faults/broker-group-defaults.js';

const TOPIC = 'news';
const OUTAGE_MS = 20_000;
const PUBLISH_EVERY_MS = 50;
/** Issue #37's bound: ready again within 5 s of the broker answering. */
const READY_AGAIN_MS = 5_000;
/** How long the spec waits for everyone to read again (a failure, not a figure). */
const READING_DEADLINE_MS = 90_000;
const ENGINE_CHILD = join(REPO_ROOT, 'test/support/faults/outage-child.mjs');
const ROWS = [
  { name: 'classic', kafka: { client: 'platformatic', groupProtocol: 'classic' } },
  { name: 'KIP-848', kafka: { client: 'platformatic', groupProtocol: 'consumer' } },
];

interface Row {
  name: string;
  prefix: string;
  instances: Instance[];
}
interface Sent {
  seq: number;
  sentAt: number;
  ackedAt?: number;
}
interface State {
  at: number;
  state: string;
  groupId?: string;
  /** BroadcastHealthIndicator's readiness rule (staleness of the broadcast heartbeats included). */
  healthy: boolean;
}

const fleet = new Instances();
let cluster: KafkaCluster | undefined;
const rows: Row[] = [];
const sentTo = new Map<string, Sent[]>();
let downAt = 0;
let upAt = 0;

const all = () => rows.flatMap((row) => row.instances);
const states = (i: Instance) => i.events.filter((e) => e.event === 'state') as unknown as State[];
const received = (i: Instance) =>
  i.messages(TOPIC).map((m) => ({ ...m, seq: (m.payload as { seq: number }).seq }));
const firstAckedAfter = (prefix: string, at: number) =>
  sentTo.get(prefix + TOPIC)!.find((s) => s.sentAt >= at && s.ackedAt !== undefined)?.seq;

/** Sends `{ seq }` to every row's topic every PUBLISH_EVERY_MS until stopped. */
function publishing(producer: Producer): { stop(): Promise<void> } {
  let seq = 0;
  const inFlight = new Set<Promise<void>>();
  const timer = setInterval(() => {
    seq++;
    for (const { prefix } of rows) {
      const sent: Sent = { seq, sentAt: Date.now() };
      sentTo.get(prefix + TOPIC)!.push(sent);
      const sending = producer
        .send({ topic: prefix + TOPIC, acks: -1, messages: [{ value: JSON.stringify({ seq }) }] })
        .then(
          () => void (sent.ackedAt = Date.now()),
          () => undefined,
        );
      inFlight.add(sending);
      void sending.finally(() => inFlight.delete(sending));
    }
  }, PUBLISH_EVERY_MS);
  return {
    async stop() {
      clearInterval(timer);
      await Promise.all(inFlight);
    },
  };
}

/** Ready now, and has read a record sent after the broker answered. */
function readsAgain(i: Instance, prefix: string): boolean {
  if (states(i).at(-1)?.state !== 'ready') return false;
  const first = firstAckedAfter(prefix, upAt);
  return first !== undefined && received(i).some((m) => m.seq >= first);
}

/** What one instance did around the outage. */
function judge(i: Instance, prefix: string) {
  const readyAt = i.events.find((e) => e.event === 'ready')!.at;
  const during = states(i).filter((s) => s.at >= downAt);
  const wentDown = during.find((s) => s.state !== 'ready');
  const back = wentDown && during.find((s) => s.at > wentDown.at && s.state === 'ready');
  const first = firstAckedAfter(prefix, upAt)!;
  const reading = received(i).find((m) => m.seq >= first);
  const got = received(i).map((m) => m.seq);
  // By offset: the publisher's retries may write one seq twice (kafkajs, not idempotent: a send
  // whose answer the outage cut is sent again), two records that are each to be read once.
  const offsets = received(i).map((m) => `${m.partition}:${m.offset}`);
  const due = sentTo
    .get(prefix + TOPIC)!
    .filter((s) => s.ackedAt !== undefined && s.sentAt >= readyAt);
  const gotSet = new Set(got);
  const unhealthy = during.find((s) => !s.healthy);
  const healthyAgain = unhealthy && during.find((s) => s.at > unhealthy.at && s.healthy);
  return {
    // 0: never stopped being ready; NaN: not ready again.
    readyAgainMs: wentDown ? (back ? back.at - upAt : NaN) : 0,
    /** Readiness as the probe sees it: not a bound of this spec (issue #37 item 2), a figure. */
    healthyAgainMs: unhealthy ? (healthyAgain ? healthyAgain.at - upAt : NaN) : 0,
    readingAgainMs: reading ? reading.at - upAt : NaN,
    lost: due.filter((s) => !gotSet.has(s.seq)).map((s) => s.seq),
    expected: due.length,
    duplicates: offsets.length - new Set(offsets).size,
    groupBefore: states(i)
      .filter((s) => s.at < downAt)
      .at(-1)?.groupId,
    groupAfter: states(i).at(-1)?.groupId,
  };
}
const seen = new Map<Instance, ReturnType<typeof judge>>();

beforeAll(async () => {
  if (!kafkaClients().includes('platformatic')) return;
  ensureLibBuilt();
  cluster = await startCluster({
    nodes: 1,
    quiet: true,
    properties: () => BROKER_DEFAULT_GROUP_SETTINGS,
    timeoutMs: 180_000,
  });
  const brokers = cluster.brokers;
  ROWS.forEach(({ name, kafka }, r) => {
    const prefix = testPrefix(`outage-membership-${r}`);
    const spawn = (id: string, lock: 'none' | 'postgres') =>
      fleet.spawn({
        name: `r${r}-${id}`,
        runner: ENGINE_CHILD,
        brokers,
        prefix,
        lock,
        topics: [TOPIC],
        kafka,
      });
    rows.push({ name, prefix, instances: [spawn('lf', 'none'), spawn('pg', 'postgres')] });
    sentTo.set(prefix + TOPIC, []);
  });
  await Promise.all(all().map((i) => i.ready(180_000)));
  // Short retries: a send during the outage fails (not acknowledged, so not expected).
  const producer = kafkaFor(brokers, 'outage-membership-publisher').producer({
    allowAutoTopicCreation: false,
    retry: { retries: 2, initialRetryTime: 200, maxRetryTime: 1_000 },
  });
  await producer.connect();
  const publisher = publishing(producer);
  try {
    await waitFor(() => all().every((i) => i.messages(TOPIC).length > 0), {
      timeoutMs: 60_000,
      message: `not everyone read before the outage\n${fleet.diagnostics()}`,
    });
    await cluster.stopNode(1);
    downAt = Date.now();
    // The outage length is the experiment's parameter, not a wait for an event.
    await delay(OUTAGE_MS);
    await cluster.startNode(1);
    upAt = Date.now();
    await waitFor(
      () => rows.every((row) => row.instances.every((i) => readsAgain(i, row.prefix))),
      {
        timeoutMs: READING_DEADLINE_MS,
        intervalMs: 100,
        message: `not every instance reads again\n${fleet.diagnostics()}`,
      },
    );
    // A few more records, then every acknowledged one must have arrived.
    await delay(2_000);
    await publisher.stop();
    await waitFor(
      () => rows.every((row) => row.instances.every((i) => judge(i, row.prefix).lost.length === 0)),
      { timeoutMs: 30_000, intervalMs: 100, message: 'records still missing' },
    ).catch(() => undefined); // judged per instance below, with what is missing
  } finally {
    await publisher.stop();
    await producer.disconnect().catch(() => undefined);
  }
  for (const row of rows) {
    for (const i of row.instances) seen.set(i, judge(i, row.prefix));
    const figures = row.instances.map((i) => seen.get(i)!);
    console.log(
      `broker restart (${OUTAGE_MS / 1000} s), @platformatic/kafka ${row.name}: ready again ` +
        `${figures.map((s) => s.readyAgainMs).join(', ')} ms (0: never unready), first record ` +
        `${figures.map((s) => s.readingAgainMs).join(', ')} ms after the broker answered; ` +
        `healthy again ${figures.map((s) => s.healthyAgainMs).join(', ')} ms`,
    );
  }
  await Promise.all(all().map((i) => i.terminate(40_000).catch(() => undefined)));
}, 600_000);

afterAll(async () => {
  await fleet.killAll();
  await cluster?.stop();
});

// No rows when BROADCAST_KAFKA_CLIENTS leaves @platformatic/kafka out: then no test either.
describe.each(
  ROWS.filter((r) => kafkaClients().includes(r.kafka.client as never)).map((r) => r.name),
)(
  `@platformatic/kafka %s: the only broker away for ${OUTAGE_MS / 1000} s, broker default group settings`,
  (name) => {
    it(`keeps its members: ready throughout or again within ${READY_AGAIN_MS / 1000} s, every acknowledged record once`, () => {
      const row = rows.find((r) => r.name === name);
      if (!row) throw new Error(`the row ${name} was not started`);
      for (const i of row.instances) {
        const s = seen.get(i)!;
        const context = `${i.name}\n${i.diagnostics()}`;
        expect.soft(s.readyAgainMs, `ready again: ${context}`).toBeLessThanOrEqual(READY_AGAIN_MS);
        expect.soft(s.lost, `lost (of ${s.expected}): ${context}`).toEqual([]);
        expect.soft(s.duplicates, `records delivered twice: ${context}`).toBe(0);
        expect.soft(s.groupAfter, `same group: ${context}`).toBe(s.groupBefore);
      }
    });
  },
);
