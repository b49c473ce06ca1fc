import { HealthIndicatorService } from '@nestjs/terminus';
import { BroadcastHealthIndicator } from './broadcast.health.js';
import type { BroadcastEngine } from './engine/broadcast.engine.js';
import type { BroadcastStatus } from './interfaces/broadcast-status.interface.js';

const READY: BroadcastStatus = {
  state: 'ready',
  groupId: 'p.broadcastConsumer-0',
  lockId: 0,
  lockMode: 'postgres',
  lastLatencyMs: 10,
  received: 1,
  heartbeats: 1,
  failed: 0,
  retries: 0,
  exhausted: 0,
  retriesShed: 0,
  retriesPending: 0,
  deadLettered: 0,
  deadLetterFailures: 0,
  hookFailures: 0,
  skipped: 0,
  filtered: 0,
  invalid: 0,
  refused: 0,
  internalErrors: 0,
  passedOver: 0,
  rewinds: 0,
  poolExhausted: false,
  poolExhaustions: 0,
};

/** The indicator over an engine that reports `status`; only what the indicator reads. */
function indicatorFor(status: Partial<BroadcastStatus>) {
  const engine = {
    reader: { status: () => ({ ...READY, ...status }) },
    options: { maxStalenessMs: 1_000, maxGroups: 3 },
  } as unknown as BroadcastEngine;
  return new BroadcastHealthIndicator(new HealthIndicatorService(), engine);
}

describe('BroadcastHealthIndicator', () => {
  it('is up while ready and fresh', () => {
    expect(indicatorFor({}).isHealthy().broadcast.status).toBe('up');
  });

  it('names the problem (a missing ACL) in the down reason, not only the state', () => {
    const problem = 'Kafka denied READ on topic "p.t": the principal lacks the READ ACL';
    const result = indicatorFor({ state: 'recovering', problem }).isHealthy().broadcast;
    expect(result).toMatchObject({ status: 'down', reason: `reader is recovering: ${problem}` });
  });

  it('names maxGroups when the pool is exhausted', () => {
    const result = indicatorFor({ state: 'starting', poolExhausted: true }).isHealthy().broadcast;
    expect(result).toMatchObject({ status: 'down', reason: expect.stringMatching(/maxGroups/) });
  });

  it('is down when the newest broadcast is older than maxStalenessMs', () => {
    const result = indicatorFor({ lastLatencyMs: 5_000 }).isHealthy().broadcast;
    expect(result).toMatchObject({ status: 'down', reason: 'newest broadcast is 5000 ms old' });
  });
});
