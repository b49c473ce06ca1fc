// engine.on(topic, handler, name | options): the options are checked when the handler is
// registered (before start), naming the option and the handler; a name alone still works.
import { InMemoryKafka } from '../testing/in-memory-kafka.js';
import { BroadcastOptionsError } from '../errors/broadcast-options.error.js';
import { BroadcastEngine } from './broadcast.engine.js';

const silent = { log: () => undefined, warn: () => undefined, error: () => undefined };

function engine() {
  return new BroadcastEngine(
    {
      kafka: { brokers: ['fake:9092'] },
      lock: false,
      heartbeat: false,
      telemetry: false,
      consumer: { sessionTimeoutMs: 6_000 },
    },
    { kafka: new InMemoryKafka().port(), logger: silent },
  );
}

describe('BroadcastEngine.on handler options', () => {
  it('accepts a name, options, or nothing', () => {
    const e = engine();
    expect(() =>
      e
        .on('a', () => undefined)
        .on('a', () => undefined, 'named')
        .on('a', () => undefined, {
          name: 'x',
          retry: { attempts: 3, backoffMs: 10 },
          timeoutMs: 5_999,
        }),
    ).not.toThrow();
  });

  it.each([
    [{ retry: { attempts: 0 } }, 'retry.attempts (handler evict)'],
    [{ timeoutMs: 6_000 }, 'timeoutMs (handler evict)'],
  ])('rejects %j naming "%s"', (options, option) => {
    const e = engine();
    let error: unknown;
    try {
      e.on('a', () => undefined, { name: 'evict', ...options });
    } catch (thrown) {
      error = thrown;
    }
    expect(error).toBeInstanceOf(BroadcastOptionsError);
    expect((error as BroadcastOptionsError).option).toBe(option);
  });
});
