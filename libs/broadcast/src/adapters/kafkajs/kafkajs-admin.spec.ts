// The admin adapter's retry and wait loops end when the engine's stop signal aborts, over a scripted
// kafkajs admin (the real broker paths are covered in test/*.spec.ts).
import type { Kafka } from 'kafkajs';
import { BroadcastMessages } from '../../errors/broadcast.messages.js';
import { deferred } from '../../shared/async.utils.js';
import { UntilReachable } from '../shared/until-reachable.js';
import { KafkajsAdmin } from './kafkajs-admin.js';
import { KafkajsErrors } from './kafkajs-errors.js';

const never = (): Promise<never> => new Promise(() => undefined);

function adminOver(script: Record<string, (...args: unknown[]) => Promise<unknown>>) {
  const calls: string[] = [];
  const admin = new Proxy(
    {},
    {
      get: (_, name: string) =>
        name === 'then'
          ? undefined
          : (...args: unknown[]) => {
              calls.push(name);
              return (script[name] ?? (async () => undefined))(...args);
            },
    },
  );
  const kafka = {
    admin: () => {
      calls.push('new admin');
      return admin;
    },
  } as unknown as Kafka;
  const options = { brokers: ['b:9092'] };
  const errors = new KafkajsErrors(options);
  const reachable = new UntilReachable(errors, {
    kafka: options,
    startupTimeoutMs: 60_000,
    logger: { log: () => undefined, warn: () => undefined, error: () => undefined },
    backoff: { baseMs: 500, capMs: 5_000 },
  });
  const settings = { numPartitions: 1, replicationFactor: 1 };
  return { adapter: new KafkajsAdmin(kafka, settings, errors, reachable, 30_000), calls };
}

describe('KafkajsAdmin and the abort signal', () => {
  it('stops retrying deleteGroups when the signal aborts, long before the deadline', async () => {
    const { adapter, calls } = adminOver({
      deleteGroups: () => Promise.reject(new Error('The coordinator is loading')),
    });
    const abort = new AbortController();
    const deleting = adapter.deleteGroup('g', Date.now() + 3_600_000, abort.signal);
    await vi.waitFor(() => expect(calls.filter((c) => c === 'deleteGroups').length).toBe(1));
    abort.abort();
    await expect(deleting).rejects.toThrow(/coordinator is loading|aborted/);
  });

  it('does not start a delete once aborted', async () => {
    const { adapter, calls } = adminOver({});
    const abort = new AbortController();
    abort.abort();
    await expect(adapter.deleteGroup('g', Date.now() + 60_000, abort.signal)).rejects.toThrow();
    expect(calls).not.toContain('deleteGroups');
  });

  it('stops waiting for topic creation when the signal aborts', async () => {
    const { adapter } = adminOver({
      fetchTopicMetadata: () => Promise.reject(unknownTopic()),
      listTopics: async () => [],
      createTopics: never,
    });
    const abort = new AbortController();
    const ensuring = adapter.ensureTopics(['t'], abort.signal);
    await new Promise((resolve) => setTimeout(resolve, 10));
    abort.abort();
    await expect(ensuring).resolves.toBeUndefined();
  });
});

function unknownTopic() {
  return Object.assign(new Error('This server does not host this topic-partition'), {
    type: 'UNKNOWN_TOPIC_OR_PARTITION',
  });
}

describe('KafkajsAdmin and a broken client', () => {
  it('asks for its own topics only, and lists the cluster only when one is missing', async () => {
    const leader = { partitions: [{ leader: 1 }] };
    const { adapter, calls } = adminOver({
      fetchTopicMetadata: async () => ({ topics: [leader, leader] }),
    });
    await adapter.ensureTopics(['a', 'b']);
    expect(calls).toEqual(['new admin', 'connect', 'fetchTopicMetadata']);
  });

  it('replaces a client that answers "Broker not connected", keeps one that answered', async () => {
    let failures = 1;
    const { adapter, calls } = adminOver({
      describeGroups: async () => {
        if (failures-- > 0) throw new Error('Broker not connected');
        return { groups: [] };
      },
      deleteGroups: () =>
        Promise.reject(
          Object.assign(new Error('x'), { groups: [{ groupId: 'g', errorCode: 69 }] }),
        ),
    });
    await expect(adapter.describeGroup('g')).rejects.toThrow('Broker not connected');
    await expect(adapter.describeGroup('g')).resolves.toEqual({ state: 'Dead', memberIds: [] });
    await expect(adapter.deleteGroup('g', Date.now() + 1_000)).resolves.toBe('not-found');
    await expect(adapter.describeGroup('g')).resolves.toEqual({ state: 'Dead', memberIds: [] });
    expect(calls.filter((c) => c === 'new admin')).toHaveLength(2);
    expect(calls.filter((c) => c === 'disconnect')).toHaveLength(1);
  });
});

describe('KafkajsAdmin after disconnect()', () => {
  it('refuses every later call instead of connecting a new client', async () => {
    const { adapter, calls } = adminOver({ describeGroups: async () => ({ groups: [] }) });
    await adapter.describeGroup('g');
    await adapter.disconnect();
    await expect(adapter.describeGroup('g')).rejects.toThrow(BroadcastMessages.kafkaClientClosed());
    await expect(adapter.ensureTopics(['t'])).rejects.toThrow(
      BroadcastMessages.kafkaClientClosed(),
    );
    expect(calls).toEqual(['new admin', 'connect', 'describeGroups', 'disconnect']);
  });

  it('disconnects the admin again after a call that was under way (kafkajs reconnects for it)', async () => {
    const answer = deferred<{ groups: never[] }>();
    const { adapter, calls } = adminOver({ describeGroups: () => answer.promise });
    const describing = adapter.describeGroup('g');
    await vi.waitFor(() => expect(calls).toContain('describeGroups'));
    await adapter.disconnect();
    answer.resolve({ groups: [] });
    await describing;
    expect(calls).toEqual(['new admin', 'connect', 'describeGroups', 'disconnect', 'disconnect']);
  });

  it('disconnects the admin again when a topic creation left behind by stop() ends', async () => {
    const created = deferred<boolean>();
    const { adapter, calls } = adminOver({
      fetchTopicMetadata: () => Promise.reject(unknownTopic()),
      listTopics: async () => [],
      createTopics: () => created.promise,
    });
    const abort = new AbortController();
    const ensuring = adapter.ensureTopics(['t'], abort.signal);
    await vi.waitFor(() => expect(calls).toContain('createTopics'));
    abort.abort();
    await ensuring;
    await adapter.disconnect();
    expect(calls.filter((c) => c === 'disconnect')).toHaveLength(1);
    // kafkajs retries it after the disconnect, on a new connection: that one must close too.
    created.resolve(false);
    await vi.waitFor(() => expect(calls.filter((c) => c === 'disconnect')).toHaveLength(2));
  });
});
