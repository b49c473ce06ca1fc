// The reader's phases as status() shows them: the public state derived from the phase, and what
// the reader waits for while it is not ready (BroadcastStatus.waitingFor).
import { expectClean, fakeReader as setup, until } from '../../../spec-support/reader-harness.js';
import { deferred } from '../../shared/async.utils.js';

describe('BroadcastReader phases in status()', () => {
  it('waits for kafka during the topic check, for the group while verifying, for nothing when ready', async () => {
    const s = setup();
    expect(s.reader.status()).toMatchObject({ state: 'starting', phase: 'idle' });
    expect(s.reader.status().waitingFor).toBeUndefined();
    const answering = deferred<void>();
    const ensureTopics = s.kafka.admin.ensureTopics.bind(s.kafka.admin);
    s.kafka.admin.ensureTopics = async (topics: readonly string[]) => {
      await answering.promise;
      return ensureTopics(topics);
    };
    const describing = deferred<void>();
    s.kafka.describeGate = describing.promise;
    const starting = s.reader.start();
    expect(s.reader.status()).toMatchObject({
      state: 'starting',
      phase: 'allocating',
      waitingFor: 'kafka',
    });
    answering.resolve();
    await until(() => s.kafka.describeWaiting > 0, 'verifying');
    expect(s.reader.status()).toMatchObject({
      state: 'starting',
      phase: 'joining',
      waitingFor: 'group',
      groupId: undefined,
    });
    describing.resolve();
    s.kafka.describeGate = undefined;
    await starting;
    expect(s.reader.status()).toMatchObject({ state: 'ready', phase: 'ready', groupId: 'p.bc-0' });
    expect(s.reader.status().waitingFor).toBeUndefined();
    await s.reader.stop();
    expect(s.reader.status()).toMatchObject({ state: 'stopped', phase: 'stopped' });
    expect(s.reader.status().waitingFor).toBeUndefined();
    expectClean(s, 'after stop');
  });

  it('waits for the pool while every id is taken', async () => {
    const s = setup();
    for (const id of [0, 1, 2, 3]) s.locks.lose(id); // held by other instances
    const starting = s.reader.start().catch((error: Error) => error);
    await until(() => s.reader.status().waitingFor === 'pool', 'the pool found full');
    expect(s.reader.status()).toMatchObject({ state: 'starting', phase: 'allocating' });
    s.locks.free(2);
    await starting;
    expect(s.reader.status()).toMatchObject({ state: 'ready', groupId: 'p.bc-2' });
    await s.reader.stop();
    for (const id of [0, 1, 3]) s.locks.free(id);
    expectClean(s, 'after stop');
  });

  it('a rejoin: recovering, waiting for the group while its join is under way, the same claim once ready', async () => {
    const s = setup();
    await s.reader.start();
    s.kafka.autoJoin = false;
    s.kafka.latest().crash();
    await until(() => s.kafka.consumers.length === 2, 'rejoining');
    expect(s.reader.status()).toMatchObject({
      state: 'recovering',
      phase: 'rejoining',
      waitingFor: 'group',
      groupId: 'p.bc-0',
      lockId: 0,
    });
    s.kafka.autoJoin = true;
    await until(() => s.kafka.latest().running, 'the rejoin consumer runs');
    s.kafka.latest().join();
    await until(() => s.reader.status().state === 'ready', 'ready again');
    expect(s.reader.status()).toMatchObject({ phase: 'ready', groupId: 'p.bc-0', lockId: 0 });
    await s.reader.stop();
    expectClean(s, 'after stop');
  });
});
