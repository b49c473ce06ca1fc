// The whole engine on the in-memory broker, as BroadcastTestingModule runs it: every engine in the
// process gets every message, receipts, targeting and the replay window work, nothing else needed.
import { BroadcastEngine } from '../engine/broadcast.engine.js';
import type { BroadcastModuleOptions } from '../interfaces/broadcast-module-options.interface.js';
import { InMemoryKafka } from './in-memory-kafka.js';

const silent = { log: () => undefined, warn: () => undefined, error: () => undefined };

function engineOn(
  broker: InMemoryKafka,
  instanceId: string,
  options: Partial<BroadcastModuleOptions> = {},
): BroadcastEngine {
  return new BroadcastEngine(
    {
      kafka: { brokers: ['in-memory'] },
      topicPrefix: 'mem.',
      lock: false,
      telemetry: false,
      instanceId,
      ...options,
    },
    { kafka: broker.port(), logger: silent },
  );
}

describe('BroadcastEngine on the in-memory broker', () => {
  const engines: BroadcastEngine[] = [];
  afterEach(async () => {
    await Promise.all(engines.splice(0).map((e) => e.stop()));
  });

  function started(broker: InMemoryKafka, id: string, options = {}): BroadcastEngine {
    const engine = engineOn(broker, id, options);
    engines.push(engine);
    return engine;
  }

  it('hands every message to every handler of two engines, each through its own group', async () => {
    const broker = new InMemoryKafka();
    const seen: string[] = [];
    const a = started(broker, 'a')
      .on('news', (p: { n: number }) => void seen.push(`a1:${p.n}`))
      .on('news', (p: { n: number }) => void seen.push(`a2:${p.n}`));
    const b = started(broker, 'b').on('news', (p: { n: number }) => void seen.push(`b:${p.n}`));
    await Promise.all([a.start(), b.start()]);
    expect(a.reader.groupId).not.toBe(b.reader.groupId);

    await a.publisher.publish('news', { n: 1 });
    await b.publisher.publish('news', { n: 2 });
    await broker.settled();
    expect(seen.sort()).toEqual(['a1:1', 'a1:2', 'a2:1', 'a2:2', 'b:1', 'b:2']);
  });

  it('resolves receipts: ok when every instance handled it, failed naming the handler that threw', async () => {
    const broker = new InMemoryKafka();
    let fail = false;
    const a = started(broker, 'a', { roster: { intervalMs: 0 } }).on('job', () => undefined);
    const b = started(broker, 'b').on(
      'job',
      () => {
        if (fail) throw new Error('boom');
      },
      'JobHandler.run',
    );
    await Promise.all([a.start(), b.start()]);

    const ok = await a.publisher.publish('job', {}, { receipts: { timeoutMs: 5_000 } });
    expect([...ok.expected].sort()).toEqual(['a', 'b']);
    expect([...ok.ok].sort()).toEqual(['a', 'b']);
    expect(ok.failed).toEqual([]);
    expect(ok.missing).toEqual([]);

    fail = true;
    const failed = await a.publisher.publish('job', {}, { receipts: { timeoutMs: 5_000 } });
    expect(failed.ok).toEqual(['a']);
    expect(failed.failed).toEqual([
      expect.objectContaining({ instanceId: 'b', errors: ['JobHandler.run: boom'] }),
    ]);
  });

  it('targets instances and services: the others skip the message', async () => {
    const broker = new InMemoryKafka();
    const seen: string[] = [];
    const a = started(broker, 'a', { groupBaseName: 'billing' }).on('t', () => void seen.push('a'));
    const b = started(broker, 'b', { groupBaseName: 'shipping' }).on(
      't',
      () => void seen.push('b'),
    );
    await Promise.all([a.start(), b.start()]);

    await a.publisher.publish('t', {}, { to: { instances: ['b'] } });
    await broker.settled();
    expect(seen).toEqual(['b']);
    await b.publisher.publish('t', {}, { to: { services: ['billing'] } });
    await broker.settled();
    expect(seen).toEqual(['b', 'a']);
    await a.publisher.publish('t', {}, { exceptSelf: true });
    await broker.settled();
    expect(seen).toEqual(['b', 'a', 'b']);
    expect(a.reader.status().filtered + b.reader.status().filtered).toBe(3);
  });

  it('replays the window at start, and reads only new messages without one', async () => {
    const broker = new InMemoryKafka();
    const publisher = started(broker, 'p');
    await publisher.start();
    await publisher.publisher.publish('news', { n: 1 });

    const replayed: unknown[] = [];
    const plain: unknown[] = [];
    const late = started(broker, 'late', { replay: { news: 60_000 } }).on(
      'news',
      (p) => void replayed.push(p),
    );
    const fresh = started(broker, 'fresh').on('news', (p) => void plain.push(p));
    await Promise.all([late.start(), fresh.start()]);
    await publisher.publisher.publish('news', { n: 2 });
    await broker.settled();
    expect(replayed).toEqual([{ n: 1 }, { n: 2 }]);
    expect(plain).toEqual([{ n: 2 }]);
  });

  it('stops every consumer and deletes the group it left', async () => {
    const broker = new InMemoryKafka();
    const engine = started(broker, 'a').on('news', () => undefined);
    await engine.start();
    const group = engine.reader.groupId!;
    expect(broker.members(group)).toHaveLength(1);
    await engine.stop();
    // undefined: no such group (an empty one would list no members).
    expect(broker.members(group)).toBeUndefined();
  });
});
