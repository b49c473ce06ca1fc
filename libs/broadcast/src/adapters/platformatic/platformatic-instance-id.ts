/**
 * The broker's answer to a KIP-848 join whose static instance id an active member holds
 * (Apache Kafka GroupMetadataManager.throwIfInstanceIdIsUnreleased). The id is free again once
 * its holder left (epoch -1), or the holder's session ended; after a temporary leave (epoch -2)
 * a join with the same id takes the holder's place and partitions.
 */
export const UNRELEASED_INSTANCE_ID = 'UNRELEASED_INSTANCE_ID';

/**
 * The broker refused the join (UNRELEASED_INSTANCE_ID): an active member holds this group's
 * instance id. For the engine a refusal like any failed join: it draws another group.
 */
export class InstanceIdHeldError extends Error {
  constructor(groupId: string, instanceId: string, cause: unknown) {
    super(
      `instance id ${instanceId} of ${groupId} is held by another member (UNRELEASED_INSTANCE_ID): the broker refused this member`,
      { cause },
    );
    this.name = 'InstanceIdHeldError';
  }
}
