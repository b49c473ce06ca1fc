import { Reader, Writer } from '@platformatic/kafka';
import { hasProtocolError } from './platformatic-errors.js';
import { deleteGroupAtCoordinator, parseResponse } from './platformatic-group-delete.js';
import { PlatformaticCoordinators } from './platformatic-coordinators.js';
import type { Admin } from '@platformatic/kafka';

/** A DeleteGroups v2 response body: each group with its error code. */
function response(results: [string, number][]): Reader {
  return Reader.from(
    Writer.create()
      .appendInt32(0)
      .appendArray(results, (w, [groupId, code]) => w.appendString(groupId).appendInt16(code))
      .appendTaggedFields(),
  );
}

describe('DeleteGroups v2, sent by the adapter', () => {
  it('reads deleted, not there and still in use as answers, one per group', () => {
    const codes = parseResponse(
      0,
      42,
      2,
      response([
        ['a', 0],
        ['b', 69],
        ['c', 68],
      ]),
    );
    expect([...codes]).toEqual([
      ['a', 0],
      ['b', 69],
      ['c', 68],
    ]);
  });

  it('throws any other group error as the client does (the coordinator moved: NOT_COORDINATOR)', () => {
    let thrown: unknown;
    try {
      parseResponse(0, 42, 2, response([['a', 16]]));
    } catch (error) {
      thrown = error;
    }
    expect(hasProtocolError(thrown, 'NOT_COORDINATOR')).toBe(true);
  });

  it("leaves the delete to the client's own call where the broker does not take v2", () => {
    const admin = {} as Admin;
    const coordinators = new PlatformaticCoordinators(admin);
    const older = [{ apiKey: 42, maxVersion: 1 }];
    expect(deleteGroupAtCoordinator(admin, coordinators, older, 'g')).toBeUndefined();
    expect(deleteGroupAtCoordinator(admin, coordinators, undefined, 'g')).toBeUndefined();
  });
});
