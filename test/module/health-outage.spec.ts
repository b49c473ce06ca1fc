/**
 * BroadcastHealthIndicator across a broker outage, on a broker of this file's own (the shared
 * one must keep running), in both readiness modes at once (two apps, one outage):
 * - the default (health.outageGraceMs): readiness stays up through the outage and the recovery,
 *   its details naming the outage (Kafka away is away for the whole fleet: emptying the Service
 *   gains nothing);
 * - `health: { strict: true }`: readiness down while the broker is stopped, up again once it is
 *   back.
 * Liveness up throughout in both (a liveness probe that failed here would restart every instance
 * of the fleet at once, for an outage a restart cannot fix), and broadcasts flow again.
 */
import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Injectable, type INestApplication } from '@nestjs/common';
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
    it('default readiness stays up through the outage (naming it), strict readiness goes down and up again; liveness stays up; broadcasts then flow', async () => {
      const kafka = cluster!;
      const h = useNestHarness('health-outage', kafka.brokers, client);
      // The outage makes kafkajs and the engine log plenty; keep it for the failure report only.
      const logger = new CapturingLogger();
      onTestFailed(() => console.error(`--- app log ---\n${logger.dump()}`));
      const start = (health: { maxStalenessMs: number; strict?: boolean }) =>
        h.start(
          {
            imports: [
              postgresRoot(),
              TerminusModule,
              BroadcastModule.forRoot(h.options({ heartbeat: { intervalMs: 1_000 }, health })),
            ],
            providers: [Listener, BroadcastHealthIndicator],
          },
          { logger },
        );
      const graceful = probed(await start({ maxStalenessMs: 3_000 }));
      const strict = probed(await start({ maxStalenessMs: 3_000, strict: true }));
      const both = [graceful, strict];

      await waitFor(() => both.every((p) => p.check().status === 'up'), {
        timeoutMs: 20_000,
        message: 'health is up before the outage',
      });
      // Judged from the outage on (the checks before it waited for the first broadcast).
      for (const p of both) p.checks.length = 0;

      await kafka.stopNode(1);
      const stoppedAt = Date.now();
      // Strict readiness goes down; the default one rides the outage out, naming it.
      const [down] = await Promise.all([
        waitFor(
          () => {
            const result = strict.check();
            return result.status === 'down' ? result : undefined;
          },
          { timeoutMs: 90_000, intervalMs: 200, message: 'strict readiness goes down' },
        ),
        waitFor(() => graceful.check().outage !== undefined, {
          timeoutMs: 90_000,
          intervalMs: 200,
          message: 'default readiness names the outage',
        }),
      ]);
      expect(down.reason).toMatch(/^(newest broadcast is \d+ ms old|reader is recovering)/);

      await kafka.startNode(1);
      const startedAt = Date.now();
      // Back: both up, the default one with the outage over (ready and fresh again).
      await waitFor(
        () => both.map((p) => p.check()).every((r) => r.status === 'up' && r.outage === undefined),
        {
          timeoutMs: 90_000,
          intervalMs: 200,
          message: 'health is up again after the broker is back',
        },
      );
      for (const p of both) {
        expect(p.check()).toMatchObject({ state: 'ready', lockMode: 'postgres' });
        expect(p.indicator.isHealthy('broadcast').broadcast.status).toBe('up');
        expect(p.app.get(BroadcastReader).groupId).toBe(p.groupId);
      }

      // Alive at every check of both; the default readiness never down, the strict one down.
      expect(both.flatMap((p) => p.checks).filter((c) => c.alive !== 'up')).toEqual([]);
      expect(graceful.checks.filter((c) => c.ready === 'down')).toEqual([]);
      expect(strict.checks.filter((c) => c.ready === 'down').length).toBeGreaterThan(0);
      const outages = graceful.checks.flatMap((c) => (c.outageForMs === undefined ? [] : [c]));
      console.log(
        `HEALTH-OUTAGE ${JSON.stringify({
          client,
          outageMs: startedAt - stoppedAt,
          gracefulChecks: graceful.checks.length,
          gracefulDown: 0,
          gracefulLongestOutageForMs: Math.max(...outages.map((c) => c.outageForMs!)),
          strictDownMs: spanMs(strict.checks.filter((c) => c.ready === 'down')),
        })}`,
      );

      await graceful.app.get(BroadcastPublisher).publish('outage.events', { after: 'outage' });
      await waitFor(() => both.every((p) => p.app.get(Listener).payloads.length === 1), {
        timeoutMs: 30_000,
        message: 'a broadcast published after the outage is received by both',
      });
      for (const p of both) expect(p.app.get(Listener).payloads).toEqual([{ after: 'outage' }]);
    });
  },
);

interface Check {
  at: number;
  alive: string;
  ready: string;
  outageForMs?: number;
  /** Why readiness was down, and what the status said then. */
  reason?: string;
  state?: unknown;
  waitingFor?: unknown;
  kafkaUnansweredMs?: unknown;
}

/** An app's indicator, checked liveness and readiness side by side, every check recorded. */
function probed(app: INestApplication) {
  const indicator = app.get(BroadcastHealthIndicator);
  const checks: Check[] = [];
  return {
    app,
    indicator,
    checks,
    groupId: app.get(BroadcastReader).groupId,
    check() {
      const alive = indicator.isAlive('broadcast').broadcast.status;
      const result = indicator.isReady('broadcast').broadcast as Record<string, unknown> & {
        status: string;
        outage?: { forMs: number };
        reason?: string;
      };
      checks.push({
        at: Date.now(),
        alive,
        ready: result.status,
        outageForMs: result.outage?.forMs,
        ...(result.status === 'down' && {
          reason: result.reason,
          state: result.state,
          waitingFor: result.waitingFor,
          kafkaUnansweredMs: result.kafkaUnansweredMs,
        }),
      });
      return result;
    },
  };
}

/** From the first to the last of `checks`, in ms (0 for none). */
function spanMs(checks: Check[]): number {
  return checks.length === 0 ? 0 : checks.at(-1)!.at - checks[0]!.at;
}
