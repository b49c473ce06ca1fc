// The client's import begins when the engine is built (in the background, no client made), so the
// first start() finds it loaded when the app did other work in between; an engine handed a port
// (the in-memory testing Kafka) imports no client. test/package/client-preload.spec.ts checks the
// same on the built package in a fresh process, module by module.
import { BroadcastEngine } from './broadcast.engine.js';
import { preloadKafkaClient } from './kafka-client.loader.js';
import { InMemoryKafka } from '../testing/in-memory-kafka.js';

vi.mock('./kafka-client.loader.js', async (original) => ({
  ...(await original<typeof import('./kafka-client.loader.js')>()),
  preloadKafkaClient: vi.fn(async () => undefined),
}));

const silent = { log: () => undefined, warn: () => undefined, error: () => undefined };

describe('BroadcastEngine client preload', () => {
  beforeEach(() => vi.mocked(preloadKafkaClient).mockClear());

  it('begins importing the chosen client when built, once', async () => {
    const engine = new BroadcastEngine(
      { kafka: { brokers: ['127.0.0.1:1'], client: 'platformatic' }, lock: false },
      { logger: silent },
    );
    expect(preloadKafkaClient).toHaveBeenCalledTimes(1);
    expect(preloadKafkaClient).toHaveBeenCalledWith('platformatic');
    engine.on('a', () => undefined).on('b', () => undefined);
    expect(preloadKafkaClient).toHaveBeenCalledTimes(1);
    await engine.stop();
  });

  it('without kafka.client, begins the import by the rule of start() (undefined: the installed one)', async () => {
    const engine = new BroadcastEngine(
      { kafka: { brokers: ['127.0.0.1:1'] }, lock: false },
      { logger: silent },
    );
    expect(preloadKafkaClient).toHaveBeenCalledWith(undefined);
    await engine.stop();
  });

  it('imports no client when a port is handed in (the in-memory testing Kafka)', async () => {
    const kafka = new InMemoryKafka();
    const engine = new BroadcastEngine(
      { kafka: { brokers: ['in-memory'], client: 'platformatic' }, lock: false },
      { kafka: kafka.port(), logger: silent },
    );
    engine.on('a', () => undefined);
    expect(preloadKafkaClient).not.toHaveBeenCalled();
    await engine.stop();
  });
});
