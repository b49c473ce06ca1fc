// BroadcastTestingHelper waits for what a handler's failure policy sets going: retries after their
// backoff, handler timeouts, the onHandlerError hook and the dead letter. `failures` lists every
// failed call, one per attempt. Fake timers drive the backoff and the timeouts.
import { Injectable } from '@nestjs/common';
import { Test } from '@nestjs/testing';
import { BroadcastTestingHelper } from './broadcast-testing.helper.js';
import {
  BroadcastTestingModule,
  type BroadcastTestingOptions,
} from './broadcast-testing.module.js';
import { OnBroadcast } from '../on-broadcast.decorator.js';
import { InMemoryKafka } from '../../testing/in-memory-kafka.js';

@Injectable()
class AlwaysFailing {
  calls = 0;

  @OnBroadcast('price.changed', { retry: { attempts: 3, backoffMs: 500 } })
  reprice(): void {
    this.calls++;
    throw new Error(`attempt ${this.calls} failed`);
  }
}

@Injectable()
class Hanging {
  calls = 0;

  @OnBroadcast('stock.changed', { timeoutMs: 1_000 })
  recount(): Promise<void> {
    this.calls++;
    return new Promise(() => undefined);
  }
}

const quiet = { log: () => undefined, warn: () => undefined, error: () => undefined };

async function boot(options: BroadcastTestingOptions, providers: (new () => unknown)[]) {
  const moduleRef = await Test.createTestingModule({
    imports: [BroadcastTestingModule.forRoot(options)],
    providers,
  }).compile();
  moduleRef.useLogger(quiet);
  return moduleRef.init();
}

describe('BroadcastTestingHelper and the failure policy', () => {
  afterEach(() => vi.useRealTimers());

  it('publish() resolves after every retry, the hook and the dead letter; failures lists each attempt', async () => {
    const hooked: number[] = [];
    const app = await boot(
      {
        onHandlerError: (_error, context) => void hooked.push(context.attempts),
        deadLetter: { topic: 'dead' },
      },
      [AlwaysFailing],
    );
    const helper = app.get(BroadcastTestingHelper);
    await helper.publish('price.changed', { id: 1 });
    expect(app.get(AlwaysFailing).calls).toBe(3);
    expect(hooked).toEqual([3]);
    expect(helper.published('dead')).toHaveLength(1);
    expect(helper.failures.map((f) => [f.handler, f.attempt, f.final, f.reason])).toEqual([
      ['AlwaysFailing.reprice', 1, false, 'attempt 1 failed'],
      ['AlwaysFailing.reprice', 2, false, 'attempt 2 failed'],
      ['AlwaysFailing.reprice', 3, true, 'attempt 3 failed'],
    ]);
    await app.close();
  });

  it('waits for the retries of every module on the broker, and for a timed-out call', async () => {
    const broker = new InMemoryKafka();
    const a = await boot({ broker, instanceId: 'a' }, [AlwaysFailing, Hanging]);
    const b = await boot({ broker, instanceId: 'b' }, [AlwaysFailing, Hanging]);
    await a.get(BroadcastTestingHelper).publish('price.changed', { id: 1 });
    expect([a.get(AlwaysFailing).calls, b.get(AlwaysFailing).calls]).toEqual([3, 3]);
    expect(b.get(BroadcastTestingHelper).failures.filter((f) => f.final)).toHaveLength(1);
    await b.get(BroadcastTestingHelper).publish('stock.changed', { id: 2 });
    expect(a.get(BroadcastTestingHelper).failures.at(-1)).toMatchObject({
      handler: 'Hanging.recount',
      attempt: 1,
      final: true,
      reason: 'timed out after 1000 ms',
    });
    await Promise.all([a.close(), b.close()]);
  });

  it(
    'works under fake timers: the backoff passes as the test advances the clock',
    { timeout: 20_000 },
    async () => {
      vi.useFakeTimers();
      const app = await boot({}, [AlwaysFailing]);
      const helper = app.get(BroadcastTestingHelper);
      let resolved = false;
      const publishing = helper.publish('price.changed', { id: 1 }).then(() => (resolved = true));
      await vi.advanceTimersByTimeAsync(0);
      expect([app.get(AlwaysFailing).calls, resolved]).toEqual([1, false]);
      await vi.advanceTimersByTimeAsync(500);
      expect([app.get(AlwaysFailing).calls, resolved]).toEqual([2, false]);
      await vi.advanceTimersByTimeAsync(1_000);
      await publishing;
      expect(app.get(AlwaysFailing).calls).toBe(3);
      expect(helper.failures.map((f) => f.attempt)).toEqual([1, 2, 3]);
      await app.close();
    },
  );
});
