import { BroadcastMessages } from './broadcast.messages.js';

/** Thrown at startup when an option is missing or out of range. */
export class BroadcastOptionsError extends Error {
  override readonly name = 'BroadcastOptionsError';

  constructor(
    readonly option: string,
    readonly accepted: string,
    got: unknown,
  ) {
    super(BroadcastMessages.invalidOption(option, accepted, got));
  }
}
