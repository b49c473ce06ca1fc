import type {
  BroadcastInstrumentation,
  HandlerObservation,
  HandlerOutcome,
} from '../interfaces/broadcast-instrumentation.interface.js';
import type { BroadcastLogger } from '../interfaces/broadcast-logger.interface.js';
import type { BroadcastMessage } from '../interfaces/broadcast-message.interface.js';
import { errorMessage } from '../shared/async.utils.js';
import { NO_INSTRUMENTATION } from '../telemetry/no-instrumentation.js';
import type { RegisteredHandler } from './broadcast-handler.registry.js';
import { isThenable } from './incoming-message.js';

/** The observation used when the instrumentation itself threw: the call runs unobserved. */
const UNOBSERVED: HandlerObservation = { run: (call) => call(), end: () => undefined };

/**
 * Calls a message's handlers, each observed (traces, metrics) and contained: a throw, a
 * rejection or a handler still running after `timeoutMs` is logged and counted as failed, and
 * never stops the other handlers or the messages after it. What surrounds a call is contained
 * too: an instrumentation or a logger that throws is counted in `internalErrors`, and the
 * other handlers still run.
 */
export class HandlerCalls {
  failed = 0;
  /** The instrumentation or the logger threw around a handler call. */
  internalErrors = 0;
  /** Traces and counts handler calls (set by the engine once telemetry is loaded). */
  instrumentation: BroadcastInstrumentation = NO_INSTRUMENTATION;
  /** Handler failures of messages whose caller wants them (receipts), by message. */
  readonly failuresOf = new WeakMap<BroadcastMessage, string[]>();

  constructor(
    private readonly timeoutMs: number,
    private readonly logger: BroadcastLogger,
  ) {}

  invoke(handlers: readonly RegisteredHandler[], message: BroadcastMessage): void | Promise<void> {
    let pending: Promise<void>[] | undefined;
    for (const handler of handlers) {
      const observed = this.observe(message, handler.name);
      let result: unknown;
      try {
        result = observed.run(() => handler.handle(message.payload, message));
      } catch (error) {
        this.fail(handler, message, error, observed);
        continue;
      }
      if (isThenable(result)) (pending ??= []).push(this.track(handler, message, result, observed));
      else this.end(observed, 'handled');
    }
    if (pending) return this.awaitBounded(pending);
  }

  private observe(message: BroadcastMessage, handlerName: string): HandlerObservation {
    try {
      return this.instrumentation.handler(message, handlerName);
    } catch {
      this.internalErrors++;
      return UNOBSERVED;
    }
  }

  private end(observed: HandlerObservation, outcome: HandlerOutcome, error?: unknown): void {
    try {
      observed.end(outcome, error);
    } catch {
      this.internalErrors++;
    }
  }

  /** Marks the call settled so a late rejection after a timeout is not counted twice. */
  private track(
    handler: RegisteredHandler,
    message: BroadcastMessage,
    result: PromiseLike<unknown>,
    observed: HandlerObservation,
  ) {
    const call = { settled: false };
    const done = Promise.resolve(result).then(
      () => {
        if (!call.settled) this.end(observed, 'handled');
        call.settled = true;
      },
      (error: unknown) => {
        if (!call.settled) this.fail(handler, message, error, observed);
        call.settled = true;
      },
    );
    return Object.assign(done, { call, handler, message, observed });
  }

  private async awaitBounded(pending: Promise<void>[]): Promise<void> {
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<void>((resolve) => (timer = setTimeout(resolve, this.timeoutMs)));
    await Promise.race([Promise.all(pending), timeout]);
    clearTimeout(timer);
    for (const p of pending as TrackedCall[]) {
      if (p.call.settled) continue;
      p.call.settled = true;
      this.fail(
        p.handler,
        p.message,
        new Error(`timed out after ${this.timeoutMs} ms`),
        p.observed,
        'timed-out',
      );
    }
  }

  private fail(
    handler: RegisteredHandler,
    message: BroadcastMessage,
    error: unknown,
    observed: HandlerObservation,
    outcome: 'failed' | 'timed-out' = 'failed',
  ): void {
    this.failed++;
    this.failuresOf.get(message)?.push(`${handler.name}: ${errorMessage(error)}`);
    this.end(observed, outcome, error);
    const where = `${message.topic}[${message.partition}]@${message.offset}`;
    try {
      this.logger.error(
        `Broadcast handler ${handler.name} failed on ${where}: ${errorMessage(error)}`,
        error instanceof Error ? error.stack : undefined,
        {
          topic: message.topic,
          partition: message.partition,
          offset: message.offset,
          handler: handler.name,
          reason: errorMessage(error),
        },
      );
    } catch {
      this.internalErrors++;
    }
  }
}

type TrackedCall = Promise<void> & {
  call: { settled: boolean };
  handler: RegisteredHandler;
  message: BroadcastMessage;
  observed: HandlerObservation;
};
