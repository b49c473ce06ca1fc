// The shapes HandlerCalls works with: one handler's call of one message, a message's outcome.
import type {
  BroadcastInstrumentation,
  HandlerObservation,
} from '../../interfaces/broadcast-instrumentation.interface.js';
import type { BroadcastMessage } from '../../interfaces/broadcast-message.interface.js';
import type { IncomingRecord } from '../../interfaces/kafka-port.interface.js';
import type { RegisteredHandler } from './broadcast-handler.registry.js';
import type { HandlerPolicy } from './handler-policy.js';
import type { FailureOutlets } from './failure-outlets.js';

/** One handler call that threw, rejected or timed out. */
export interface FailedAttempt {
  readonly handler: string;
  readonly message: BroadcastMessage;
  /** 1 for the first call. */
  readonly attempt: number;
  /** No retry follows: the failure went to the receipt, `onHandlerError` and the dead letter. */
  readonly final: boolean;
  readonly error: unknown;
}

/** Called once every handler of a message has its final outcome, with the failed ones. */
export type MessageSettled = (failures: readonly string[]) => void;

/** One handler's share of one message: the attempt under way. */
export interface Call {
  readonly handler: RegisteredHandler;
  readonly policy: HandlerPolicy;
  readonly message: BroadcastMessage;
  /** The record as received, kept for a dead letter. */
  readonly record: IncomingRecord;
  readonly outcome: MessageOutcome | undefined;
  /** 1 for the first call. */
  readonly attempt: number;
}

/** The handlers of a message still without a final outcome, and the failures so far. */
export interface MessageOutcome {
  open: number;
  readonly failures: string[];
  readonly settled: MessageSettled;
}

export type TrackedCall = Promise<void> & {
  state: { settled: boolean };
  call: Call;
  observed: HandlerObservation;
};

/** What the engine hands the handler calls when it builds them. */
export interface HandlerCallsWiring {
  /** Where final failures go: the hook and the dead-letter topic. */
  outlets?: FailureOutlets;
  /** Traces and counts handler calls; read at each call, since telemetry loads in the background. */
  instrumentation?: () => BroadcastInstrumentation;
}
