/**
 * A join the broker refused because an active member holds the group's static instance id
 * (KIP-848: UNRELEASED_INSTANCE_ID). Thrown by an adapter that sends the instance id of
 * GroupConsumerSpec; the engine reads it as "this group is held": by a member of another
 * instance (the group is given up at once, as when one is seen in the group), or by an earlier
 * member of its own that the broker still holds (the join is tried again once it is gone).
 */
export class InstanceIdHeldError extends Error {
  override readonly name = 'InstanceIdHeldError';

  constructor(
    readonly groupId: string,
    readonly instanceId: string,
    /** The holder's member id, when the broker named it. */
    readonly holderMemberId: string | undefined,
    options?: ErrorOptions,
  ) {
    super(
      `instance id ${instanceId} of ${groupId} is held by ${holderMemberId ? `member ${holderMemberId}` : 'another member'} (UNRELEASED_INSTANCE_ID): the broker refused this member`,
      options,
    );
  }
}

export function isInstanceIdHeldError(error: unknown): error is InstanceIdHeldError {
  return error instanceof InstanceIdHeldError;
}
