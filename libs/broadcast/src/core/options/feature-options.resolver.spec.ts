import { BroadcastOptionsError } from '../../errors/broadcast-options.error.js';
import type { BroadcastModuleOptions } from '../../interfaces/broadcast-module-options.interface.js';
import { resolveFeatureOptions } from './feature-options.resolver.js';

const base: BroadcastModuleOptions = { kafka: { brokers: ['b:1'] } };
const resolve = (extra: Record<string, unknown>) =>
  resolveFeatureOptions({ ...base, ...extra } as BroadcastModuleOptions);

describe('resolveFeatureOptions', () => {
  it('defaults: roster every 3 s, receipts on their own topic, no replay', () => {
    expect(resolve({})).toEqual({
      roster: { intervalMs: 3_000 },
      receipts: { topic: 'broadcast.receipts.v1' },
      replay: new Map(),
      telemetry: { traces: true, metrics: true },
    });
  });

  it('keeps valid values', () => {
    expect(
      resolve({
        roster: { intervalMs: 0 },
        receipts: { topic: 'acks' },
        replay: { a: 1, b: 60_000 },
      }),
    ).toEqual({
      roster: { intervalMs: 0 },
      receipts: { topic: 'acks' },
      replay: new Map([
        ['a', 1],
        ['b', 60_000],
      ]),
      telemetry: { traces: true, metrics: true },
    });
    expect(resolve({ receipts: false }).receipts).toBe(false);
    expect(resolve({ telemetry: false }).telemetry).toEqual({ traces: false, metrics: false });
    expect(resolve({ telemetry: { traces: false } }).telemetry).toEqual({
      traces: false,
      metrics: true,
    });
    expect(resolve({ telemetry: { metrics: false } }).telemetry).toEqual({
      traces: true,
      metrics: false,
    });
  });

  it.each<[string, Record<string, unknown>, RegExp]>([
    ['roster', { roster: 5 }, /"roster"/],
    ['roster.intervalMs', { roster: { intervalMs: -1 } }, /"roster.intervalMs".*integer ≥ 0/],
    ['roster.intervalMs', { roster: { intervalMs: 1.5 } }, /"roster.intervalMs"/],
    ['receipts', { receipts: true }, /"receipts".*or false/],
    ['telemetry', { telemetry: true }, /"telemetry".*or false/],
    ['telemetry.traces', { telemetry: { traces: 'no' } }, /"telemetry.traces".*true or false/],
    ['telemetry.metrics', { telemetry: { metrics: 0 } }, /"telemetry.metrics".*true or false/],
    ['receipts.topic', { receipts: { topic: 'a b' } }, /"receipts.topic"/],
    ['replay', { replay: 'x' }, /"replay"/],
    ['replay window', { replay: { x: 0 } }, /"replay\["x"\]"/],
    ['replay topic', { replay: { 'a b': 5 } }, /replay\["a b"\] \(topic\)/],
  ])('rejects a bad %s, naming it', (_name, extra, message) => {
    expect(() => resolve(extra)).toThrow(BroadcastOptionsError);
    expect(() => resolve(extra)).toThrow(message);
  });
});
