import { record } from '../../../../test/support/fake-kafka-port.js';
import { BroadcastHandlerRegistry } from './broadcast-handler.registry.js';
import { BroadcastDispatcher } from './broadcast.dispatcher.js';
import { ReadPositions } from './read-positions.js';

const HOUR_MS = 3_600_000;
const silent = { log: () => undefined, warn: () => undefined, error: () => undefined };

function dispatcher() {
  const positions = new ReadPositions();
  const registry = new BroadcastHandlerRegistry();
  registry.add('t', () => undefined);
  const settings = { topicPrefix: 'p.', heartbeatTopic: 'hb', handlerTimeoutMs: 100 };
  return { d: new BroadcastDispatcher(registry, settings, silent, positions), positions };
}

describe('BroadcastDispatcher freshness under clock skew', () => {
  it('clamps a record stamped in the future to the receive time', () => {
    const { d } = dispatcher();
    const before = Date.now();
    void d.sink('p.t', 0, record(0, {}, before + HOUR_MS));
    expect(d.newestTimestamp!).toBeGreaterThanOrEqual(before);
    expect(d.newestTimestamp!).toBeLessThanOrEqual(Date.now());
  });

  it('a record stamped in the past does not move freshness back, nor forward', () => {
    const { d } = dispatcher();
    const now = Date.now();
    void d.sink('p.t', 0, record(0, {}, now - 10));
    void d.sink('p.hb', 0, record(0, {}, now - HOUR_MS));
    expect(d.newestTimestamp).toBe(now - 10);
    expect(d.heartbeats).toBe(1);
  });

  it('advances the read positions of every record handed over', () => {
    const { d, positions } = dispatcher();
    void d.sink('p.t', 2, record(41, {}));
    expect(positions.positionOf('p.t', 2)).toBe('42');
  });
});
