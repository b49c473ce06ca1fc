import type { BroadcastLogger } from '../../interfaces/broadcast-logger.interface.js';
import type { GroupConsumerSpec } from '../../interfaces/kafka-port.interface.js';
import { errorMessage, withTimeout } from '../../shared/async.utils.js';
import type { KafkaOperation } from './adapter-types.js';
import { consumingOperation } from './kafka-operations.js';

/** How long a stop may take before it gives up waiting (and logs that it did). */
export const STOP_BOUND_MS = 30_000;

/** Where a group consumer is, whatever its client; changed only by the lifecycle below. */
export type GroupConsumerPhase = 'new' | 'starting' | 'started' | 'crashed' | 'stopping';

/** The steps of a start, in order; each runs only if no stop was asked before it. */
export interface StartSteps {
  /** Makes the client and reaches the broker (a refused login or an unreachable broker fails here). */
  connect(): Promise<void>;
  /** Tells the client the topics. */
  subscribe(): Promise<void> | void;
  /** Starts fetching and joining (a client may wait for the join here). */
  run(): Promise<void> | void;
}

/** The steps of a stop. */
export interface StopSteps {
  /** At once, before a start in flight settles: what makes it settle sooner. */
  interrupt?(): Promise<void> | void;
  /** Once the start settled: stop fetching, leave the group, close. */
  close(): Promise<void>;
}

/** What a lifecycle needs besides its steps. */
export interface LifecycleDeps {
  logger: BroadcastLogger;
  /** The client's reading of an error as a startup error (a refused login, a missing ACL). */
  errors?: { fatal(error: unknown, operation: KafkaOperation): Error | undefined };
  /** A test hook (the adapter's options): called with 'connect', 'subscribe' and 'run'. */
  probe?: (step: string) => void;
}

/**
 * The lifecycle every adapter's group consumer shares (the contract's fact 6 and the crash fact,
 * libs/broadcast/docs/PORT-CONTRACT.md): start once; a stop at any moment waits for the start in
 * flight (each later step is skipped), is idempotent and bounded; a crash is reported once, and
 * never after a stop was asked. What differs per client are the steps.
 */
export class GroupConsumerLifecycle {
  private current: GroupConsumerPhase = 'new';
  private starting: Promise<void> | undefined;
  private stopping: Promise<void> | undefined;

  constructor(
    private readonly spec: GroupConsumerSpec,
    private readonly deps: LifecycleDeps,
  ) {}

  get phase(): GroupConsumerPhase {
    return this.current;
  }

  /** True once stop() was called: nothing new (a join, a report) may begin. */
  get stopRequested(): boolean {
    return this.current === 'stopping';
  }

  start(steps: StartSteps): Promise<void> {
    this.starting ??= this.run(steps).catch((error: unknown) => {
      throw this.deps.errors?.fatal(error, consumingOperation(this.spec)) ?? error;
    });
    return this.starting;
  }

  stop(steps: StopSteps): Promise<void> {
    this.current = 'stopping';
    this.stopping ??= withTimeout(
      this.stopSteps(steps),
      STOP_BOUND_MS,
      `disconnect of ${this.spec.groupId}`,
    ).catch((error: unknown) =>
      this.deps.logger.warn(
        `Broadcast consumer ${this.spec.groupId} did not disconnect cleanly: ${errorMessage(error)}`,
        { group: this.spec.groupId, reason: errorMessage(error) },
      ),
    );
    return this.stopping;
  }

  /**
   * The consumer stopped on an error and will not restart: `halt` stops the client's own parts,
   * the listener hears it once. Ignored after a stop was asked (the stop explains it).
   */
  crashed(error: unknown, halt?: () => void): void {
    if (this.current === 'stopping' || this.current === 'crashed') return;
    this.current = 'crashed';
    halt?.();
    const cause = error instanceof Error ? error : new Error(errorMessage(error));
    this.spec.listener.crashed(
      this.deps.errors?.fatal(cause, consumingOperation(this.spec)) ?? cause,
    );
  }

  private async run(steps: StartSteps): Promise<void> {
    this.current = 'starting';
    const { probe } = this.deps;
    probe?.('connect');
    await steps.connect();
    if (this.stopRequested) return;
    probe?.('subscribe');
    await steps.subscribe();
    if (this.stopRequested) return;
    probe?.('run');
    await steps.run();
    if (this.current === 'starting') this.current = 'started';
  }

  private async stopSteps(steps: StopSteps): Promise<void> {
    await steps.interrupt?.();
    await this.starting?.catch(() => undefined);
    await steps.close();
  }
}
