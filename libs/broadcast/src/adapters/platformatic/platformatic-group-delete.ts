import * as client from '@platformatic/kafka';
import { createAPI, ResponseError, type Admin, type Reader } from '@platformatic/kafka';
import type { DeleteGroupOutcome } from '../../interfaces/kafka-port.interface.js';
import type { BrokerApi } from './platformatic-consumer-group-describe.js';
import type { PlatformaticCoordinators } from './platformatic-coordinators.js';

const DELETE_GROUPS = 42;
const NON_EMPTY_GROUP = 68;
const GROUP_ID_NOT_FOUND = 69;

/**
 * DeleteGroups v2's request, from the client's own API module (exported by the 2.x line): looked
 * up at run time, so that a client without it leaves the delete to its Admin.
 */
const createRequest = (
  client as unknown as { deleteGroupsV2?: { createRequest?: (groups: string[]) => unknown } }
).deleteGroupsV2?.createRequest;

/**
 * The response, parsed here: a group that is not there or still has members is an answer, not an
 * error (the client throws for both, and a fresh pool group is not there at every start); any
 * other group error is thrown as the client throws it, for the adapter's error reading.
 */
export function parseResponse(
  _correlationId: number,
  apiKey: number,
  apiVersion: number,
  reader: Reader,
): Map<string, number> {
  reader.readInt32(); // throttle_time_ms
  const codes = new Map<string, number>();
  const errors: [string, [number, null]][] = [];
  reader.readArray((r, i) => {
    const groupId = r.readString();
    const errorCode = r.readInt16();
    codes.set(groupId, errorCode);
    if (errorCode !== 0 && errorCode !== NON_EMPTY_GROUP && errorCode !== GROUP_ID_NOT_FOUND)
      errors.push([`/results/${i}`, [errorCode, null]]);
  });
  reader.readTaggedFields();
  if (errors.length > 0)
    throw new ResponseError(apiKey, apiVersion, Object.fromEntries(errors), { codes });
  return codes;
}

const deleteGroups =
  createRequest &&
  createAPI<[string[]], Map<string, number>>(
    DELETE_GROUPS,
    2,
    createRequest as never,
    parseResponse,
  );

/**
 * A delete of one group sent to its coordinator as the describes and the KIP-848 heartbeats find
 * it (PlatformaticCoordinators), where the broker takes DeleteGroups v2: the client's own call
 * looked the coordinator up again, so a start with a delete asked FindCoordinator twice for its
 * group (issue #39: client CPU per start follows its requests). `undefined` where this path is not
 * available (the caller then uses the client's call).
 */
export function deleteGroupAtCoordinator(
  admin: Admin,
  coordinators: PlatformaticCoordinators,
  apis: readonly BrokerApi[] | undefined,
  groupId: string,
): Promise<DeleteGroupOutcome> | undefined {
  const version = apis?.find((api) => api.apiKey === DELETE_GROUPS)?.maxVersion ?? -1;
  if (!deleteGroups || version < 2) return undefined;
  return coordinators.request(groupId, async (coordinator) => {
    const connection = await admin.connections.get(coordinator);
    const code = (await deleteGroups.async(connection, [groupId])).get(groupId);
    if (code === NON_EMPTY_GROUP) return 'non-empty';
    if (code === GROUP_ID_NOT_FOUND) return 'not-found';
    return 'deleted';
  });
}
