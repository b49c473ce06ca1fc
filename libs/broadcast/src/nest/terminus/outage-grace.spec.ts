import type { BroadcastStatus } from '../../interfaces/broadcast-status.interface.js';
import { OutageGrace, UNANSWERED_MS } from './outage-grace.js';

const READY = { state: 'ready', poolExhausted: false } as BroadcastStatus;
const status = (fields: Partial<BroadcastStatus>) => ({ ...READY, ...fields }) as BroadcastStatus;
const STALE = 'newest broadcast is 5000 ms old';

/** A grace of 10 s whose instance was ready and fresh at t = 0. */
function served(): OutageGrace {
  const grace = new OutageGrace(10_000);
  expect(grace.judge(READY, undefined, true, 0)).toEqual({ kind: 'none' });
  return grace;
}

describe('OutageGrace (readiness through a Kafka outage)', () => {
  it('rides out a stale view while its own heartbeats go unacknowledged, up to the grace', () => {
    const grace = served();
    const away = status({ lastLatencyMs: 5_000, kafkaUnansweredMs: UNANSWERED_MS });
    expect(grace.judge(away, STALE, false, 1_000)).toEqual({
      kind: 'riding',
      outage: { since: 1_000, forMs: 0, graceMs: 10_000, reason: STALE },
    });
    expect(grace.judge(away, STALE, false, 11_000)).toMatchObject({ kind: 'riding' });
    expect(grace.judge(away, STALE, false, 11_001)).toMatchObject({
      kind: 'expired',
      outage: { forMs: 10_001 },
    });
  });

  it('does not ride out a stale view whose heartbeats Kafka acknowledges (it fell behind)', () => {
    const grace = served();
    expect(grace.judge(status({ lastLatencyMs: 5_000 }), STALE, false, 1_000)).toEqual({
      kind: 'none',
    });
    const justSent = status({ lastLatencyMs: 5_000, kafkaUnansweredMs: UNANSWERED_MS - 1 });
    expect(grace.judge(justSent, STALE, false, 1_000)).toEqual({ kind: 'none' });
  });

  it('rides the recovery out: a wait for Kafka, then the rejoin, until ready and fresh', () => {
    const grace = served();
    const waiting = status({ state: 'recovering', waitingFor: 'kafka' });
    expect(grace.judge(waiting, 'reader is recovering', false, 1_000)).toMatchObject({
      kind: 'riding',
    });
    // Kafka answers again (the heartbeat is acknowledged): the rejoin is part of the episode.
    const rejoining = status({ state: 'recovering', waitingFor: 'group' });
    expect(grace.judge(rejoining, 'reader is recovering', false, 4_000)).toMatchObject({
      kind: 'riding',
      outage: { since: 1_000, forMs: 3_000 },
    });
    expect(grace.judge(READY, undefined, true, 5_000)).toEqual({ kind: 'none' });
    // The episode ended: a rejoin whose view turned stale with no sign of an outage is down.
    expect(grace.judge(rejoining, 'reader is recovering', false, 6_000)).toEqual({ kind: 'none' });
  });

  it('rides out a rejoin while the view is fresh (an outage the heartbeat has not told yet)', () => {
    const grace = served();
    const rejoining = status({ state: 'recovering', waitingFor: 'group', lastLatencyMs: 500 });
    expect(grace.judge(rejoining, 'reader is recovering', true, 1_000)).toMatchObject({
      kind: 'riding',
    });
    // Stale now, and Kafka acknowledges the heartbeats: not an outage, it leaves rotation.
    expect(grace.judge(rejoining, 'reader is recovering', false, 3_000)).toEqual({ kind: 'none' });
    // Its heartbeat goes unanswered: the same episode goes on.
    const away = status({ state: 'recovering', waitingFor: 'group', kafkaUnansweredMs: 1_500 });
    expect(grace.judge(away, 'reader is recovering', false, 4_000)).toMatchObject({
      kind: 'riding',
      outage: { since: 1_000 },
    });
  });

  it('never rides out a first start, a problem or a pool with every id taken', () => {
    const starting = new OutageGrace(10_000);
    const waiting = status({ state: 'starting', waitingFor: 'kafka' });
    expect(starting.judge(waiting, 'reader is starting', true, 0)).toEqual({ kind: 'none' });
    const grace = served();
    const problem = status({ state: 'recovering', waitingFor: 'kafka', problem: 'no READ ACL' });
    expect(grace.judge(problem, 'reader is recovering: no READ ACL', true, 1_000)).toEqual({
      kind: 'none',
    });
    const pool = status({ state: 'recovering', waitingFor: 'pool', poolExhausted: true });
    expect(grace.judge(pool, 'pool exhausted', true, 1_000)).toEqual({ kind: 'none' });
  });
});
