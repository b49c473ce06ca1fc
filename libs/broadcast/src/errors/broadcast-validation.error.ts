import { BroadcastMessages } from './broadcast.messages.js';

/** Thrown by publish() when the payload fails its definition's schema; nothing was sent. */
export class BroadcastValidationError extends Error {
  override readonly name = 'BroadcastValidationError';

  constructor(
    readonly topic: string,
    readonly issues: readonly string[],
  ) {
    super(BroadcastMessages.invalidPayload(topic, issues.join('; ')));
  }
}
