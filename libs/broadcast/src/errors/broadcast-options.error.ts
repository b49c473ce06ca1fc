import { BroadcastMessages } from './broadcast.messages.js';

/** Thrown at startup when an option is missing, out of range or unknown (a misspelled key). */
export class BroadcastOptionsError extends Error {
  override readonly name = 'BroadcastOptionsError';

  constructor(
    readonly option: string,
    readonly accepted: string,
    got: unknown,
    message = BroadcastMessages.invalidOption(option, accepted, got),
  ) {
    super(message);
  }

  /** A key the options do not have; `meant` is the known key it is closest to, if any is close. */
  static unknownKey(
    option: string,
    meant: string | undefined,
    known: readonly string[],
  ): BroadcastOptionsError {
    return new BroadcastOptionsError(
      option,
      `one of ${known.join(', ')}`,
      undefined,
      BroadcastMessages.unknownOption(option, meant, known),
    );
  }
}
