import type { AdapterPort } from '../adapters/shared/deferred-group-consumer.js';
import { BroadcastMessages } from '../errors/broadcast.messages.js';
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

describe('LazyKafkaPort after disconnect()', () => {
  const closed = BroadcastMessages.kafkaClientClosed();

  it('refuses every call as the adapters do, and never loads the adapter', async () => {
    const load = vi.fn(async () => ({}) as AdapterPort);
    const port = new LazyKafkaPort(load);
    await port.disconnect();
    await expect(port.send('t', [])).rejects.toThrow(closed);
    await expect(port.admin.ensureTopics(['t'])).rejects.toThrow(closed);
    await expect(port.admin.describeGroup('g')).rejects.toThrow(closed);
    expect(() =>
      port.createGroupConsumer({
        groupId: 'g',
        topics: ['t'],
        fromBeginning: true,
        sink: () => undefined,
        listener: { joined: () => undefined, crashed: () => undefined },
      }),
    ).toThrow(closed);
    expect(load).not.toHaveBeenCalled();
  });

  it('a consumer made before it is refused its start, and the loaded adapter is closed', async () => {
    const disconnect = vi.fn(async () => undefined);
    const groupConsumerClient = vi.fn();
    const adapter = { send: async () => undefined, disconnect, groupConsumerClient };
    const port = new LazyKafkaPort(async () => adapter as unknown as AdapterPort);
    const consumer = port.createGroupConsumer({
      groupId: 'g',
      topics: ['t'],
      fromBeginning: true,
      sink: () => undefined,
      listener: { joined: () => undefined, crashed: () => undefined },
    });
    await port.send('t', []);
    await port.disconnect();
    await expect(consumer.start()).rejects.toThrow(closed);
    expect(groupConsumerClient).not.toHaveBeenCalled();
    expect(disconnect).toHaveBeenCalledTimes(1);
  });
});
