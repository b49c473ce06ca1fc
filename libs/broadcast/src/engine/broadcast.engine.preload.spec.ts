// The client's import begins when the first handler is registered (an app about to start), not
// when the engine is built: an engine that never gets a handler, nor starts, imports nothing.
import { BroadcastEngine } from './broadcast.engine.js';
import { preloadKafkaClient } from './kafka-client.loader.js';

vi.mock('./kafka-client.loader.js', async (original) => ({
  ...(await original<typeof import('./kafka-client.loader.js')>()),
  preloadKafkaClient: vi.fn(async () => undefined),
}));

const silent = { log: () => undefined, warn: () => undefined, error: () => undefined };

describe('BroadcastEngine client preload', () => {
  it('begins importing the chosen client at the first handler, once', async () => {
    const engine = new BroadcastEngine(
      { kafka: { brokers: ['127.0.0.1:1'], client: 'platformatic' }, lock: false },
      { logger: silent },
    );
    expect(preloadKafkaClient).not.toHaveBeenCalled();
    engine.on('a', () => undefined).on('b', () => undefined);
    expect(preloadKafkaClient).toHaveBeenCalledTimes(1);
    expect(preloadKafkaClient).toHaveBeenCalledWith('platformatic');
    await engine.stop();
  });
});
