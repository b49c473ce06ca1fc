import { isInstanceIdHeldError } from '../../errors/instance-id-held.error.js';
import type { MembershipVerdict } from './membership.types.js';

/**
 * What a crash of a membership's consumer says about its group. A join the broker refused
 * because a member holds the group's instance id (KIP-848) is a group held by that member: by
 * another instance's (or one the broker did not name), the group is someone else's, as if its
 * member had been seen in it (`foreign`: the allocation draws another id, the reader gives the
 * group up instead of rejoining it forever); by an earlier member of this instance that the
 * broker still holds, a failure like any other (the rejoin is tried again once it is gone).
 */
export function crashVerdict(error: Error, ownMemberIds: ReadonlySet<string>): MembershipVerdict {
  if (!isInstanceIdHeldError(error)) return { kind: 'failed', error };
  const holder = error.holderMemberId;
  if (holder !== undefined && ownMemberIds.has(holder)) return { kind: 'failed', error };
  const memberIds = [holder ?? `the holder of instance id ${error.instanceId}`];
  return { kind: 'foreign', memberIds, refusal: error.message };
}
