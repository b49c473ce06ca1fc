import type { BroadcastLogger } from '../../interfaces/broadcast-logger.interface.js';
import type { GroupConsumerSpec } from '../../interfaces/kafka-port.interface.js';
import { asError, errorMessage } from '../../shared/async.utils.js';
import type { KafkaOperation } from './adapter-types.js';
import { consumingOperation } from './kafka-operations.js';

/** The longest a stop waits for its client to close before it cuts it (see closeBoundMs). */
export const STOP_BOUND_MS = 30_000;
/** How long a cut client may still take to settle before the stop gives up waiting. */
export const CUT_GRACE_MS = 2_000;

/** Where a group consumer is, whatever its client; changed only by the lifecycle below. */
export type GroupConsumerPhase =
  'new' | 'making' | 'starting' | 'started' | 'crashed' | 'stopping' | 'stopped';

/**
 * One client's group consumer, as its lifecycle drives it (adapters/<client>/…-group-consumer.ts):
 * the steps of a start and of a stop, and nothing that decides when they run.
 */
export interface GroupConsumerClient {
  /** The client's reading of an error as a startup error (a refused login, a missing ACL). */
  readonly errors: { fatal(error: unknown, operation?: KafkaOperation): Error | undefined };
  /** Makes the client and reaches the broker (a refused login or an unreachable broker fails here). */
  connect(): Promise<void>;
  /** Tells the client the topics. */
  subscribe(): Promise<void> | void;
  /** Starts fetching and joining (a client may wait for the join here). */
  run(): Promise<void> | void;
  /** Where a partition is read from on the next fetch (local only). */
  seek(topic: string, partition: number, offset: string): void;
  /** At once when a stop comes, before a start in flight settles: what makes it settle sooner. */
  interrupt?(): Promise<void> | void;
  /**
   * Once the start settled (or never began its connect): stop fetching, leave the group, close.
   * Called once.
   */
  close(): Promise<void>;
  /** The close outlasted its bound: ends every request in flight and closes every socket now. */
  cut(): Promise<void> | void;
}

/** What a client's parts see of their lifecycle. */
export interface ConsumerOwner {
  /** True once stop() was called: nothing new (a join, a report) may begin. */
  readonly stopRequested: boolean;
  /**
   * The consumer stopped on an error and will not restart: `halt` stops the client's own parts,
   * the listener hears it once. Ignored after a stop was asked (the stop explains it).
   */
  crashed(error: unknown, halt?: () => void): void;
}

/** What a lifecycle needs besides its client. */
export interface LifecycleDeps {
  logger: BroadcastLogger;
  /** A test hook (the engine's): called with 'connect', 'subscribe' and 'run'. */
  probe?: (step: string) => void;
  /**
   * How long a stop waits for the client to close before it cuts it: the consumer's session
   * timeout (the broker drops a member it has not heard from for that long, so a leave that
   * cannot be sent by then is moot), at most STOP_BOUND_MS.
   */
  closeBoundMs?: number;
}

/**
 * The one place where a group consumer's start and stop are decided, whatever its client (the
 * contract's fact 6 and its crash fact, libs/broadcast/docs/PORT-CONTRACT.md). Its client is made
 * when start() runs (the adapter may still be loading, the group protocol not chosen yet) and then
 * started, each step only if no stop was asked before it. A stop at any moment interrupts the step
 * in flight, waits for it and closes, once; it is bounded: a close that outlasts closeBoundMs is cut
 * (its requests ended, its sockets closed) so nothing outlives it. A crash is reported once, and
 * never after a stop was asked.
 */
export class GroupConsumerLifecycle implements ConsumerOwner {
  private current: GroupConsumerPhase = 'new';
  private made: GroupConsumerClient | undefined;
  private starting: Promise<void> | undefined;
  private stopping: Promise<void> | undefined;

  constructor(
    private readonly spec: GroupConsumerSpec,
    private readonly deps: LifecycleDeps,
  ) {}

  get phase(): GroupConsumerPhase {
    return this.current;
  }

  get stopRequested(): boolean {
    return this.current === 'stopping' || this.current === 'stopped';
  }

  /** The client once made. */
  get client(): GroupConsumerClient | undefined {
    return this.made;
  }

  /** Makes the client and starts it, once; after a stop it starts nothing. */
  start(make: () => Promise<GroupConsumerClient> | GroupConsumerClient): Promise<void> {
    this.starting ??= this.run(make);
    return this.starting;
  }

  stop(): Promise<void> {
    const before = this.current;
    if (!this.stopRequested) this.current = 'stopping';
    if (before === 'new') {
      // Never started: nothing to close, and a later start() starts nothing.
      this.current = 'stopped';
      this.stopping ??= Promise.resolve();
    }
    this.stopping ??= this.stopSteps();
    return this.stopping;
  }

  crashed(error: unknown, halt?: () => void): void {
    if (this.stopRequested || this.current === 'crashed') return;
    this.current = 'crashed';
    halt?.();
    this.spec.listener.crashed(asError(this.classified(error)));
  }

  private async run(make: () => Promise<GroupConsumerClient> | GroupConsumerClient) {
    if (this.stopRequested) return;
    this.current = 'making';
    try {
      const client = (this.made = await make());
      if (this.stopRequested) return;
      this.current = 'starting';
      const { probe } = this.deps;
      probe?.('connect');
      await client.connect();
      if (this.stopRequested) return;
      probe?.('subscribe');
      await client.subscribe();
      if (this.stopRequested) return;
      probe?.('run');
      await client.run();
      if (this.current === 'starting') this.current = 'started';
    } catch (error) {
      throw this.classified(error);
    }
  }

  /** A startup error when the client reads `error` as one (a refused login, a missing ACL). */
  private classified(error: unknown): unknown {
    return this.made?.errors.fatal(error, consumingOperation(this.spec)) ?? error;
  }

  private async stopSteps(): Promise<void> {
    const { groupId } = this.spec;
    const closing = (async () => {
      await this.made?.interrupt?.();
      await this.starting?.catch(() => undefined);
      // A client made after the interrupt (its make was in flight) starts nothing: close it too.
      await this.made?.close();
    })();
    const bound = Math.min(this.deps.closeBoundMs ?? STOP_BOUND_MS, STOP_BOUND_MS);
    let outcome = await settledWithin(closing, bound);
    let reason = outcome === 'late' ? `disconnect of ${groupId} timed out after ${bound} ms` : '';
    if (outcome === 'late') {
      // The broker does not answer (or a close hangs): end it now, so nothing outlives stop().
      await Promise.resolve()
        .then(() => this.made?.cut())
        .catch(() => undefined);
      outcome = await settledWithin(closing, CUT_GRACE_MS);
      reason +=
        outcome === 'late' ? '; cutting its requests did not end it' : '; its requests were cut';
    }
    if (outcome instanceof Error) reason = errorMessage(outcome);
    this.current = 'stopped';
    if (reason)
      this.deps.logger.warn(`Broadcast consumer ${groupId} did not disconnect cleanly: ${reason}`, {
        group: groupId,
        reason,
      });
  }
}

/** 'done' once `work` resolved within `ms`, its error if it failed, 'late' if it had not settled. */
function settledWithin(work: Promise<void>, ms: number): Promise<'done' | 'late' | Error> {
  return new Promise((resolve) => {
    const timer = setTimeout(() => resolve('late'), ms);
    work.then(
      () => {
        clearTimeout(timer);
        resolve('done');
      },
      (error: unknown) => {
        clearTimeout(timer);
        resolve(asError(error));
      },
    );
  });
}
