/**
 * BroadcastHealthIndicator across a broker outage, on a broker of this file's own (the shared
 * one must keep running): readiness up, down while the broker is stopped, up again once it is
 * back, and broadcasts flow again; liveness up throughout (a liveness probe that failed here
 * would restart every instance of the fleet at once, for an outage a restart cannot fix).
 */
import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Injectable } from '@nestjs/common';
import { TerminusModule } from '@nestjs/terminus';
import { onTestFailed } from 'vitest';
import {
  BroadcastModule,
  BroadcastPublisher,
  BroadcastReader,
  OnBroadcast,
} from 'nestjs-kafka-broadcast';
import { BroadcastHealthIndicator } from 'nestjs-kafka-broadcast/terminus';
import { startCluster, type KafkaCluster } from '../../scripts/kafka-cluster.mjs';
import { kafkaClients } from '../support/broker/kafka-clients.js';
import { waitFor } from '../support/broker/kafka.js';
import { CapturingLogger, postgresRoot, useNestHarness } from '../support/nest/nest.js';

@Injectable()
class Listener {
  readonly payloads: unknown[] = [];

  @OnBroadcast('outage.events')
  onEvent(payload: unknown) {
    this.payloads.push(payload);
  }
}

// One private broker for both clients' runs (each run stops and restarts it).
let cluster: KafkaCluster | undefined;

beforeAll(async () => {
  cluster = await startCluster({
    nodes: 1,
    dir: await mkdtemp(join(tmpdir(), 'nest-health-kafka-')),
    quiet: true,
  });
});

afterAll(async () => {
  await cluster?.stop();
});

describe.each(kafkaClients())(
  'BroadcastHealthIndicator across a broker outage, %s client',
  (client) => {
    it('readiness goes down when the broker stops and up again after it is back, liveness stays up; broadcasts then flow', async () => {
      const kafka = cluster!;
      const h = useNestHarness('health-outage', kafka.brokers, client);
      // The outage makes kafkajs and the engine log plenty; keep it for the failure report only.
      const logger = new CapturingLogger();
      onTestFailed(() => console.error(`--- app log ---\n${logger.dump()}`));
      const app = await h.start(
        {
          imports: [
            postgresRoot(),
            TerminusModule,
            BroadcastModule.forRoot(
              h.options({
                heartbeat: { intervalMs: 1_000 },
                health: { maxStalenessMs: 3_000 },
              }),
            ),
          ],
          providers: [Listener, BroadcastHealthIndicator],
        },
        { logger },
      );
      const indicator = app.get(BroadcastHealthIndicator);
      // Every check: liveness and readiness side by side.
      const checks: { alive: string; ready: string }[] = [];
      const health = () => {
        const alive = indicator.isAlive('broadcast').broadcast.status;
        const result = indicator.isReady('broadcast').broadcast;
        checks.push({ alive, ready: result.status });
        return result;
      };
      const groupId = app.get(BroadcastReader).groupId;

      await waitFor(() => health().status === 'up', {
        timeoutMs: 20_000,
        message: 'health is up before the outage',
      });

      await kafka.stopNode(1);
      const down = await waitFor(
        () => {
          const result = health();
          return result.status === 'down' ? result : undefined;
        },
        {
          timeoutMs: 90_000,
          intervalMs: 200,
          message: 'health goes down while the broker is stopped',
        },
      );
      expect(down.reason).toMatch(/^(newest broadcast is \d+ ms old|reader is recovering)$/);

      await kafka.startNode(1);
      const up = await waitFor(
        () => {
          const result = health();
          return result.status === 'up' ? result : undefined;
        },
        {
          timeoutMs: 90_000,
          intervalMs: 200,
          message: 'health is up again after the broker is back',
        },
      );
      expect(up).toMatchObject({ state: 'ready', lockMode: 'postgres', groupId });
      expect(indicator.isHealthy('broadcast').broadcast.status).toBe('up');

      // Alive at every check, those that found it not ready during the outage included.
      expect(checks.filter((c) => c.alive !== 'up')).toEqual([]);
      expect(checks.filter((c) => c.ready === 'down').length).toBeGreaterThan(0);

      await app.get(BroadcastPublisher).publish('outage.events', { after: 'outage' });
      await waitFor(() => app.get(Listener).payloads.length === 1, {
        timeoutMs: 30_000,
        message: 'a broadcast published after the outage is received',
      });
      expect(app.get(Listener).payloads).toEqual([{ after: 'outage' }]);
    });
  },
);
