import type { BroadcastInstrumentation } from '../../interfaces/broadcast-instrumentation.interface.js';
import type { DispatchGate } from './dispatch-gate.js';
import type { FailureOutlets } from './failure-outlets.js';

/** What the engine hands the dispatcher when it builds it: nothing is set on it afterwards. */
export interface DispatcherWiring {
  /** Targeting, validation and receipts, before any handler. */
  gate?: DispatchGate;
  /** Where a handler's final failure goes: `onHandlerError` and the dead-letter topic. */
  outlets?: FailureOutlets;
  /** Whether a heartbeat record was in the log before the start (see NewestHeartbeat). */
  heartbeatFromBeforeStart?: (partition: number, offset: string) => boolean;
  /** Traces and counts handler calls; read at each call, since telemetry loads in the background. */
  instrumentation?: () => BroadcastInstrumentation;
}

/** The dispatcher's counters at one moment (see BroadcastStatus for each one's meaning). */
export interface DispatchCounters {
  received: number;
  heartbeats: number;
  /** When the latest heartbeat record was handed over, in this host's clock. */
  lastHeartbeatAt: number | undefined;
  /** The latest heartbeat record's own timestamp, in its sender's clock (not clamped). */
  lastHeartbeatTimestamp: number | undefined;
  /** The newest record timestamp seen, each clamped to the local receive time. */
  newestTimestamp: number | undefined;
  failed: number;
  skipped: number;
  filtered: number;
  invalid: number;
  refused: number;
  internalErrors: number;
  retries: number;
  exhausted: number;
  retriesShed: number;
  retriesPending: number;
  deadLettered: number;
  deadLetterFailures: number;
  hookFailures: number;
  passedOver: number;
  rewinds: number;
}
