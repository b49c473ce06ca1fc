// A dead-letter topic that the engine also reads would broadcast every final failure to every
// instance, where the same handler fails again and dead-letters it again: a loop that multiplies
// with the fleet. The engine refuses such a topic at startup, naming deadLetter.topic.
import { InMemoryManualPort } from '../testing/in-memory-manual-control.js';
import { BroadcastOptionsError } from '../errors/broadcast-options.error.js';
import type { BroadcastModuleOptions } from '../interfaces/broadcast-module-options.interface.js';
import { BroadcastEngine } from './broadcast.engine.js';

const silent = { log: () => undefined, warn: () => undefined, error: () => undefined };

function engine(options: Partial<BroadcastModuleOptions>, kafka = new InMemoryManualPort()) {
  return new BroadcastEngine(
    {
      kafka: { brokers: ['fake:9092'] },
      lock: false,
      heartbeat: false,
      telemetry: false,
      ...options,
    },
    { kafka, logger: silent },
  );
}

async function startError(e: BroadcastEngine): Promise<unknown> {
  try {
    await e.start();
  } catch (error) {
    return error;
  } finally {
    await e.stop();
  }
  return undefined;
}

describe('BroadcastEngine dead-letter topic', () => {
  it('refuses a dead-letter topic a handler reads, before it connects', async () => {
    const kafka = new InMemoryManualPort();
    const e = engine({ deadLetter: { topic: 'cache.evict' } }, kafka);
    e.on('cache.evict', () => undefined, 'evict');
    const error = await startError(e);
    expect(error).toBeInstanceOf(BroadcastOptionsError);
    expect((error as BroadcastOptionsError).option).toBe('deadLetter.topic');
    expect((error as Error).message).toContain('cache.evict');
    expect(kafka.consumers).toHaveLength(0);
  });

  it.each([
    ['the heartbeat topic', { heartbeat: { topic: 'hb' } }, 'hb'],
    ['the receipts topic', { receipts: { topic: 'acks' } }, 'acks'],
  ])('refuses %s as the dead-letter topic', async (_, options, topic) => {
    const e = engine({ ...options, deadLetter: { topic } });
    e.on('cache.evict', () => undefined, 'evict');
    const error = await startError(e);
    expect((error as BroadcastOptionsError).option).toBe('deadLetter.topic');
  });

  it('accepts a topic no handler reads', async () => {
    const e = engine({ deadLetter: { topic: 'cache.evict.dlq' } });
    e.on('cache.evict', () => undefined, 'evict');
    await expect(startError(e)).resolves.toBeUndefined();
  });
});
