// Lock loss: an instance's lock session is killed from the database side (PostgreSQL
// pg_terminate_backend, MariaDB KILL) while a fresh instance starts and competes for the freed
// id. The victim must stop using its group within its lock check interval and allocate again;
// describeGroups sampled every ~100 ms never shows two live members in one group.
import type { Admin, Producer } from 'kafkajs';
import { onTestFailed } from 'vitest';
import {
  connectedAdmin,
  connectedProducer,
  deletePrefix,
  describe1,
  ensureLibBuilt,
  FAST_CONSUMER,
  LOCK_CHECK_INTERVAL_MS,
  prefixGroups,
  publishJson,
  recordReliability,
} from '../support/faults/faults.js';
import { LockInspector } from '../support/engine/lock-inspector.js';
import {
  Instances,
  type Instance,
  type InstanceConfig,
  type InstanceEvent,
} from '../support/faults/instances.js';
import { sampleGroups } from '../support/broker/group-sampler.js';
import { kafkaBrokers, testPrefix, waitFor } from '../support/broker/kafka.js';
import { clientScoped, kafkaClients } from '../support/broker/kafka-clients.js';

const TOPIC = 'news';
/** A steady stream of broadcasts through the whole lock loss, to measure what the move costs. */
const STREAM = 'stream';
const MAX_GROUPS = 8;
const brokers = kafkaBrokers();
/** A fresh set per test, so that one test's instances never count in the next one's figures. */
let fleet = new Instances();
let admin: Admin;
let producer: Producer;
const prefixes: string[] = [];

beforeAll(async () => {
  ensureLibBuilt();
  admin = await connectedAdmin(brokers);
  producer = await connectedProducer(brokers);
});

beforeEach(() => {
  fleet = new Instances();
});

afterEach(async () => {
  // Graceful first, so that the instances leave their groups and the groups can be deleted.
  await fleet.stopAll(15_000);
});

afterAll(async () => {
  await fleet.killAll();
  for (const prefix of prefixes) await deletePrefix(admin, prefix).catch(() => undefined);
  await producer?.disconnect();
  await admin?.disconnect();
});

const ROWS = kafkaClients().flatMap((client) =>
  (['postgres', 'mariadb'] as const).map((kind) => [client, kind] as const),
);

describe.each(ROWS)('%s client: lock loss (%s)', (client, kind) => {
  it('the victim leaves its group within its check interval, allocates again, and never shares a group', async () => {
    onTestFailed(() => console.log(fleet.diagnostics()));
    const prefix = testPrefix(clientScoped(`faults-lockloss-${kind}`, client));
    prefixes.push(prefix);
    const namespace = `${prefix}broadcastConsumer`;
    const groups = Array.from(
      { length: MAX_GROUPS },
      (_, id) => `${prefix}broadcastConsumer-${id}`,
    );
    const config = (name: string, extra: Partial<InstanceConfig> = {}): InstanceConfig => ({
      name,
      brokers,
      prefix,
      lock: kind,
      topics: [TOPIC, STREAM],
      consumer: FAST_CONSUMER,
      lockCheckIntervalMs: LOCK_CHECK_INTERVAL_MS,
      maxGroups: MAX_GROUPS,
      kafka: { client },
      ...extra,
    });
    const db = await LockInspector.open(kind);
    const sampler = sampleGroups(groups, { brokers, intervalMs: 100 });
    let streaming = false;
    let streamer: Promise<void> | undefined;
    const stream: { n: number; ackedAt: number }[] = [];
    try {
      const first = ['a', 'b', 'c'].map((name) => fleet.spawn(config(name)));
      const readies = await Promise.all(first.map((i) => i.ready()));
      expect(readies.map((r) => r.lockId).sort()).toEqual([0, 1, 2]);
      const competitor = fleet.spawn(config('d', { deferStart: true }));
      await competitor.waitFor((e) => e.event === 'loaded', {
        message: "'loaded'",
      });

      const payloadsSent: unknown[] = [];
      const broadcast = async (payload: unknown, receivers: Instance[]) => {
        await publishJson(producer, prefix + TOPIC, [payload]);
        payloadsSent.push(payload);
        const wanted = JSON.stringify(payload);
        await waitFor(
          () => receivers.every((r) => r.payloads(TOPIC).some((p) => JSON.stringify(p) === wanted)),
          {
            timeoutMs: 30_000,
            intervalMs: 20,
            message: `${wanted} not received by all\n${fleet.diagnostics()}`,
          },
        );
      };
      await broadcast({ n: 'before' }, first);

      streaming = true;
      streamer = (async () => {
        for (let n = 0; streaming; n++) {
          await publishJson(producer, prefix + STREAM, [{ n }]);
          stream.push({ n, ackedAt: Date.now() });
          await new Promise((resolve) => setTimeout(resolve, 40));
        }
      })();
      await waitFor(() => stream.length >= 10, {
        timeoutMs: 10_000,
        message: 'stream not flowing',
      });

      const victim = first[1]!;
      const victimReady = readies[1]!;
      const oldGroup = victimReady.groupId;
      const oldMembers = (await describe1(admin, oldGroup)).memberIds;
      expect(oldMembers).toHaveLength(1);
      const session = await db.holder(victimReady.lockId, namespace);
      expect(session, 'the victim holds its lock in the database').toBeDefined();

      const since = victim.events.length;
      const killedAt = Date.now();
      await db.killSession(session!);
      competitor.send('start');

      // The victim's consumer leaves its group (LeaveGroup, not a session expiry).
      await waitFor(
        async () => !(await describe1(admin, oldGroup)).memberIds.includes(oldMembers[0]!),
        {
          timeoutMs: 10_000,
          intervalMs: 25,
          message: `${victim.name} still a member of ${oldGroup}`,
        },
      );
      const leftMs = Date.now() - killedAt;
      const recovering = await victim.waitFor(
        (e) => e.event === 'state' && e.state === 'recovering',
        {
          since,
          timeoutMs: 10_000,
          message: "state 'recovering'",
        },
      );
      const detectMs = recovering.at - killedAt;
      const readyAgain: InstanceEvent = await victim.waitFor(
        (e) =>
          e.event === 'state' &&
          e.state === 'ready' &&
          e.at >= recovering.at &&
          e.groupId !== undefined,
        { since, timeoutMs: 30_000, message: "'ready' again" },
      );
      const recoverMs = readyAgain.at - killedAt;
      const competitorReady = await competitor.ready();
      await waitFor(
        () =>
          stream.some(
            (m) => m.ackedAt > readyAgain.at + 1_000 && m.ackedAt > competitorReady.at + 1_000,
          ),
        {
          timeoutMs: 10_000,
          message: 'stream stalled',
        },
      );
      streaming = false;
      await streamer;
      const streamed = (i: Instance) =>
        new Set(i.payloads(STREAM).map((p) => (p as { n: number }).n));
      await waitFor(() => [first[0]!, first[2]!].every((i) => streamed(i).size === stream.length), {
        timeoutMs: 20_000,
        message: 'bystanders missed streamed broadcasts',
      });
      const afterReady = (at: number) => stream.filter((m) => m.ackedAt > at).map((m) => m.n);
      await waitFor(() => afterReady(readyAgain.at).every((n) => streamed(victim).has(n)), {
        timeoutMs: 20_000,
        message: `the victim missed broadcasts published after it was ready again: ${afterReady(
          readyAgain.at,
        )
          .filter((n) => !streamed(victim).has(n))
          .join(',')}`,
      });
      await waitFor(
        () => afterReady(competitorReady.at).every((n) => streamed(competitor).has(n)),
        {
          timeoutMs: 20_000,
          message: 'the competitor missed broadcasts published after it was ready',
        },
      );
      // Not even what was published while the victim moved (after its old consumer stopped and
      // before its new group's start offsets were taken): the new group resumes where it stopped.
      await waitFor(() => stream.every((m) => streamed(victim).has(m.n)), {
        timeoutMs: 10_000,
        message: `the victim missed broadcasts published while it moved: ${stream
          .filter((m) => !streamed(victim).has(m.n))
          .map((m) => `${m.n} (${m.ackedAt - killedAt} ms after the kill)`)
          .join(', ')}`,
      });
      const missedByVictim = stream.filter((m) => !streamed(victim).has(m.n));
      for (const i of [...first, competitor])
        expect(i.payloads(STREAM).length, `${i.name} duplicates`).toBe(streamed(i).size);

      expect(
        detectMs,
        'lock loss noticed later than the check interval allows',
      ).toBeLessThanOrEqual(LOCK_CHECK_INTERVAL_MS + 1_000);
      expect(leftMs, 'the victim kept its group too long').toBeLessThanOrEqual(
        LOCK_CHECK_INTERVAL_MS + 2_000,
      );
      expect(victim.alive).toBe(true);

      // Four instances, four locks held by four sessions, four groups.
      const live = [first[0]!, victim, first[2]!, competitor];
      const states = live.map((i) => i.lastState!);
      expect(states.every((s) => s.state === 'ready')).toBe(true);
      const lockIds = states.map((s) => s.lockId as number);
      expect(new Set(lockIds).size).toBe(4);
      expect(new Set(states.map((s) => s.groupId)).size).toBe(4);
      const sessions = await Promise.all(lockIds.map((id) => db.holder(id, namespace)));
      expect(sessions.every((s) => s !== undefined)).toBe(true);
      expect(new Set(sessions).size).toBe(4);
      expect(sessions).not.toContain(session);
      for (const s of states)
        expect((await describe1(admin, s.groupId as string)).memberIds).toHaveLength(1);

      // Broadcasts after it is ready again reach it, and everyone else.
      for (let n = 0; n < 5; n++) await broadcast({ n }, live);
      expect(victim.payloads(TOPIC)).toEqual(
        [{ n: 'before' }, 0, 1, 2, 3, 4].map((n) => (typeof n === 'number' ? { n } : n)),
      );
      expect(competitor.payloads(TOPIC)).toEqual([0, 1, 2, 3, 4].map((n) => ({ n })));

      const report = await sampler.stop();
      expect(report.samples).toBeGreaterThan(20);
      expect(report.violations, 'two live members in one group').toEqual([]);
      const groupsAfter = await prefixGroups(admin, prefix);
      // A graceful stop of all four still works after the loss.
      const exits = await fleet.stopAll();
      expect(exits.map((e) => e.code)).toEqual([0, 0, 0, 0]);

      recordReliability({
        scenario: clientScoped(`lock-loss-${kind}`, client),
        instances: 4,
        crashes: 0,
        sent: payloadsSent.length,
        deliveriesExpected: 3 + 5 * live.length,
        received: live.reduce((sum, i) => sum + i.payloads(TOPIC).length, 0),
        lost: 3 + 5 * live.length - live.reduce((sum, i) => sum + i.payloads(TOPIC).length, 0),
        groupsBefore: 3,
        groupsAfter: groupsAfter.length,
        recoverMs,
        detectMs,
        leftGroupMs: leftMs,
        victimMoved: `${oldGroup.slice(prefix.length)} -> ${String(readyAgain.groupId).slice(prefix.length)}`,
        competitorGroup: competitorReady.groupId.slice(prefix.length),
        streamed: stream.length,
        streamMissedByVictimDuringMove: missedByVictim.length,
        streamMissWindowMs: missedByVictim.length
          ? missedByVictim.at(-1)!.ackedAt - missedByVictim[0]!.ackedAt
          : 0,
        describeSamples: report.samples,
        maxMembersInAGroup: report.maxMembers,
        lockCheckIntervalMs: LOCK_CHECK_INTERVAL_MS,
      });
    } finally {
      streaming = false;
      await streamer?.catch(() => undefined);
      await sampler.stop();
      await db.close();
    }
  });
});
