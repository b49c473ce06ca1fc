import { BroadcastMessages } from './broadcast.messages.js';

/**
 * Thrown when the engine cannot start because of its environment rather than its options:
 * Kafka unreachable, a refused login or certificate, a missing ACL, an unreachable lock
 * database. `option` names what to check (`kafka.brokers`, `kafka.sasl`, `kafka.ssl`,
 * `kafka ACLs`, `lock.dataSource`). Retrying cannot fix these, so the allocator does not walk
 * the group pool over them.
 */
export class BroadcastStartupError extends Error {
  override readonly name = 'BroadcastStartupError';

  constructor(
    readonly option: string,
    message: string,
  ) {
    super(message);
  }

  /** The broker denied an operation for lack of an ACL. */
  static missingAcl(operation: string, resourceType: string, resource: string, acl: string) {
    return new BroadcastStartupError(
      'kafka ACLs',
      BroadcastMessages.missingAcl(operation, resourceType, resource, acl),
    );
  }
}

/** True for errors that retrying cannot fix (see BroadcastStartupError). */
export function isBroadcastStartupError(error: unknown): error is BroadcastStartupError {
  return error instanceof BroadcastStartupError;
}
