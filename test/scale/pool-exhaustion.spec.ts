/**
 * Pool exhaustion on the real broker with PostgreSQL locks: with maxGroups 3 and 4 instances,
 * the 4th says why it is not ready (an error and a health reason naming maxGroups, a status
 * flag and a counter), keeps retrying, and becomes ready once one of the three stops.
 */
import { HealthIndicatorService } from '@nestjs/terminus';
import { BroadcastAllocationError } from 'nestjs-kafka-broadcast';
import { BroadcastHealthIndicator } from '../../libs/broadcast/src/nest/terminus/broadcast.health.js';
import { useEngineHarness, type TestEngine } from '../support/engine/engine.js';
import { waitFor } from '../support/broker/kafka.js';
import { kafkaClients } from '../support/broker/kafka-clients.js';

const MAX_GROUPS = 3;
const TOPIC = 'news';

function health(e: TestEngine) {
  return new BroadcastHealthIndicator(new HealthIndicatorService(), e.engine).isHealthy().broadcast;
}

describe.each(kafkaClients())(
  'Scale (%s client): every id of the pool held (maxGroups 3, 4 instances, PostgreSQL locks)',
  (client) => {
    it('the 4th is down naming maxGroups, keeps retrying, and is ready once an id frees', async () => {
      const h = useEngineHarness('scale-pool', { maxGroups: MAX_GROUPS, heartbeat: false }, client);
      const three = await h.startMany(MAX_GROUPS, { lock: 'postgres', topics: [TOPIC] });
      expect(three.map((e) => e.status().lockId).sort()).toEqual([0, 1, 2]);

      const fourth = await h.create({
        lock: 'postgres',
        topics: [TOPIC],
        name: 'fourth',
        options: { waitForReady: false },
      });
      await fourth.engine.start();
      await waitFor(() => fourth.status().poolExhaustions >= 2, {
        timeoutMs: 30_000,
        message: 'the 4th never reported the pool exhausted twice',
      });
      expect(fourth.status()).toMatchObject({ state: 'starting', poolExhausted: true });
      expect(fourth.status().lockId).toBeUndefined();
      const down = health(fourth);
      expect(down).toMatchObject({ status: 'down', poolExhausted: true });
      expect('reason' in down && down.reason).toContain(`maxGroups ${MAX_GROUPS}`);
      expect(fourth.logger.matching(/maxGroups 3/, 'warn').length).toBeGreaterThanOrEqual(1);
      // The three that hold the pool are unaffected.
      for (const e of three)
        expect(e.status()).toMatchObject({ state: 'ready', poolExhausted: false });

      // One instance leaves: the 4th takes its id and reads broadcasts.
      const leaving = three.find((e) => e.status().lockId === 1)!;
      await h.stopEngine(leaving);
      await waitFor(() => fourth.status().state === 'ready', {
        timeoutMs: 30_000,
        message: 'the 4th did not become ready after an id was freed',
      });
      expect(fourth.status()).toMatchObject({ lockId: 1, poolExhausted: false });
      const sender = three.find((e) => e !== leaving)!;
      await sender.engine.publisher.publish(TOPIC, { n: 1 });
      await waitFor(() => fourth.payloads(TOPIC).length === 1, {
        message: 'the 4th did not receive a broadcast after recovering',
      });
    });

    it('with waitForReady, start() rejects with an error that names maxGroups', async () => {
      const h = useEngineHarness(
        'scale-pool-fail',
        { maxGroups: MAX_GROUPS, heartbeat: false },
        client,
      );
      await h.startMany(MAX_GROUPS, { lock: 'postgres', topics: [TOPIC] });
      const fourth = await h.create({
        lock: 'postgres',
        topics: [TOPIC],
        name: 'fourth',
        options: { startupTimeoutMs: 3_000 },
      });
      const failure = await fourth.engine.start().then(
        () => undefined,
        (error: unknown) => error,
      );
      expect(failure).toBeInstanceOf(BroadcastAllocationError);
      expect((failure as BroadcastAllocationError).exhaustedMaxGroups).toBe(MAX_GROUPS);
      expect((failure as Error).message).toMatch(/pool exhausted.*maxGroups 3/);
      expect(fourth.status().lockId).toBeUndefined();
    });
  },
);
