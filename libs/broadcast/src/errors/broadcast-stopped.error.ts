import { BroadcastMessages } from './broadcast.messages.js';

/**
 * What start() rejects with when stop() was called before the engine became ready (a shutdown
 * during start-up, e.g. SIGTERM while the pool is full): start-up was cancelled, nothing failed.
 * An app that stops on a signal can recognise it (`instanceof`, or `error.name`) and exit
 * quietly; BroadcastModule does so itself when Nest shuts down on a signal.
 */
export class BroadcastStoppedError extends Error {
  override readonly name = 'BroadcastStoppedError';

  constructor() {
    super(BroadcastMessages.stopped());
  }
}

/** True for the outcome of a start() that stop() cancelled. */
export function isBroadcastStoppedError(error: unknown): error is BroadcastStoppedError {
  return error instanceof BroadcastStoppedError;
}
