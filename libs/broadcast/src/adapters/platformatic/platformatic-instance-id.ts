import { InstanceIdHeldError } from '../../errors/instance-id-held.error.js';
import { chainOf } from './platformatic-errors.js';

/**
 * The broker's answer to a KIP-848 join whose static instance id an active member holds
 * (Apache Kafka GroupMetadataManager.throwIfInstanceIdIsUnreleased). The id is free again once
 * its holder left (epoch -1), or the holder's session ended; after a temporary leave (epoch -2)
 * a join with the same id takes the holder's place and partitions.
 */
export const UNRELEASED_INSTANCE_ID = 'UNRELEASED_INSTANCE_ID';

/**
 * The refusal as the engine reads it, with the holder's member id when the broker's message
 * names it ("… because the instance id is owned by <member id> member.").
 */
export function instanceIdHeld(
  groupId: string,
  instanceId: string,
  error: unknown,
): InstanceIdHeldError {
  const said = [...chainOf(error)].find((e) => e.apiId === UNRELEASED_INSTANCE_ID);
  const holder = /owned by (?:member )?(\S+?)(?: member)?\.?$/.exec(
    said?.serverErrorMessage ?? '',
  )?.[1];
  return new InstanceIdHeldError(groupId, instanceId, holder, { cause: error });
}
