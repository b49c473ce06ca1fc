// Issue #36's acceptance: a 20 s outage of the only broker of a private 1-node cluster with the
// broker's production group settings, under worker processes whose only work is broadcasts (no
// HTTP server, no stdin reader: test/support/faults/outage-child.mjs, and two Nest apps,
// test/support/nest/outage-nest-child.mjs). The library's default consumer options throughout.
//
// One cluster, one outage, every row at once (each under its own topic prefix): per client and
// group protocol, 2 lock-free and 2 PostgreSQL-locked engines; and a Nest app built with
// createApplicationContext and one running on BroadcastTransport. A publish every 50 ms per
// prefix, from before the outage to after everyone reads again. Per instance:
// - no process exits until it is told to (SIGTERM), and then it ends by itself with code 0;
// - health goes down during the outage and comes back;
// - it is ready again after the broker answers, within RECOVERY_DEADLINE_MS, and reads;
// - every record acknowledged to the publisher and sent after the instance was ready reaches
//   its handler, and no record reaches it twice;
// - it is in the group it had, and no group appeared under its prefix.
// Each row's time from "the broker answers again" to "ready again" is printed and recorded
// (test/.results/reliability/broker-outage-*.json).
import { setTimeout as delay } from 'node:timers/promises';
import { join } from 'node:path';
import type { Admin, Producer } from 'kafkajs';
import { REPO_ROOT, startCluster, type KafkaCluster } from '../../scripts/kafka-cluster.mjs';
import {
  connectedAdmin,
  ensureLibBuilt,
  kafkaFor,
  prefixGroups,
  recordReliability,
} from '../support/faults/faults.js';
import {
  Instances,
  type ExitInfo,
  type Instance,
  type InstanceConfig,
} from '../support/faults/instances.js';
import { testPrefix, waitFor } from '../support/broker/kafka.js';
import { PROCESS_ROWS } from '../support/faults/process-rows.js';
import { BROKER_DEFAULT_GROUP_SETTINGS } from '../support/faults/broker-group-defaults.js';

const TOPIC = 'news';
const OUTAGE_MS = 20_000;
const PUBLISH_EVERY_MS = 50;
/** Ready again after the broker answers (today's KIP-848 lock mode: about 50 s, issue #37). */
const RECOVERY_DEADLINE_MS = 120_000;
const ENGINE_CHILD = join(REPO_ROOT, 'test/support/faults/outage-child.mjs');
const NEST_CHILD = join(REPO_ROOT, 'test/support/nest/outage-nest-child.mjs');

interface Row {
  name: string;
  prefix: string;
  instances: Instance[];
}

/** One record the publisher sent: acknowledged (ackedAt) or not. */
interface Sent {
  seq: number;
  sentAt: number;
  ackedAt?: number;
}

/** What the scenario saw of one instance, judged by the rows' tests. */
interface Seen {
  instance: Instance;
  readyAt: number;
  groupBefore: string | undefined;
  groupAfter: string | undefined;
  wentUnhealthy: boolean;
  healthyAtEnd: boolean;
  /** The broker answered again → ready again (0: never stopped being ready). */
  readyAgainMs: number;
  /** The broker answered again → the first record sent after that received. */
  readingAgainMs: number;
  lost: number[];
  duplicates: number;
  expected: number;
  exitDuringRun: ExitInfo | undefined;
  exit: ExitInfo | undefined;
}

const fleet = new Instances();
let cluster: KafkaCluster | undefined;
const rows: Row[] = [];
const seen = new Map<Instance, Seen>();
const sentTo = new Map<string, Sent[]>();
let groupsBefore = new Map<string, string[]>();
let groupsAfter = new Map<string, string[]>();
let timing = { downAt: 0, upAt: 0, stopNodeMs: 0, startNodeMs: 0 };

function spawnRows(brokers: string[]): void {
  PROCESS_ROWS.forEach(({ name, kafka }, r) => {
    const prefix = testPrefix(`outage-${r}`);
    const spawn = (id: string, lock: InstanceConfig['lock']) =>
      fleet.spawn({
        name: `r${r}-${id}`,
        runner: ENGINE_CHILD,
        brokers,
        prefix,
        lock,
        topics: [TOPIC],
        kafka,
      });
    rows.push({
      name,
      prefix,
      instances: [
        spawn('lf-a', 'none'),
        spawn('lf-b', 'none'),
        spawn('pg-a', 'postgres'),
        spawn('pg-b', 'postgres'),
      ],
    });
  });
  for (const nestApp of ['context', 'transport'] as const) {
    const prefix = testPrefix(`outage-nest-${nestApp}`);
    const instance = fleet.spawn({
      name: `nest-${nestApp}`,
      runner: NEST_CHILD,
      nestApp,
      brokers,
      prefix,
      lock: 'none',
      topics: [TOPIC],
    });
    const name =
      nestApp === 'context' ? 'Nest createApplicationContext' : 'Nest BroadcastTransport';
    rows.push({ name, prefix, instances: [instance] });
  }
}

/** Sends `{ seq }` to every row's topic every PUBLISH_EVERY_MS until stopped. */
/**
 * The publisher, a kafkajs producer of the test's own: the rows' instances are under test, not
 * it. `use()` hands it a new producer for the sends from then on; `lastError` is the latest
 * send's failure, for the scenario's error message.
 */
function publishing(first: Producer): {
  use(producer: Producer): void;
  lastError(): string | undefined;
  stop(): Promise<void>;
} {
  let seq = 0;
  let producer = first;
  let lastError: string | undefined;
  const inFlight = new Set<Promise<void>>();
  const timer = setInterval(() => {
    seq++;
    for (const { prefix } of rows) {
      const topic = prefix + TOPIC;
      const sent: Sent = { seq, sentAt: Date.now() };
      sentTo.get(topic)!.push(sent);
      const sending = producer
        .send({ topic, acks: -1, messages: [{ value: JSON.stringify({ seq }) }] })
        .then(
          () => void (sent.ackedAt = Date.now()),
          (error: Error) => void (lastError = `${error.name}: ${error.message}`),
        );
      inFlight.add(sending);
      void sending.finally(() => inFlight.delete(sending));
    }
  }, PUBLISH_EVERY_MS);
  return {
    use: (next) => void (producer = next),
    lastError: () => lastError,
    async stop() {
      clearInterval(timer);
      await Promise.all(inFlight);
    },
  };
}

/** The test's publisher: short retries, so that a send during the outage fails (not expected). */
async function connectedPublisher(brokers: string[]): Promise<Producer> {
  const producer = kafkaFor(brokers, 'outage-publisher').producer({
    allowAutoTopicCreation: false,
    retry: { retries: 2, initialRetryTime: 200, maxRetryTime: 1_000 },
  });
  await producer.connect();
  return producer;
}

const all = () => rows.flatMap((row) => row.instances);
const states = (i: Instance) =>
  i.events.filter((e) => e.event === 'state') as unknown as {
    at: number;
    state: string;
    groupId?: string;
    healthy: boolean;
  }[];
const received = (i: Instance) =>
  i.messages(TOPIC).map((m) => ({ ...m, seq: (m.payload as { seq: number }).seq }));
const firstSentAfter = (topic: string, at: number) =>
  sentTo.get(topic)!.find((s) => s.sentAt >= at && s.ackedAt !== undefined)?.seq;

/** The instance is ready again after the outage and has read a record sent after it. */
function readsAgain(i: Instance, prefix: string): boolean {
  const last = states(i).at(-1);
  if (last?.state !== 'ready') return false;
  const first = firstSentAfter(prefix + TOPIC, timing.upAt);
  return first !== undefined && received(i).some((m) => m.seq >= first);
}

/** Every record acknowledged and sent after `readyAt` reached it (the lost ones otherwise). */
function lostBy(
  i: Instance,
  prefix: string,
  readyAt: number,
): { lost: number[]; expected: number } {
  const got = new Set(received(i).map((m) => m.seq));
  const due = sentTo
    .get(prefix + TOPIC)!
    .filter((s) => s.ackedAt !== undefined && s.sentAt >= readyAt);
  return { lost: due.filter((s) => !got.has(s.seq)).map((s) => s.seq), expected: due.length };
}

async function groupsOf(admin: Admin): Promise<Map<string, string[]>> {
  return new Map(
    await Promise.all(
      rows.map(async ({ prefix }) => [prefix, await prefixGroups(admin, prefix)] as const),
    ),
  );
}

function judge(i: Instance, prefix: string, exits: Map<Instance, ExitInfo>, endAt: number): Seen {
  const ready = i.events.find((e) => e.event === 'ready')!;
  const before = states(i).filter((s) => s.at < timing.downAt);
  // From the outage to the SIGTERM (after it, the instance reports `stopped`).
  const during = states(i).filter((s) => s.at >= timing.downAt && s.at < endAt);
  const wentDown = during.find((s) => s.state !== 'ready');
  const back = wentDown && during.find((s) => s.at > wentDown.at && s.state === 'ready');
  const first = firstSentAfter(prefix + TOPIC, timing.upAt)!;
  const reading = received(i).find((m) => m.seq >= first);
  const offsets = received(i).map((m) => `${m.partition}@${m.offset}`);
  return {
    instance: i,
    readyAt: ready.at,
    groupBefore: before.at(-1)?.groupId,
    groupAfter: during.at(-1)?.groupId,
    wentUnhealthy: during.some((s) => !s.healthy),
    healthyAtEnd: during.at(-1)?.healthy === true,
    readyAgainMs: back ? back.at - timing.upAt : 0,
    readingAgainMs: reading ? reading.at - timing.upAt : NaN,
    ...lostBy(i, prefix, ready.at),
    duplicates: offsets.length - new Set(offsets).size,
    exitDuringRun: i.exit && i.exit.at < endAt ? i.exit : undefined,
    exit: exits.get(i),
  };
}

/** The scenario's steps as they happen, for the run's log (seconds since the file began). */
const began = Date.now();
function step(what: string): void {
  console.log(`broker outage +${((Date.now() - began) / 1000).toFixed(1)} s: ${what}`);
}

beforeAll(async () => {
  ensureLibBuilt();
  // A generous start bound: the restart happens with 14 worker processes on the machine.
  cluster = await startCluster({
    nodes: 1,
    quiet: true,
    properties: () => BROKER_DEFAULT_GROUP_SETTINGS,
    timeoutMs: 180_000,
  });
  const brokers = cluster.brokers;
  step('cluster up');
  spawnRows(brokers);
  for (const { prefix } of rows) sentTo.set(prefix + TOPIC, []);
  await Promise.all(all().map((i) => i.ready(180_000)));
  step(`${all().length} workers ready`);
  const producers = [await connectedPublisher(brokers)];
  let admin: Admin | undefined = await connectedAdmin(brokers);
  const publisher = publishing(producers[0]!);
  try {
    // Everyone reads before the outage.
    await waitFor(() => all().every((i) => i.messages(TOPIC).length > 0), {
      timeoutMs: 60_000,
      message: 'not everyone read before the outage',
    }).catch((error: Error) => {
      const silent = all().filter((i) => i.messages(TOPIC).length === 0);
      throw new Error(`${error.message}: ${silent.map((i) => i.diagnostics()).join('\n')}`);
    });
    step('everyone reads');
    groupsBefore = await groupsOf(admin);
    await admin.disconnect();
    admin = undefined;

    const stopBegan = Date.now();
    await cluster.stopNode(1);
    timing.downAt = Date.now();
    step('broker stopped');
    timing.stopNodeMs = timing.downAt - stopBegan;
    // The outage length is the experiment's parameter, not a wait for an event.
    await delay(Math.max(0, timing.downAt + OUTAGE_MS - Date.now()));
    const restartBegan = Date.now();
    await cluster.startNode(1);
    timing.upAt = Date.now();
    step('broker answers again');
    timing.startNodeMs = timing.upAt - restartBegan;
    // A fresh producer for the sends from here on. The one that lived through the outage never
    // had a send acknowledged again in a CI run at load 14 (2026-12-07 13:48 UTC: "first acknowledged
    // seq since none" on every prefix for 120 s, while every instance was ready and healthy
    // again within 4 s of the broker's return): a kafkajs producer left with sends in flight
    // across a restart can stay stuck, and it is the test's tool, not what is under test. The
    // sends it made still count.
    producers.push(await connectedPublisher(brokers));
    publisher.use(producers.at(-1)!);
    step('publishing through a new producer');

    await waitFor(
      () => {
        const exited = all().find((i) => !i.alive);
        if (exited) throw new Error(`${exited.name} exited\n${exited.diagnostics()}`);
        return rows.every((row) => row.instances.every((i) => readsAgain(i, row.prefix)));
      },
      {
        timeoutMs: RECOVERY_DEADLINE_MS,
        intervalMs: 100,
        fatal: (error) => error,
        message: 'not every instance reads again',
      },
    ).catch((error: Error) => {
      // Told at the deadline, not when the wait began: who is not reading, in what state, and
      // whether the publisher had an acknowledged send since the broker answered.
      const acked = rows.map(
        (row) =>
          `${row.prefix}: first acknowledged seq since ${firstSentAfter(row.prefix + TOPIC, timing.upAt) ?? 'none'}`,
      );
      acked.push(`the publisher's last send error: ${publisher.lastError() ?? 'none'}`);
      const behind = rows.flatMap((row) => row.instances.filter((i) => !readsAgain(i, row.prefix)));
      throw new Error(
        `${error.message} (${behind.map((i) => i.name).join(', ')}; ${acked.join('; ')})\n${behind.map((i) => i.diagnostics()).join('\n')}`,
      );
    });
    step('everyone reads again');
    // A few more records for everyone, then every acknowledged one must arrive.
    await delay(2_000);
    await publisher.stop();
    await waitFor(
      () =>
        rows.every((row) =>
          row.instances.every((i) => {
            const ready = i.events.find((e) => e.event === 'ready')!;
            return lostBy(i, row.prefix, ready.at).lost.length === 0;
          }),
        ),
      { timeoutMs: 30_000, intervalMs: 100, message: 'records still missing' },
    ).catch(() => undefined); // judged per instance below, with what is missing
    step('records drained');
    admin = await connectedAdmin(brokers);
    groupsAfter = await groupsOf(admin);
  } finally {
    await publisher.stop();
    await Promise.all(producers.map((p) => p.disconnect().catch(() => undefined)));
    await admin?.disconnect().catch(() => undefined);
  }
  const endAt = Date.now();
  const exits = new Map<Instance, ExitInfo>();
  await Promise.all(
    all().map(async (i) => exits.set(i, await i.terminate(40_000).catch(() => i.exited))),
  );
  step('workers stopped');
  for (const row of rows)
    for (const i of row.instances) seen.set(i, judge(i, row.prefix, exits, endAt));
  for (const row of rows) {
    const figures = row.instances.map((i) => seen.get(i)!);
    const ms = (pick: (s: Seen) => number) => figures.map(pick);
    console.log(
      `broker outage, ${row.name}: ready again ${ms((s) => s.readyAgainMs).join(', ')} ms, ` +
        `reading again ${ms((s) => s.readingAgainMs).join(', ')} ms after the broker answered`,
    );
    recordReliability({
      scenario: `broker-outage-${row.name}`,
      instances: row.instances.length,
      outageMs: restartedAfter(),
      stopNodeMs: timing.stopNodeMs,
      startNodeMs: timing.startNodeMs,
      sent: sentTo.get(row.prefix + TOPIC)!.filter((s) => s.ackedAt !== undefined).length,
      received: figures.reduce((n, s) => n + s.expected - s.lost.length, 0),
      lost: figures.reduce((n, s) => n + s.lost.length, 0),
      duplicates: figures.reduce((n, s) => n + s.duplicates, 0),
      groupsBefore: groupsBefore.get(row.prefix),
      groupsAfter: groupsAfter.get(row.prefix),
      recoverMs: Math.max(...ms((s) => s.readyAgainMs)),
      instanceReadyAgainMs: ms((s) => s.readyAgainMs),
      instanceReadingAgainMs: ms((s) => s.readingAgainMs),
    });
  }
}, 600_000);

function restartedAfter(): number {
  return timing.upAt - timing.downAt;
}

afterAll(async () => {
  await fleet.killAll();
  await cluster?.stop();
});

describe(`a ${OUTAGE_MS / 1000} s outage of the only broker (production group settings), no HTTP server`, () => {
  // Only the rows that ran: a row left out by BROADCAST_KAFKA_CLIENTS is no test at all.
  const names = [
    ...PROCESS_ROWS.map((r) => r.name),
    'Nest createApplicationContext',
    'Nest BroadcastTransport',
  ];
  it.each(names)(
    '%s: no process exits, all read again, every acknowledged record once, same groups, exit 0 on SIGTERM',
    (name) => {
      const row = rows.find((r) => r.name === name);
      if (!row) throw new Error(`the row ${name} was not started`);
      for (const i of row.instances) {
        const s = seen.get(i)!;
        const context = `${i.name}\n${i.diagnostics()}`;
        expect.soft(s.exitDuringRun, `exited by itself: ${context}`).toBeUndefined();
        expect.soft(s.wentUnhealthy, `health went down: ${context}`).toBe(true);
        expect.soft(s.healthyAtEnd, `healthy again: ${context}`).toBe(true);
        expect.soft(s.readingAgainMs, `reads again: ${context}`).toBeLessThan(RECOVERY_DEADLINE_MS);
        expect.soft(s.lost, `lost (of ${s.expected}): ${context}`).toEqual([]);
        expect.soft(s.duplicates, `records delivered twice: ${context}`).toBe(0);
        expect.soft(s.groupAfter, `same group: ${context}`).toBe(s.groupBefore);
        expect.soft(s.exit, `exit on SIGTERM: ${context}`).toMatchObject({ code: 0, signal: null });
        expect
          .soft(
            i.events.some((e) => e.event === 'stopped'),
            `stopped: ${context}`,
          )
          .toBe(true);
      }
      expect(groupsAfter.get(row.prefix)).toEqual(groupsBefore.get(row.prefix));
      expect(groupsAfter.get(row.prefix)).toEqual(
        row.instances.map((i) => seen.get(i)!.groupBefore).sort(),
      );
    },
  );
});
