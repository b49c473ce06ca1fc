// Bad handlers: one that never settles is cut off at handlerTimeoutMs and does not hold up the
// messages after it (not even when hung calls add up to more than the Kafka session timeout);
// one that throws synchronously is contained, counted, and the other handlers still run.
import type { Producer } from 'kafkajs';
import type { BroadcastHandler } from 'nestjs-kafka-broadcast';
import {
  connectedProducer,
  describe1,
  connectedAdmin,
  FAST_CONSUMER,
  publishJson,
  recordReliability,
  faultEngines,
} from '../support/faults/faults.js';
import type { EngineHarness } from '../support/engine/engine.js';
import { kafkaBrokers, testPrefix, waitFor } from '../support/broker/kafka.js';
import { clientScoped, kafkaClients } from '../support/broker/kafka-clients.js';

const TOPIC = 'work';
const HANDLER_TIMEOUT_MS = 1_000;
const brokers = kafkaBrokers();

interface Work {
  n: number;
  hang?: boolean;
  throws?: boolean;
  rejects?: boolean;
}

describe.each(kafkaClients())('bad handlers (%s client)', (client) => {
  let engines: EngineHarness | undefined;
  let producer: Producer | undefined;

  afterEach(async () => {
    await producer?.disconnect();
    producer = undefined;
    await engines?.cleanup();
    engines = undefined;
  });

  async function startOne(name: string) {
    const prefix = testPrefix(clientScoped(`faults-handlers-${name}`, client));
    engines = faultEngines(prefix, brokers, client);
    const calls = { hanger: [] as number[], thrower: [] as number[] };
    const hanger: BroadcastHandler<Work> = (work) => {
      calls.hanger.push(work.n);
      if (work.hang) return new Promise<void>(() => {}); // never settles
      if (work.rejects) return Promise.reject(new Error(`rejected ${work.n}`));
    };
    const thrower: BroadcastHandler<Work> = (work) => {
      calls.thrower.push(work.n);
      if (work.throws) throw new Error(`thrown synchronously by ${work.n}`);
    };
    const local = await engines.create({
      name,
      lock: 'postgres',
      topics: [TOPIC],
      options: { handlerTimeoutMs: HANDLER_TIMEOUT_MS },
      register: (engine) => {
        engine.on(TOPIC, hanger, 'hanger');
        engine.on(TOPIC, thrower, 'thrower');
      },
    });
    await engines.startEngine(local);
    producer = await connectedProducer(brokers);
    const arrivals = () =>
      local.messages.get(TOPIC)!.map((m) => ({ n: (m.message.payload as Work).n, at: m.at }));
    return { prefix, local, calls, arrivals };
  }

  it('contains a synchronous throw and a rejection; the other handlers still run', async () => {
    const { prefix, local, calls, arrivals } = await startOne('throw');
    const work: Work[] = [
      { n: 1 },
      { n: 2, throws: true },
      { n: 3, rejects: true },
      { n: 4, throws: true },
      { n: 5 },
    ];
    await publishJson(producer!, prefix + TOPIC, work);
    await waitFor(() => arrivals().length === work.length, {
      timeoutMs: 20_000,
      message: `collector got ${arrivals().length}`,
    });
    await waitFor(() => local.engine.reader.status().failed === 3, {
      timeoutMs: 5_000,
      message: 'failures not counted',
    });
    expect(arrivals().map((a) => a.n)).toEqual([1, 2, 3, 4, 5]);
    expect(calls.hanger).toEqual([1, 2, 3, 4, 5]);
    expect(calls.thrower).toEqual([1, 2, 3, 4, 5]);
    expect(local.engine.reader.status()).toMatchObject({
      state: 'ready',
      received: 5,
      failed: 3,
      skipped: 0,
    });
    expect(
      local.logger.matching(
        /Broadcast handler thrower failed on work\[0\]@\d+: thrown synchronously by 2/,
        'error',
      ),
    ).toHaveLength(1);
    expect(
      local.logger.matching(
        /Broadcast handler thrower failed on work\[0\]@\d+: thrown synchronously by 4/,
        'error',
      ),
    ).toHaveLength(1);
    expect(
      local.logger.matching(
        /Broadcast handler hanger failed on work\[0\]@\d+: rejected 3/,
        'error',
      ),
    ).toHaveLength(1);
    recordReliability({
      scenario: clientScoped('bad-handlers-throw', client),
      instances: 1,
      crashes: 0,
      sent: work.length,
      received: arrivals().length,
      lost: work.length - arrivals().length,
      failedCounted: local.engine.reader.status().failed,
      recoverMs: null,
    });
  });

  it('cuts a hung handler off at handlerTimeoutMs, without holding up later messages', async () => {
    const { prefix, local, calls, arrivals } = await startOne('hang');
    const work: Work[] = [{ n: 1, hang: true }, { n: 2 }, { n: 3, hang: true }, { n: 4 }, { n: 5 }];
    const sentAt = Date.now();
    await publishJson(producer!, prefix + TOPIC, work);
    await waitFor(() => arrivals().length === work.length, {
      timeoutMs: 20_000,
      message: `held up: collector got ${JSON.stringify(arrivals())}\n${engines!.dumpLogs()}`,
    });
    const [a1, a2, a3, a4, a5] = arrivals();
    expect(arrivals().map((a) => a.n)).toEqual([1, 2, 3, 4, 5]);
    // The collector runs alongside the hung call; the next message waits for the timeout only.
    const delay2 = a2!.at - a1!.at;
    const delay4 = a4!.at - a3!.at;
    expect(delay2).toBeGreaterThanOrEqual(HANDLER_TIMEOUT_MS - 50);
    expect(delay2).toBeLessThan(HANDLER_TIMEOUT_MS + 1_500);
    expect(delay4).toBeLessThan(HANDLER_TIMEOUT_MS + 1_500);
    expect(a5!.at - a4!.at).toBeLessThan(500);
    await waitFor(() => local.engine.reader.status().failed === 2, {
      timeoutMs: 5_000,
      message: 'timeouts not counted',
    });
    expect(
      local.logger.matching(
        new RegExp(`hanger failed on work\\[0\\]@\\d+: timed out after ${HANDLER_TIMEOUT_MS} ms`),
        'error',
      ),
    ).toHaveLength(2);
    expect(calls.thrower).toEqual([1, 2, 3, 4, 5]);
    recordReliability({
      scenario: clientScoped('bad-handlers-hang', client),
      instances: 1,
      crashes: 0,
      sent: work.length,
      received: arrivals().length,
      lost: work.length - arrivals().length,
      failedCounted: local.engine.reader.status().failed,
      handlerTimeoutMs: HANDLER_TIMEOUT_MS,
      delayAfterHungMs: Math.max(delay2, delay4),
      allDeliveredMs: a5!.at - sentAt,
      recoverMs: null,
    });
  });

  it('keeps its group and loses nothing when hung calls add up to more than the session timeout', async () => {
    const { prefix, local, arrivals } = await startOne('hang-long');
    const groupId = local.engine.reader.status().groupId!;
    const admin = await connectedAdmin(brokers);
    try {
      const member = (await describe1(admin, groupId)).memberIds;
      expect(member).toHaveLength(1);
      // 9 hung calls in a row: 9 s of handler time in one batch, against a 6 s session.
      const hung = Math.ceil((FAST_CONSUMER.sessionTimeoutMs * 1.5) / HANDLER_TIMEOUT_MS);
      const work: Work[] = [
        ...Array.from({ length: hung }, (_, i) => ({ n: i, hang: true })),
        { n: 100 },
        { n: 101 },
      ];
      const sentAt = Date.now();
      await publishJson(producer!, prefix + TOPIC, work);
      await waitFor(() => arrivals().some((a) => a.n === 101), {
        timeoutMs: 60_000,
        message: `not delivered: ${JSON.stringify(arrivals().map((a) => a.n))}\n${engines!.dumpLogs()}`,
      });
      const ns = arrivals().map((a) => a.n);
      const distinct = new Set(ns);
      for (const w of work) expect(distinct.has(w.n), `lost ${w.n}`).toBe(true);
      const status = local.engine.reader.status();
      expect(status.state).toBe('ready');
      expect(status.groupId).toBe(groupId);
      const after = await describe1(admin, groupId);
      // The same member throughout: heartbeats went on between the hung calls, so the session
      // never ran out, the group never rebalanced and nothing was read twice.
      expect(after.memberIds).toEqual(member);
      expect(ns).toEqual(work.map((w) => w.n));
      recordReliability({
        scenario: clientScoped('bad-handlers-hang-beyond-session', client),
        instances: 1,
        crashes: 0,
        sent: work.length,
        received: ns.length,
        duplicates: ns.length - distinct.size,
        lost: work.filter((w) => !distinct.has(w.n)).length,
        hungCalls: hung,
        sessionTimeoutMs: FAST_CONSUMER.sessionTimeoutMs,
        sameMember: after.memberIds[0] === member[0],
        allDeliveredMs: Date.now() - sentAt,
        groupsBefore: 1,
        groupsAfter: 1,
        recoverMs: null,
      });
    } finally {
      await admin.disconnect();
    }
  });
});
