/**
 * Under KIP-848 the broker itself enforces the claim on a pool id (issue #37, item 3): every
 * group of the pool is joined with a static instance id (the group's own id), and a join with an
 * instance id that an active member holds is refused (UNRELEASED_INSTANCE_ID) in one round trip.
 *
 * Two lock-free engines (@platformatic/kafka, consumer protocol) race for the same id: both
 * drew it from a listing that saw it free (so neither deletes it first: the join is the claim),
 * and the claimant's join goes out only after the holder is ready, so only the broker can tell
 * them apart (a test seam on each engine's own port orders the two; nothing of the broker is
 * faked). The claimant is
 * refused by the broker, names the held instance id, and draws again: with a pool of 2 it ends
 * in the other group, with a pool of 1 it waits and reports the pool full. The holder is never
 * disturbed and receives every record once; its stop frees the id at once for a newcomer.
 */
import type { BroadcastModuleOptions } from '../../libs/broadcast/src/interfaces/broadcast-module-options.interface.js';
import type { BroadcastLogger } from '../../libs/broadcast/src/interfaces/broadcast-logger.interface.js';
import type {
  GroupConsumerPort,
  KafkaPort,
} from '../../libs/broadcast/src/interfaces/kafka-port.interface.js';
import { resolveBroadcastOptions } from '../../libs/broadcast/src/core/options/broadcast-options.resolver.js';
import { LazyKafkaPort } from '../../libs/broadcast/src/engine/lazy-kafka-port.js';
import { deferred } from '../../libs/broadcast/src/shared/async.utils.js';
import { useEngineHarness, watchStates, type TestEngine } from '../support/engine/engine.js';
import { waitFor } from '../support/broker/kafka.js';

const TOPIC = 'news';
const MESSAGES = 20;
const KIP848 = { client: 'platformatic', groupProtocol: 'consumer' } as const;

/**
 * The order of the race: the claimant draws id 0 first, the holder joins it, then the claimant.
 * Every delete is counted: an id a listing saw free is joined without one.
 */
function race() {
  const claimantDrew = deferred<void>();
  const holderReady = deferred<void>();
  const ports = new Map<string, KafkaPort>();
  const deletes: string[] = [];
  /** Its first consumer's start, held until `until` resolves. */
  const held = (consumer: GroupConsumerPort, until: Promise<void>): GroupConsumerPort => ({
    groupId: consumer.groupId,
    start: () => until.then(() => consumer.start()),
    seek: (topic, partition, offset) => consumer.seek(topic, partition, offset),
    stop: () => consumer.stop(),
  });
  /**
   * The engine's own port, with its first listing seeing id 1 taken (so it draws id 0 first) and
   * its first join ordered as above.
   */
  const port =
    (role: 'holder' | 'claimant') =>
    (options: BroadcastModuleOptions, logger: BroadcastLogger): KafkaPort => {
      const real = LazyKafkaPort.forOptions(resolveBroadcastOptions(options), logger).warm();
      let listed = false;
      let drew = false;
      const admin = new Proxy(real.admin, {
        get(target, key) {
          if (key === 'occupiedGroups')
            return async (prefix: string) => {
              const groups = await target.occupiedGroups(prefix);
              if (listed) return groups;
              listed = true;
              return [...groups, `${prefix}1`];
            };
          if (key === 'deleteGroup')
            return (groupId: string, deadline: number, signal?: AbortSignal) => {
              deletes.push(`${role} ${groupId}`);
              return target.deleteGroup(groupId, deadline, signal);
            };
          const value: unknown = Reflect.get(target, key);
          return typeof value === 'function' ? value.bind(target) : value;
        },
      });
      ports.set(role, real);
      return {
        admin,
        about: () => real.about?.(),
        claimsByInstanceId: (groupId) => real.claimsByInstanceId!(groupId),
        createGroupConsumer: (spec) => {
          const consumer = real.createGroupConsumer(spec);
          if (drew) return consumer;
          drew = true;
          if (role === 'holder') return held(consumer, claimantDrew.promise);
          claimantDrew.resolve();
          return held(consumer, holderReady.promise);
        },
        send: real.send.bind(real),
        disconnect: () => real.disconnect(),
      };
    };
  return { port, holderReady, ports, deletes };
}

/** The broker's refusal, as the claimant logged it for `groupId`. */
function brokerRefusals(e: TestEngine, groupId: string): string[] {
  return e.logger.matching(
    new RegExp(
      `Broadcast group ${groupId} refused: shared with member\\(s\\) (\\S+) \\(instance id ${groupId} of ${groupId} is held by member \\1 \\(UNRELEASED_INSTANCE_ID\\)`,
    ),
  );
}

describe('KIP-848: the broker refuses a second claimant of a pool id (@platformatic/kafka)', () => {
  it('pool of 2: the claimant is refused by the broker and ends in the other group; the holder reads on undisturbed', async () => {
    const h = useEngineHarness('kip848-claim-two', { maxGroups: 2 }, 'platformatic');
    const { port, holderReady, ports, deletes } = race();
    const holder = await h.create({
      name: 'holder',
      lock: 'none',
      topics: [TOPIC],
      kafka: KIP848,
      kafkaPort: port('holder'),
    });
    const claimant = await h.create({
      name: 'claimant',
      lock: 'none',
      topics: [TOPIC],
      kafka: KIP848,
      kafkaPort: port('claimant'),
    });
    const holderStarted = h.startEngine(holder).then(() => holderReady.resolve());
    const claimantStarted = h.startEngine(claimant);
    await holderStarted;
    const holderStates = watchStates(holder);
    await claimantStarted;

    const g0 = h.groupName('none', 0);
    const g1 = h.groupName('none', 1);
    expect(holder.status().groupId).toBe(g0);
    expect(claimant.status().groupId).toBe(g1);
    expect(brokerRefusals(claimant, g0), h.dumpLogs()).toHaveLength(1);
    // Both drew id 0 from a listing that saw it free: neither deleted it, the join was the claim.
    expect(deletes.filter((d) => d.endsWith(` ${g0}`))).toEqual([]);
    // The holder never heard of it: no contest, no verification that found a stranger.
    expect(holder.logger.matching(/shared with|Giving up|waiting for them to leave/)).toEqual([]);
    const admin = ports.get('holder')!.admin;
    expect((await admin.describeGroup(g0)).memberIds).toHaveLength(1);
    expect((await admin.describeGroup(g1)).memberIds).toHaveLength(1);

    const payloads = Array.from({ length: MESSAGES }, (_, n) => ({ n }));
    await h.sendJson(TOPIC, payloads);
    await waitFor(() => [holder, claimant].every((e) => e.payloads(TOPIC).length >= MESSAGES), {
      message: `holder ${holder.payloads(TOPIC).length}, claimant ${claimant.payloads(TOPIC).length} of ${MESSAGES}`,
    });
    expect(holder.payloads(TOPIC)).toEqual(payloads);
    expect(claimant.payloads(TOPIC)).toEqual(payloads);
    expect(holderStates.stop().map((s) => [s.state, s.groupId])).toEqual([['ready', g0]]);
  });

  it('pool of 1: the claimant is refused by the broker, then waits and reports the pool full; the holder reads on', async () => {
    const h = useEngineHarness(
      'kip848-claim-one',
      { maxGroups: 1, startupTimeoutMs: 8_000 },
      'platformatic',
    );
    const { port, holderReady } = race();
    const holder = await h.create({
      name: 'holder',
      lock: 'none',
      topics: [TOPIC],
      kafka: KIP848,
      kafkaPort: port('holder'),
    });
    const claimant = await h.create({
      name: 'claimant',
      lock: 'none',
      topics: [TOPIC],
      kafka: KIP848,
      kafkaPort: port('claimant'),
    });
    const holderStarted = h.startEngine(holder).then(() => holderReady.resolve());
    const claimantStarted = h.startEngine(claimant).then(
      () => 'ready',
      (error: unknown) => String(error),
    );
    await holderStarted;
    const holderStates = watchStates(holder);
    const g0 = h.groupName('none', 0);
    await waitFor(() => brokerRefusals(claimant, g0).length > 0, {
      message: `the claimant was not refused by the broker:\n${h.dumpLogs()}`,
    });
    await waitFor(() => claimant.logger.matching(/pool/i, 'warn').length > 0, {
      message: 'the claimant did not report the pool full',
    });
    expect(claimant.status().state).not.toBe('ready');

    const payloads = Array.from({ length: MESSAGES }, (_, n) => ({ n }));
    await h.sendJson(TOPIC, payloads);
    await waitFor(() => holder.payloads(TOPIC).length >= MESSAGES, {
      message: `holder ${holder.payloads(TOPIC).length} of ${MESSAGES}`,
    });
    expect(holder.payloads(TOPIC)).toEqual(payloads);
    expect(claimant.payloads(TOPIC)).toEqual([]);
    await claimant.stop();
    expect(await claimantStarted).not.toBe('ready');
    expect(holderStates.stop().map((s) => [s.state, s.groupId])).toEqual([['ready', g0]]);

    // The holder's stop (a leave with epoch -1) frees the instance id at once: a newcomer takes
    // the only id without a refusal, long before the holder's session would have ended.
    await holder.stop();
    const newcomer = await h.start({ name: 'newcomer', lock: 'none', kafka: KIP848 });
    expect(newcomer.status().groupId).toBe(g0);
    expect(newcomer.logger.matching(/refused/)).toEqual([]);
  });
});
