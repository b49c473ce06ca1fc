import type { BroadcastMessage } from './broadcast-message.interface.js';
import type { BroadcastStatus } from './broadcast-status.interface.js';

/** How one handler invocation ended. */
export type HandlerOutcome = 'handled' | 'failed' | 'timed-out';

/** One publish being observed; ended once the broker acknowledged it or refused it. */
export interface PublishObservation {
  end(error?: unknown): void;
}

/** One handler invocation being observed. */
export interface HandlerObservation {
  /** Runs the handler inside the observation's context, so the handler's own spans nest under it. */
  run<T>(call: () => T): T;
  end(outcome: HandlerOutcome, error?: unknown): void;
}

/**
 * Hooks the engine calls around publishes and handler invocations (traces, metrics).
 * The default does nothing; the OpenTelemetry one lives in ../telemetry. Heartbeats are
 * never observed.
 */
export interface BroadcastInstrumentation {
  /** A publish starts; may add headers (W3C trace context) to the mutable `headers`. */
  publish(fullTopic: string, headers: Record<string, string>): PublishObservation;
  /** A handler is about to be called with a parsed message. */
  handler(message: BroadcastMessage, handlerName: string): HandlerObservation;
  /** The engine stopped: release what was registered (observable callbacks). */
  close?(): void;
}

/** Which signals the OpenTelemetry instrumentation records (the `telemetry` option, resolved). */
export interface TelemetrySignals {
  /** A PRODUCER span per publish (with W3C trace headers) and a CONSUMER span per handler call. */
  readonly traces: boolean;
  /** The broadcast.* instruments. */
  readonly metrics: boolean;
}

/** What an instrumentation may read from the engine, for gauges and span attributes. */
export interface BroadcastTelemetrySource {
  readonly instanceId: string;
  readonly topicPrefix: string;
  groupId(): string | undefined;
  status(): BroadcastStatus;
  heartbeats(): { sent: number; received: number };
  /** The pool the reader claims from (`<prefix><base>`, in the current lock mode) and its size. */
  pool?(): { name: string; maxGroups: number };
  /** health.maxStalenessMs; undefined with heartbeat: false (staleness is then unbounded). */
  readonly maxStalenessMs?: number;
}
