// A frozen member comes back to a group another instance took (issue #31). Lock-free instances
// (3 ids): A is frozen (SIGSTOP) until the broker expired its member, a newcomer takes A's group
// (it was empty) meanwhile, then A runs again and rejoins it. The collision must move
// exactly ONE of them: before, on kafkajs both left (A to another id, C to another id), leaving
// the group empty and growing the pool. On both clients and both protocols.
import type { Admin } from 'kafkajs';
import { onTestFailed } from 'vitest';
import {
  connectedAdmin,
  deletePrefix,
  describe1,
  ensureLibBuilt,
  FAST_CONSUMER,
  waitGroupEmpty,
} from '../support/faults/faults.js';
import { Instances, type Instance, type InstanceConfig } from '../support/faults/instances.js';
import { kafkaBrokers, testPrefix, waitFor } from '../support/broker/kafka.js';
import {
  type BroadcastKafkaClient,
  clientScoped,
  kafkaClients,
} from '../support/broker/kafka-clients.js';

const TOPIC = 'news';
const brokers = kafkaBrokers();
let fleet = new Instances();
let admin: Admin;
const prefixes: string[] = [];

beforeAll(async () => {
  ensureLibBuilt();
  admin = await connectedAdmin(brokers);
});

beforeEach(() => {
  fleet = new Instances();
});

afterEach(async () => {
  for (const i of fleet.alive) i.thaw();
  await fleet.stopAll(15_000);
});

afterAll(async () => {
  await fleet.killAll();
  for (const prefix of prefixes) await deletePrefix(admin, prefix).catch(() => undefined);
  await admin?.disconnect();
});

type Protocol = 'classic' | 'consumer';
const ROWS: [BroadcastKafkaClient, Protocol][] = kafkaClients().flatMap((client) =>
  client === 'kafkajs'
    ? [[client, 'classic' as Protocol]]
    : (['classic', 'consumer'] as const).map((p): [BroadcastKafkaClient, Protocol] => [client, p]),
);

/** How often `i` gave `groupId` up (log lines from event index `from` on). */
function givingUp(i: Instance, groupId: string, from: number): number {
  return logsSince(i, from).filter((l) => l.startsWith(`Giving up broadcast group ${groupId}:`))
    .length;
}

function logsSince(i: Instance, from: number): string[] {
  return i.events
    .slice(from)
    .filter((e) => e.event === 'log')
    .map((e) => String(e.message));
}

/** A contest over `groupId` that `i` began (log lines from `from` on) and has not concluded yet. */
function contesting(i: Instance, groupId: string, from: number): boolean {
  const lines = logsSince(i, from);
  const last = (match: (line: string) => boolean) => lines.findLastIndex(match);
  const began = last((l) => l.includes(groupId) && l.includes('waiting for them to leave'));
  const ended = last(
    (l) =>
      l.includes(`left ${groupId}; keeping it`) ||
      l.startsWith(`Giving up broadcast group ${groupId}:`),
  );
  return began > ended;
}

describe.each(ROWS)('%s client (%s protocol): a frozen member comes back', (client, protocol) => {
  it('the collision with the instance that took its group meanwhile moves exactly one of them', async () => {
    onTestFailed(() => console.log(fleet.diagnostics()));
    const prefix = testPrefix(clientScoped(`faults-frozen-${protocol}`, client));
    prefixes.push(prefix);
    const config = (name: string): InstanceConfig => ({
      name,
      brokers,
      prefix,
      lock: 'none',
      topics: [TOPIC],
      consumer: FAST_CONSUMER,
      maxGroups: 3,
      kafka: { client, groupProtocol: protocol },
      debug: true,
    });
    const a = fleet.spawn(config('a'));
    const shared = (await a.ready()).groupId;
    const b = fleet.spawn(config('b'));
    await b.ready();

    a.freeze();
    await waitGroupEmpty(admin, shared);
    // Lock-free ids are drawn at random: with 3 ids, the second newcomer at the latest must take
    // the group A's expired member left empty.
    const c = fleet.spawn(config('c'));
    let taker = c;
    let filler: Instance | undefined;
    if ((await c.ready()).groupId !== shared) {
      filler = c;
      taker = fleet.spawn(config('d'));
      expect((await taker.ready()).groupId).toBe(shared);
    }
    const from = { a: a.events.length, taker: taker.events.length };

    a.thaw();
    const departures = () => givingUp(a, shared, from.a) + givingUp(taker, shared, from.taker);
    // Settled: one of them gave the group up, and no contest over it is pending.
    await waitFor(
      () =>
        departures() > 0 &&
        !contesting(a, shared, from.a) &&
        !contesting(taker, shared, from.taker),
      { timeoutMs: 90_000, intervalMs: 200, message: 'neither gave the group up' },
    );
    expect((await describe1(admin, shared)).memberIds).toHaveLength(1);
    // The pool is full (3 ids, 3 instances outside it): B stops, so that the mover finds a group.
    await b.terminate();
    const alive = [a, taker, ...(filler ? [filler] : [])];
    const statuses = await waitFor(
      async () => {
        const all = await Promise.all(alive.map((i) => i.status()));
        const groups = new Set(all.map((s) => s.groupId));
        return all.every((s) => s.state === 'ready') && groups.size === all.length
          ? all
          : undefined;
      },
      { timeoutMs: 60_000, intervalMs: 200, message: 'not all ready in groups of their own' },
    );
    expect(departures(), 'instances that gave the shared group up').toBe(1);
    expect(statuses.map((s) => s.groupId)).toContain(shared);
    expect((await describe1(admin, shared)).memberIds).toHaveLength(1);
  });
});
