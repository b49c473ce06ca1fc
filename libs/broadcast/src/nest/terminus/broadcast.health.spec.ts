import { HealthIndicatorService } from '@nestjs/terminus';
import { BroadcastHealthIndicator } from './broadcast.health.js';
import type { BroadcastEngine } from '../../engine/broadcast.engine.js';
import type { BroadcastStatus } from '../../interfaces/broadcast-status.interface.js';

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

interface FakeEngine {
  /** What reader.status() returns next (READY overridden by these fields). */
  status: Partial<BroadcastStatus>;
  /** Settles reader.whenReady(). */
  ready: { resolve: () => void; reject: (error: Error) => void };
}

/** The indicator over an engine that reports `status`; only what the indicator reads. */
function indicatorFor(
  status: Partial<BroadcastStatus>,
  options: { heartbeat?: false; maxUnreadyMs?: number; outageGraceMs?: number } = {},
) {
  const fake = { status } as FakeEngine;
  const whenReady = new Promise<void>((resolve, reject) => (fake.ready = { resolve, reject }));
  const engine = {
    reader: { status: () => ({ ...READY, ...fake.status }), whenReady: () => whenReady },
    options: {
      maxStalenessMs: 1_000,
      maxGroups: 3,
      heartbeat: options.heartbeat ?? { intervalMs: 500 },
      maxUnreadyMs: options.maxUnreadyMs,
      outageGraceMs: options.outageGraceMs,
    },
  } as unknown as BroadcastEngine;
  return Object.assign(new BroadcastHealthIndicator(new HealthIndicatorService(), engine), {
    fake,
  });
}

describe('BroadcastHealthIndicator readiness (isReady, and isHealthy alike)', () => {
  it('is up while ready and fresh', () => {
    expect(indicatorFor({}).isHealthy().broadcast.status).toBe('up');
  });

  it('names the problem (a missing ACL) in the down reason, not only the state', () => {
    const problem = 'Kafka denied READ on topic "p.t": the principal lacks the READ ACL';
    const result = indicatorFor({ state: 'recovering', problem }).isHealthy().broadcast;
    expect(result).toMatchObject({ status: 'down', reason: `reader is recovering: ${problem}` });
  });

  it('names maxGroups when the pool is exhausted, and the wait in its details', () => {
    const result = indicatorFor({ state: 'starting', poolExhausted: true }).isHealthy().broadcast;
    expect(result).toMatchObject({
      status: 'down',
      reason: expect.stringMatching(/maxGroups/),
      waitingFor: 'pool',
    });
  });

  it.each([
    ['kafka', 'reader is starting: waiting for Kafka to answer (kafka.brokers)'],
    ['group', 'reader is starting: joining its consumer group'],
  ] as const)('names what the reader waits for (%s)', (waitingFor, reason) => {
    const result = indicatorFor({ state: 'starting', waitingFor }).isReady().broadcast;
    expect(result).toMatchObject({ status: 'down', reason, waitingFor });
  });

  it('names a problem before the wait it causes', () => {
    const problem = 'Kafka denied READ on topic "p.t": the principal lacks the READ ACL';
    const result = indicatorFor({ state: 'recovering', problem, waitingFor: 'group' }).isReady()
      .broadcast;
    expect(result).toMatchObject({ status: 'down', reason: `reader is recovering: ${problem}` });
  });

  it('is down when the newest broadcast is older than maxStalenessMs', () => {
    const result = indicatorFor({ lastLatencyMs: 5_000 }).isHealthy().broadcast;
    expect(result).toMatchObject({ status: 'down', reason: 'newest broadcast is 5000 ms old' });
  });
});

describe('BroadcastHealthIndicator readiness through a Kafka outage (health.outageGraceMs)', () => {
  it('stays up while Kafka is away after it was ready, naming the wait in `outage`', () => {
    const indicator = indicatorFor({}, { outageGraceMs: 60_000 });
    expect(indicator.isReady().broadcast.status).toBe('up');
    indicator.fake.status = { lastLatencyMs: 5_000, kafkaUnansweredMs: 2_000 };
    expect(indicator.isReady().broadcast).toMatchObject({
      status: 'up',
      outage: { graceMs: 60_000, reason: 'newest broadcast is 5000 ms old' },
    });
    indicator.fake.status = { state: 'recovering', waitingFor: 'kafka' };
    expect(indicator.isReady().broadcast).toMatchObject({
      status: 'up',
      waitingFor: 'kafka',
      outage: { reason: 'reader is recovering: waiting for Kafka to answer (kafka.brokers)' },
    });
  });

  it('is down when it falls behind while Kafka acknowledges its heartbeats', () => {
    const indicator = indicatorFor({}, { outageGraceMs: 60_000 });
    indicator.isReady();
    indicator.fake.status = { lastLatencyMs: 5_000 };
    expect(indicator.isReady().broadcast).toMatchObject({
      status: 'down',
      reason: 'newest broadcast is 5000 ms old',
    });
  });

  it('is down at once with health.strict (no grace in the options)', () => {
    const indicator = indicatorFor({});
    indicator.isReady();
    indicator.fake.status = { lastLatencyMs: 5_000, kafkaUnansweredMs: 2_000 };
    expect(indicator.isReady().broadcast).toMatchObject({ status: 'down' });
  });
});

describe('BroadcastHealthIndicator readiness without heartbeats', () => {
  it('is up once ready, with no broadcast ever received', () => {
    const indicator = indicatorFor({ lastLatencyMs: undefined }, { heartbeat: false });
    const result = indicator.isReady().broadcast;
    expect(result).toMatchObject({ status: 'up', state: 'ready' });
    expect(result).not.toHaveProperty('maxStalenessMs');
    expect(indicator.isHealthy().broadcast.status).toBe('up');
  });

  it('stays up however old the newest broadcast is', () => {
    expect(
      indicatorFor({ lastLatencyMs: 3_600_000 }, { heartbeat: false }).isReady().broadcast,
    ).toMatchObject({ status: 'up', lastLatencyMs: 3_600_000 });
  });

  it('is down while not ready', () => {
    const result = indicatorFor({ state: 'recovering' }, { heartbeat: false }).isReady().broadcast;
    expect(result).toMatchObject({ status: 'down', reason: 'reader is recovering' });
  });
});

describe('BroadcastHealthIndicator liveness (isAlive)', () => {
  afterEach(() => vi.useRealTimers());

  it.each(['starting', 'ready', 'recovering'] as const)('is up while %s', (state) => {
    expect(indicatorFor({ state }).isAlive().broadcast).toMatchObject({ status: 'up', state });
  });

  it('is up while waiting for a pool id, saying so', () => {
    expect(
      indicatorFor({ state: 'starting', poolExhausted: true }).isAlive().broadcast,
    ).toMatchObject({ status: 'up', state: 'starting', waitingFor: 'pool' });
  });

  it('is up while recovering with a problem, stale, or with the pool exhausted: readiness says so', () => {
    const problem = 'Kafka denied READ on topic "p.t"';
    const indicator = indicatorFor({ state: 'recovering', problem, lastLatencyMs: 60_000 });
    expect(indicator.isAlive('k').k).toMatchObject({ status: 'up', problem });
    indicator.fake.status = { state: 'starting', poolExhausted: true };
    expect(indicator.isAlive('k').k.status).toBe('up');
    expect(indicator.isReady('k').k.status).toBe('down');
  });

  it('is down once stopped', () => {
    expect(indicatorFor({ state: 'stopped' }).isAlive().broadcast).toMatchObject({
      status: 'down',
      reason: 'the broadcast engine is stopped',
    });
  });

  it('is down once startup failed for good', async () => {
    const indicator = indicatorFor({ state: 'starting' });
    indicator.fake.ready.reject(new Error('Could not allocate a broadcast consumer group'));
    await Promise.resolve();
    await Promise.resolve();
    expect(indicator.isAlive().broadcast).toMatchObject({
      status: 'down',
      reason: 'the broadcast engine failed to start: Could not allocate a broadcast consumer group',
    });
  });

  it('with health.maxUnreadyMs: down once not ready for longer, counted from the first check that saw it', () => {
    vi.useFakeTimers({ now: 0 });
    const indicator = indicatorFor({ state: 'ready' }, { maxUnreadyMs: 30_000 });
    expect(indicator.isAlive().broadcast).toMatchObject({ status: 'up', maxUnreadyMs: 30_000 });
    vi.setSystemTime(10_000);
    indicator.fake.status = { state: 'recovering' };
    expect(indicator.isAlive().broadcast).toMatchObject({ status: 'up', unreadyForMs: 0 });
    vi.setSystemTime(40_000);
    expect(indicator.isAlive().broadcast).toMatchObject({ status: 'up', unreadyForMs: 30_000 });
    vi.setSystemTime(40_001);
    expect(indicator.isAlive().broadcast).toMatchObject({
      status: 'down',
      reason: 'reader has been recovering for 30001 ms (health.maxUnreadyMs 30000)',
    });
    // Ready again: the clock starts over.
    indicator.fake.status = { state: 'ready' };
    expect(indicator.isAlive().broadcast.status).toBe('up');
    indicator.fake.status = { state: 'recovering' };
    vi.setSystemTime(50_000);
    expect(indicator.isAlive().broadcast).toMatchObject({ status: 'up', unreadyForMs: 0 });
  });

  it('without health.maxUnreadyMs: up however long it recovers', () => {
    vi.useFakeTimers({ now: 0 });
    const indicator = indicatorFor({ state: 'recovering' });
    vi.setSystemTime(24 * 3_600_000);
    expect(indicator.isAlive().broadcast).toMatchObject({ status: 'up', unreadyForMs: 86_400_000 });
  });
});
