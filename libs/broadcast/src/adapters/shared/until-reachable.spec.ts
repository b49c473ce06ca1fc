// The start's retry loop over an unreachable broker, with a scripted client's errors (the real
// clients: test/module/startup-process.spec.ts, 'broker unreachable', in child processes).
import { BroadcastStartupError } from '../../errors/broadcast-startup.error.js';
import type { AttemptNote, ClientErrors } from './client-errors.js';
import { UntilReachable } from './until-reachable.js';

const refused = () => new Error('connect ECONNREFUSED 127.0.0.1:1');
const during = { operation: 'describe topics', acl: {} };

function setup(startupTimeoutMs: number) {
  const warnings: { message: string; fields: unknown }[] = [];
  const watchers = new Set<(note: AttemptNote) => void>();
  const errors: ClientErrors = {
    fatal: () => undefined,
    fatalForGroup: async () => undefined,
    transient: () => true,
    rootMessage: (error) => (error as Error).message,
    deleteAnswer: () => undefined,
    watchAttempt: (listener) => {
      watchers.add(listener);
      return () => void watchers.delete(listener);
    },
  };
  const reachable = new UntilReachable(errors, {
    kafka: { brokers: ['127.0.0.1:1'] },
    startupTimeoutMs,
    logger: {
      log: () => undefined,
      warn: (message, fields) => void warnings.push({ message, fields }),
      error: () => undefined,
    },
    backoff: { baseMs: 10, capMs: 20 },
  });
  const note = (message: string) => watchers.forEach((w) => w({ message }));
  return { reachable, warnings, note };
}

describe('UntilReachable', () => {
  it('warns once at the first failure (brokers, cause, until when), then fails at the deadline', async () => {
    const { reachable, warnings } = setup(300);
    let attempts = 0;
    const started = Date.now();
    const error = await reachable
      .run(() => (attempts++, Promise.reject(refused())), during)
      .catch((e: unknown) => e);
    expect(attempts).toBeGreaterThan(1);
    expect(warnings).toHaveLength(1);
    expect(warnings[0]!.message).toMatch(
      /^Could not reach Kafka at 127\.0\.0\.1:1: connect ECONNREFUSED 127\.0\.0\.1:1\. Still trying until startupTimeoutMs ends, at \d{4}-.*Z; check the option kafka\.brokers/,
    );
    const until = Date.parse((warnings[0]!.fields as { until: string }).until);
    expect(until).toBeGreaterThanOrEqual(started + 300);
    expect((error as BroadcastStartupError).option).toBe('kafka.brokers');
  });

  it('warns at the first failure the client reports while its attempt still runs', async () => {
    const { reachable, warnings, note } = setup(60_000);
    let answer!: () => void;
    const running = reachable.run(() => new Promise<void>((r) => (answer = r)), during);
    await vi.waitFor(() => expect(answer).toBeDefined());
    note('connect ECONNREFUSED 127.0.0.1:1');
    note('connect ECONNREFUSED 127.0.0.1:1');
    expect(warnings).toHaveLength(1);
    expect(warnings[0]!.message).toMatch(/^Could not reach Kafka at 127\.0\.0\.1:1: connect ECONN/);
    answer();
    await running;
  });

  it('warns again only after a success', async () => {
    const { reachable, warnings } = setup(60_000);
    let fail = 2;
    const flaky = () => (fail-- > 0 ? Promise.reject(refused()) : Promise.resolve());
    await reachable.run(flaky, during);
    expect(warnings).toHaveLength(1);
    fail = 1;
    await reachable.run(flaky, during);
    expect(warnings).toHaveLength(2);
  });

  // CI, under load: the engine's own start-up deadline (the caller's signal) aborted a moment
  // before ours, and the start failed with the bare 'no answer before startupTimeoutMs'.
  it("names kafka.brokers when the caller's deadline ends the wait before its own", async () => {
    const { reachable } = setup(60_000);
    const callerDeadline = AbortSignal.timeout(150);
    const error = await reachable
      .run(
        () =>
          new Promise<void>((_, reject) => {
            // The client gives up on its attempt when the signal aborts, as kafkajs does.
            setTimeout(() => reject(refused()), 20);
            callerDeadline.addEventListener('abort', () => reject(new Error('aborted')));
          }),
        during,
        callerDeadline,
      )
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(BroadcastStartupError);
    expect((error as BroadcastStartupError).option).toBe('kafka.brokers');
    expect((error as Error).message).toMatch(/ECONNREFUSED/);
  });

  it('names kafka.brokers when the only attempt is still pending as the caller gives up', async () => {
    const { reachable } = setup(60_000);
    const callerDeadline = AbortSignal.timeout(50);
    const error = await reachable
      .run(
        () =>
          new Promise<void>((_, reject) =>
            callerDeadline.addEventListener('abort', () => reject(refused())),
          ),
        during,
        callerDeadline,
      )
      .catch((e: unknown) => e);
    expect((error as BroadcastStartupError).option).toBe('kafka.brokers');
  });
});
