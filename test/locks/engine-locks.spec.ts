/**
 * Lock loss, for real: the database session holding an engine's advisory lock is killed from
 * the database side while another session ("another instance") takes the freed id over. The
 * engine must leave that group, move to another id, and keep receiving broadcasts, and no
 * consumer group may ever have two members meanwhile.
 */
import { setTimeout as delay } from 'node:timers/promises';
import { sampleGroups } from '../support/broker/group-sampler.js';
import { waitFor } from '../support/broker/kafka.js';
import {
  LockInspector,
  useEngineHarness,
  watchStates,
  type LockKind,
} from '../support/engine/engine.js';
import { kafkaClients } from '../support/broker/kafka-clients.js';

const TOPIC = 'news';
const MAX_GROUPS = 4;

describe.each(kafkaClients())(
  'BroadcastEngine: lock lost from the database side, %s client',
  (client) => {
    it.each<[Exclude<LockKind, 'none'>]>([['postgres'], ['mariadb']])(
      '(%s) the engine moves to another id and group, no group ever has two members, broadcasts still arrive',
      async (lock) => {
        const h = useEngineHarness(`lock-loss-${lock}`, { maxGroups: MAX_GROUPS }, client);
        const victim = await h.start({ lock, topics: [TOPIC], name: 'victim' });
        const bystander = await h.start({
          lock,
          topics: [TOPIC],
          name: 'bystander',
        });
        expect(victim.status().lockId).toBe(0);
        expect(bystander.status().lockId).toBe(1);
        const oldGroup = victim.status().groupId!;

        const candidates = Array.from({ length: MAX_GROUPS }, (_, id) => h.groupName(lock, id));
        const sampler = sampleGroups(candidates, { intervalMs: 100 });
        h.onCleanup(() => sampler.stop());
        const inspector = await LockInspector.open(lock, h.lockNamespace);
        h.onCleanup(() => inspector.close());
        await waitFor(() => sampler.report.samples >= 3, {
          message: 'group sampler not sampling',
        });

        // Before: the broadcast reaches both.
        await victim.engine.publisher.publish(TOPIC, { n: 0 });
        await waitFor(
          () => victim.payloads(TOPIC).length === 1 && bystander.payloads(TOPIC).length === 1,
          {
            message: 'broadcast before the kill not received',
          },
        );

        const victimStates = watchStates(victim);
        const bystanderStates = watchStates(bystander);
        h.onCleanup(async () => void (victimStates.stop(), bystanderStates.stop()));

        const killedAt = Date.now();
        // "Another instance" takes id 0 as soon as the killed session has let it go.
        const { session, release: releaseSquatter } = await inspector.killHolderAndTakeOver(0);
        h.onCleanup(releaseSquatter);
        const squattedAt = Date.now();
        expect(await inspector.holder(0)).not.toBe(session);

        const moved = await waitFor(
          () => {
            const s = victim.status();
            return s.state === 'ready' && s.lockId !== undefined && s.lockId !== 0 ? s : undefined;
          },
          {
            timeoutMs: 30_000,
            message: `victim did not move: ${JSON.stringify(victim.status())}`,
          },
        );
        const movedAt = Date.now();
        // Left the old group before taking a new one; lowest free id is 2 (0 squatted, 1 the bystander's).
        expect((await h.members([oldGroup])).get(oldGroup) ?? []).toEqual([]);
        expect(moved.lockId).toBe(2);
        expect(moved.groupId).toBe(h.groupName(lock, 2));
        expect(await inspector.holder(2)).toBeDefined();
        expect(victimStates.states.map((s) => s.state)).toContain('recovering');
        expect(
          victim.logger.matching(/Giving up broadcast group .*advisory lock was lost/, 'warn'),
        ).toHaveLength(1);

        // After: broadcasts still reach both, and nothing is lost or doubled.
        for (let n = 1; n <= 20; n++) await bystander.engine.publisher.publish(TOPIC, { n });
        await waitFor(
          () => victim.payloads(TOPIC).length >= 21 && bystander.payloads(TOPIC).length >= 21,
          {
            timeoutMs: 15_000,
            message: `after the move: victim ${victim.payloads(TOPIC).length}/21, bystander ${bystander.payloads(TOPIC).length}/21`,
          },
        );
        const expected = Array.from({ length: 21 }, (_, n) => ({ n }));
        expect(victim.payloads(TOPIC)).toEqual(expected);
        expect(bystander.payloads(TOPIC)).toEqual(expected);

        // The freed id is usable again: once "the other instance" lets it go, a newcomer takes
        // id 0 and its group, which the victim left (had it lingered there, the newcomer would
        // find the group non-empty and move on, and the sampler would see two members).
        await releaseSquatter();
        const newcomer = await h.start({
          lock,
          topics: [TOPIC],
          name: 'newcomer',
        });
        expect(newcomer.status().lockId).toBe(0);
        expect(newcomer.status().groupId).toBe(oldGroup);
        await newcomer.engine.publisher.publish(TOPIC, { n: 21 });
        await waitFor(
          () =>
            [victim, bystander, newcomer].every((e) =>
              e.payloads(TOPIC).some((p) => (p as { n: number }).n === 21),
            ),
          {
            message: 'broadcast after the newcomer joined not received by all three',
          },
        );
        expect(newcomer.payloads(TOPIC)).toEqual([{ n: 21 }]);
        expect(victim.payloads(TOPIC)).toHaveLength(22);
        const groups = [victim, bystander, newcomer].map((e) => e.status().groupId);
        expect(new Set(groups).size).toBe(3);

        // The bystander never noticed.
        expect(bystanderStates.stop().map((s) => [s.state, s.lockId])).toEqual([['ready', 1]]);
        victimStates.stop();

        const report = await sampler.stop();
        const duringMove = report.sampledAt.filter((t) => t >= killedAt && t <= movedAt).length;
        console.log(
          `[lock-loss ${lock}] killed session ${session}; squatted after ${squattedAt - killedAt} ms; ` +
            `moved to ${moved.groupId!.slice(h.prefix.length)} ${movedAt - killedAt} ms after the kill; ` +
            `states ${victimStates.states.map((s) => `${s.state}:${s.lockId ?? '-'}@+${s.at - killedAt}`).join(' → ')}; ` +
            `sampler: ${report.samples} samples (${duringMove} between kill and move, ${report.failedSamples} failed), ` +
            `max members ${report.maxMembers} (per group ${[...report.maxMembersPerGroup.values()].join('/')})`,
        );
        expect(report.failedSamples).toBeLessThan(report.samples / 10);
        expect(report.samples).toBeGreaterThanOrEqual(5);
        expect(report.violations).toEqual([]);
        expect(report.maxMembers).toBe(1);
      },
    );

    // Broadcasts keep flowing while the victim moves. The new group starts right after the last
    // record the old one delivered, so the victim misses nothing, not even during the move.
    it('(postgres) with broadcasts flowing through the move: neither the bystander nor the moving engine misses anything', async () => {
      const lock = 'postgres';
      const h = useEngineHarness('lock-loss-flow', { maxGroups: MAX_GROUPS }, client);
      const victim = await h.start({ lock, topics: [TOPIC], name: 'victim' });
      const bystander = await h.start({
        lock,
        topics: [TOPIC],
        name: 'bystander',
      });
      const inspector = await LockInspector.open(lock, h.lockNamespace);
      h.onCleanup(() => inspector.close());
      const producer = await h.producer();

      const sentAt: number[] = [];
      let publishing = true;
      const publisher = (async () => {
        for (let n = 0; publishing; n++) {
          await producer.send({
            topic: h.topic(TOPIC),
            acks: -1,
            messages: [{ value: JSON.stringify({ n }) }],
          });
          sentAt[n] = Date.now(); // acknowledged: published
          await delay(5); // pacing of the stream, not a wait for a condition
        }
      })();
      h.onCleanup(async () => {
        publishing = false;
        await publisher;
      });
      const numbers = (e: typeof victim) => e.payloads(TOPIC).map((p) => (p as { n: number }).n);

      await waitFor(() => victim.payloads(TOPIC).length >= 20, {
        message: 'stream not flowing before the kill',
      });
      const killedAt = Date.now();
      h.onCleanup((await inspector.killHolderAndTakeOver(0)).release);
      await waitFor(() => victim.status().state === 'ready' && victim.status().lockId === 2, {
        timeoutMs: 30_000,
        message: `victim did not move: ${JSON.stringify(victim.status())}`,
      });
      const readyAgainAt = Date.now();
      const firstAfter = sentAt.length; // every n >= this was acknowledged after the victim was ready again
      await waitFor(() => numbers(victim).filter((n) => n >= firstAfter).length >= 20, {
        message: 'stream not received after the move',
      });
      publishing = false;
      await publisher;
      const total = sentAt.length;
      await waitFor(
        () => bystander.payloads(TOPIC).length >= total && numbers(victim).includes(total - 1),
        {
          message: `stream tail not received: bystander ${bystander.payloads(TOPIC).length}/${total}`,
        },
      );

      const all = Array.from({ length: total }, (_, n) => n);
      expect(numbers(bystander)).toEqual(all);
      const got = numbers(victim);
      expect(new Set(got).size, 'duplicates at the victim').toBe(got.length);
      expect(got.filter((n) => n >= firstAfter)).toEqual(all.filter((n) => n >= firstAfter));
      const missed = all.filter((n) => !got.includes(n));
      console.log(
        `[lock-loss flow] ${total} published; victim ready again ${readyAgainAt - killedAt} ms after the kill; ` +
          `victim missed ${missed.length}` +
          (missed.length
            ? ` (n ${missed[0]}..${missed.at(-1)}, acknowledged +${sentAt[missed[0]!]! - killedAt}..+${sentAt[missed.at(-1)!]! - killedAt} ms after the kill)`
            : ''),
      );
      expect(missed).toEqual([]);
    });
  },
);
