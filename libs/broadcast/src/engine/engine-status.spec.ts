// BroadcastStatus is assembled from the parts that own each field: the reader (state, group,
// what it waits for, a lasting problem), the allocator (the pool) and the dispatcher (counters).
import type { DispatchCounters } from '../core/dispatch/dispatch-counters.js';
import type { ReaderStatus } from '../core/reading/broadcast.reader.js';
import { engineStatus } from './engine-status.js';

const counters: DispatchCounters = {
  received: 7,
  heartbeats: 2,
  lastHeartbeatAt: 1,
  lastHeartbeatTimestamp: 1,
  newestTimestamp: undefined,
  failed: 1,
  skipped: 0,
  filtered: 3,
  invalid: 0,
  refused: 0,
  internalErrors: 0,
  retries: 0,
  exhausted: 1,
  retriesShed: 0,
  retriesPending: 0,
  deadLettered: 0,
  deadLetterFailures: 0,
  hookFailures: 0,
  passedOver: 4,
  rewinds: 5,
};

function reader(overrides: Partial<ReaderStatus>): ReaderStatus {
  return {
    state: 'ready',
    phase: 'ready',
    groupId: 'p.bc-0',
    lockId: 0,
    lockMode: 'postgres',
    waitingFor: undefined,
    problem: undefined,
    ...overrides,
  };
}

describe('engineStatus', () => {
  it('ready: the reader’s claim, every counter, no pool exhaustion, nothing waited for', () => {
    const status = engineStatus(
      reader({}),
      { exhausted: true, exhaustions: 2 },
      { ...counters, newestTimestamp: Date.now() - 50 },
    );
    expect(status).toMatchObject({
      state: 'ready',
      groupId: 'p.bc-0',
      lockId: 0,
      lockMode: 'postgres',
      poolExhausted: false,
      poolExhaustions: 2,
      received: 7,
      filtered: 3,
      passedOver: 4,
      rewinds: 5,
    });
    expect(status.lastLatencyMs).toBeGreaterThanOrEqual(50);
    expect(status).not.toHaveProperty('waitingFor');
    expect(status).not.toHaveProperty('problem');
    expect(status).not.toHaveProperty('lastHeartbeatAt');
  });

  it('not ready: what the reader waits for, its problem, the pool as the allocator saw it', () => {
    const status = engineStatus(
      reader({ state: 'recovering', waitingFor: 'pool', problem: 'no ACL' }),
      { exhausted: true, exhaustions: 3 },
      counters,
    );
    expect(status).toMatchObject({
      state: 'recovering',
      waitingFor: 'pool',
      problem: 'no ACL',
      poolExhausted: true,
      lastLatencyMs: undefined,
    });
  });
});
