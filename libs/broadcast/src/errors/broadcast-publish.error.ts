import { BroadcastMessages } from './broadcast.messages.js';

/** Thrown by publish() for an option it cannot use; nothing was sent. */
export class BroadcastPublishError extends Error {
  override readonly name = 'BroadcastPublishError';

  constructor(
    readonly option: string,
    readonly accepted: string,
    got: unknown,
  ) {
    super(BroadcastMessages.invalidPublishOption(option, accepted, got));
  }
}
