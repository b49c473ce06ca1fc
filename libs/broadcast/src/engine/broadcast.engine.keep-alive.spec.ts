// While start() is pending the engine holds one ref'd timer, so a process whose only work is
// start() lives until start() settles and can report its failure (its own waits use unref'd
// timers, which keep nothing alive). Released when start() resolves, rejects, or stop() cancels it.
import { InMemoryKafka } from '../testing/in-memory-kafka.js';
import type { InMemoryKafkaPort } from '../testing/in-memory-kafka.port.js';
import { BroadcastOptionsError } from '../errors/broadcast-options.error.js';
import { BroadcastStoppedError } from '../errors/broadcast-stopped.error.js';
import { BroadcastEngine } from './broadcast.engine.js';

const silent = { log: () => undefined, warn: () => undefined, error: () => undefined };
/** The timers keeping this process alive (unref'd ones are not listed). */
const refTimers = () => process.getActiveResourcesInfo().filter((r) => r === 'Timeout').length;

function engine(kafka: InMemoryKafkaPort, deadLetter?: { topic: string }) {
  const e = new BroadcastEngine(
    {
      kafka: { brokers: ['fake:9092'] },
      lock: false,
      heartbeat: false,
      telemetry: false,
      roster: { intervalMs: 0 },
      ...(deadLetter && { deadLetter }),
    },
    { kafka, logger: silent },
  );
  return e.on('news', () => undefined);
}

/** A port whose topic check waits until the engine stops (a broker not answering yet). */
function hangingPort() {
  const kafka = new InMemoryKafka().port();
  let entered!: () => void;
  const waiting = new Promise<void>((resolve) => (entered = resolve));
  kafka.admin.ensureTopics = (_topics, signal) => {
    entered();
    return new Promise((resolve) => signal?.addEventListener('abort', () => resolve()));
  };
  return { kafka, waiting };
}

describe('BroadcastEngine keeps the process alive while start() is pending', () => {
  it('holds one ref’d timer until stop() cancels start(), which rejects with BroadcastStoppedError', async () => {
    const before = refTimers();
    const { kafka, waiting } = hangingPort();
    const e = engine(kafka);
    const starting = e.start().catch((error: unknown) => error);
    await waiting;
    expect(refTimers()).toBe(before + 1);
    await e.stop();
    const outcome = await starting;
    expect(outcome).toBeInstanceOf(BroadcastStoppedError);
    expect((outcome as Error).name).toBe('BroadcastStoppedError');
    expect(refTimers()).toBe(before);
  });

  it('holds it while the engine runs, whatever its sockets do, until stop(); releases it when start() rejects', async () => {
    const before = refTimers();
    const ready = engine(new InMemoryKafka().port());
    await ready.start();
    expect(ready.reader.status().state).toBe('ready');
    // Running: between two rejoin attempts of an outage no socket may be open, and the engine's
    // own waits hold nothing; its one ref'd timer keeps the process until stop().
    expect(refTimers()).toBe(before + 1);
    await ready.stop();
    expect(refTimers()).toBe(before);

    const refused = engine(new InMemoryKafka().port(), { topic: 'news' });
    await expect(refused.start()).rejects.toBeInstanceOf(BroadcastOptionsError);
    expect(refTimers()).toBe(before);
    await refused.stop();
  });
});
