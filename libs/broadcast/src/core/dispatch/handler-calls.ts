import type {
  HandlerObservation,
  HandlerOutcome,
} from '../../interfaces/broadcast-instrumentation.interface.js';
import type { BroadcastLogger } from '../../interfaces/broadcast-logger.interface.js';
import type { BroadcastMessage } from '../../interfaces/broadcast-message.interface.js';
import type { IncomingRecord } from '../../interfaces/kafka-port.interface.js';
import { errorMessage } from '../../shared/async.utils.js';
import { BackgroundWork } from '../../shared/background-work.js';
import { NO_INSTRUMENTATION } from '../../interfaces/no-instrumentation.js';
import type { RegisteredHandler } from './broadcast-handler.registry.js';
import { DEFAULT_MAX_PENDING_RETRIES } from '../options/failure-options.resolver.js';
import { type HandlerPolicy, retryDelay } from './handler-policy.js';
import { awaitBounded, type CallVerdicts, trackCall } from './handler-call-timeouts.js';
import { isThenable } from './incoming-message.js';
import type {
  Call,
  FailedAttempt,
  MessageOutcome,
  MessageSettled,
  HandlerCallsWiring,
  TrackedCall,
} from './handler-call.types.js';

export type { FailedAttempt, HandlerCallsWiring, MessageSettled } from './handler-call.types.js';
import { RetryScheduler } from './retry-scheduler.js';
import { reportFailure } from './handler-call-report.js';

/** The observation used when the instrumentation itself threw: the call runs unobserved. */
const UNOBSERVED: HandlerObservation = { run: (call) => call(), end: () => undefined };

/**
 * Calls a message's handlers, each observed (traces, metrics) and contained: a throw, a
 * rejection or a call still running after its handler's timeout is logged and counted as
 * failed, and never stops the other handlers or the messages after it. What surrounds a call
 * is contained too: an instrumentation or a logger that throws is counted in `internalErrors`,
 * and the other handlers still run.
 *
 * Failure policy: the first attempt of every handler runs while the caller (the partition)
 * waits, at most the handler's `timeoutMs`. A failed attempt of a handler with `retry` is
 * called again with the same message, in memory (nothing is read again, no position moves),
 * by the RetryScheduler in the background after its backoff: the messages after it go on
 * meanwhile, so a retried message may be handled after later ones. Once the last attempt
 * failed (or no retry could be taken: `maxPendingRetries`), the failure is final: logged,
 * counted `exhausted`, reported to the message's receipt and handed to the FailureOutlets
 * (hook, dead letter). Calls are never cancelled: a retry after a timeout may overlap the call
 * that timed out.
 */
export class HandlerCalls {
  /** Calls (attempts) that threw, rejected or timed out, retried ones included. */
  failed = 0;
  /** Attempts scheduled again after a failure. */
  retries = 0;
  /** Handlers of a message whose last attempt failed: final failures. */
  exhausted = 0;
  /** Failures not retried because `maxPendingRetries` retries were pending: final at once. */
  retriesShed = 0;
  /** The instrumentation or the logger threw around a handler call. */
  internalErrors = 0;
  /** Retries waiting for their time or running now (see RetryScheduler). */
  private readonly scheduler: RetryScheduler;
  /** Retries, hooks and dead letters under way: what a test waits for after the reads. */
  readonly background = new BackgroundWork();
  /** Told of every failed call (the testing helper lists them). */
  onFailedAttempt: ((failure: FailedAttempt) => void) | undefined;
  /** The policy of handlers registered without one. */
  private readonly defaultPolicy: HandlerPolicy;
  private readonly verdicts: CallVerdicts = {
    succeeded: (call, observed) => this.succeeded(call, observed),
    failed: (call, error, observed, outcome) => this.failedAttempt(call, error, observed, outcome),
  };

  constructor(
    timeoutMs: number,
    private readonly logger: BroadcastLogger,
    maxPendingRetries = DEFAULT_MAX_PENDING_RETRIES,
    /** Where final failures go (the hook and the dead-letter topic), and what traces calls. */
    private readonly wiring: HandlerCallsWiring = {},
  ) {
    this.defaultPolicy = { attempts: 1, backoffMs: 1, maxBackoffMs: 1, timeoutMs };
    this.scheduler = new RetryScheduler(maxPendingRetries, this.background);
  }

  /** Retries waiting for their time or running now. */
  get pendingRetries(): number {
    return this.scheduler.pending;
  }

  /** Waiting retries end as final failures; none is taken any more. */
  stop(): void {
    this.scheduler.stop();
  }

  /**
   * Runs the first attempt of every handler; resolves once each settled or timed out. With
   * `settled`, that is called once every handler has its FINAL outcome, retries included.
   */
  invoke(
    handlers: readonly RegisteredHandler[],
    message: BroadcastMessage,
    record: IncomingRecord,
    settled?: MessageSettled,
  ): void | Promise<void> {
    const outcome: MessageOutcome | undefined = settled && {
      open: handlers.length,
      failures: [],
      settled,
    };
    let pending: TrackedCall[] | undefined;
    for (const handler of handlers) {
      const policy = handler.policy ?? this.defaultPolicy;
      const running = this.attempt({ handler, policy, message, record, outcome, attempt: 1 });
      if (running) (pending ??= []).push(running);
    }
    if (pending) return awaitBounded(pending, this.verdicts);
  }

  /** Calls the handler once; returns the call while it still runs. */
  private attempt(call: Call): TrackedCall | undefined {
    const observed = this.observe(call.message, call.handler.name);
    let result: unknown;
    try {
      result = observed.run(() => call.handler.handle(call.message.payload, call.message));
    } catch (error) {
      this.failedAttempt(call, error, observed, 'failed');
      return undefined;
    }
    if (isThenable(result)) return trackCall(call, result, observed, this.verdicts);
    this.succeeded(call, observed);
    return undefined;
  }

  private observe(message: BroadcastMessage, handlerName: string): HandlerObservation {
    try {
      return (this.wiring.instrumentation?.() ?? NO_INSTRUMENTATION).handler(message, handlerName);
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

  private succeeded(call: Call, observed: HandlerObservation): void {
    this.end(observed, 'handled');
    this.settle(call.outcome);
  }

  /** One attempt failed: retried in the background when the policy and the bound allow. */
  private failedAttempt(
    call: Call,
    error: unknown,
    observed: HandlerObservation,
    outcome: 'failed' | 'timed-out',
  ): void {
    this.failed++;
    this.end(observed, outcome, error);
    const retried = call.attempt < call.policy.attempts && this.retryLater(call, error);
    try {
      const { handler, message, attempt } = call;
      this.onFailedAttempt?.({ handler: handler.name, message, attempt, final: !retried, error });
    } catch {
      this.internalErrors++;
    }
    if (call.attempt >= call.policy.attempts) this.exhaust(call, error);
  }

  /** Schedules the next attempt; when none can be taken, the failure is final at once. */
  private retryLater(call: Call, error: unknown): boolean {
    const delayMs = retryDelay(call.policy, call.attempt);
    const next: Call = { ...call, attempt: call.attempt + 1 };
    const stopped = () => new Error(`the engine stopped before attempt ${next.attempt}`);
    if (
      this.scheduler.schedule(delayMs, {
        run: () => this.retry(next),
        cancel: () => this.exhaust(call, stopped()),
      })
    ) {
      this.retries++;
      this.report('warn', call, error, `, retrying in ${delayMs} ms`);
      return true;
    }
    this.retriesShed++;
    this.exhaust(call, error, ' (not retried: maxPendingRetries reached)');
    return false;
  }

  private retry(call: Call): void | Promise<void> {
    const running = this.attempt(call);
    if (running) return awaitBounded([running], this.verdicts);
  }

  /** The handler's last attempt failed: final, reported to the receipt and the outlets. */
  private exhaust(call: Call, error: unknown, note = ''): void {
    this.exhausted++;
    this.report('error', call, error, note);
    const attempts = call.attempt > 1 ? ` (after ${call.attempt} attempts)` : '';
    call.outcome?.failures.push(`${call.handler.name}: ${errorMessage(error)}${attempts}`);
    this.settle(call.outcome);
    const { handler, message, record } = call;
    try {
      const outlets = this.wiring.outlets?.exhausted({
        handler: handler.name,
        message,
        record,
        error,
        attempts: call.attempt,
      });
      if (outlets) this.background.track(outlets);
    } catch {
      this.internalErrors++;
    }
  }

  /** One more handler of the message has its final outcome; the last one settles the message. */
  private settle(outcome: MessageOutcome | undefined): void {
    if (!outcome || --outcome.open > 0) return;
    try {
      outcome.settled(outcome.failures);
    } catch {
      this.internalErrors++;
    }
  }

  private report(level: 'warn' | 'error', call: Call, error: unknown, note: string): void {
    try {
      reportFailure(this.logger, level, call, error, note);
    } catch {
      this.internalErrors++;
    }
  }
}
