import type { BroadcastLogFields } from '../interfaces/broadcast-logger.interface.js';
import { EngineLifecycleLog } from './engine-lifecycle-log.js';

function capture() {
  const lines: { message: string; fields?: BroadcastLogFields }[] = [];
  const logger = {
    log: (message: string, fields?: BroadcastLogFields) => void lines.push({ message, fields }),
    warn: () => undefined,
    error: () => undefined,
  };
  return { lines, logger };
}

describe('EngineLifecycleLog', () => {
  beforeEach(() => vi.useFakeTimers({ now: 10_000 }));
  afterEach(() => vi.useRealTimers());

  it('ready: group, lock, client, protocol and the start-up time, as text and as fields', () => {
    const { lines, logger } = capture();
    const log = new EngineLifecycleLog(logger, () => ({
      client: 'platformatic',
      groupProtocol: 'consumer',
    }));
    log.ready({ groupId: 'p.broadcastConsumer-0', lockId: 0, lockMode: 'postgres' }, 9_188);
    expect(lines).toEqual([
      {
        message:
          'Reading broadcasts through consumer group p.broadcastConsumer-0 (ready in 812 ms; advisory lock 0 (postgres); client platformatic, consumer protocol)',
        fields: {
          group: 'p.broadcastConsumer-0',
          lockId: 0,
          lockMode: 'postgres',
          client: 'platformatic',
          groupProtocol: 'consumer',
          startMs: 812,
        },
      },
    ]);
  });

  it('ready without a known client (a port of its own) leaves the client out', () => {
    const { lines, logger } = capture();
    new EngineLifecycleLog(logger, () => undefined).ready(
      { groupId: 'g-3', lockId: 3, lockMode: 'none' },
      10_000,
    );
    expect(lines[0]!.message).toBe(
      'Reading broadcasts through consumer group g-3 (ready in 0 ms; lock-free)',
    );
  });

  it('stopped: the group left, the lock released, or that none was held', () => {
    const { lines, logger } = capture();
    const log = new EngineLifecycleLog(logger, () => undefined);
    log.stopped({ groupId: 'g-0', lockId: 0, lockMode: 'mysql' }, 9_900);
    log.stopped({ groupId: 'g-7', lockId: 7, lockMode: 'none' }, 9_900);
    log.stopped({ groupId: undefined, lockId: undefined, lockMode: 'postgres' }, 9_900);
    expect(lines.map((l) => l.message)).toEqual([
      'Broadcast engine stopped in 100 ms: left consumer group g-0, released advisory lock 0 (mysql)',
      'Broadcast engine stopped in 100 ms: left consumer group g-7, lock-free',
      'Broadcast engine stopped in 100 ms: no consumer group was held',
    ]);
    expect(lines[0]!.fields).toEqual({ group: 'g-0', lockId: 0, lockMode: 'mysql', stopMs: 100 });
  });
});
