import type { AdapterPort } from '../adapters/shared/deferred-group-consumer.js';
import { LazyKafkaPort } from './lazy-kafka-port.js';

describe('LazyKafkaPort.warm', () => {
  it('begins the preload once, without loading the adapter', async () => {
    const load = vi.fn(async () => ({}) as AdapterPort);
    const preload = vi.fn(async () => undefined);
    const port = new LazyKafkaPort(load, preload);
    port.warm();
    port.warm();
    expect(preload).toHaveBeenCalledTimes(1);
    expect(load).not.toHaveBeenCalled();
  });

  it('preloads nothing once the adapter is loaded', async () => {
    const preload = vi.fn(async () => undefined);
    const port = new LazyKafkaPort(async () => ({ send: async () => undefined }) as never, preload);
    await port.send('t', []);
    port.warm();
    expect(preload).not.toHaveBeenCalled();
  });

  it('imports nothing when never warmed nor used', async () => {
    const load = vi.fn(async () => ({}) as AdapterPort);
    const preload = vi.fn(async () => undefined);
    await new LazyKafkaPort(load, preload).disconnect();
    expect(preload).not.toHaveBeenCalled();
    expect(load).not.toHaveBeenCalled();
  });
});
