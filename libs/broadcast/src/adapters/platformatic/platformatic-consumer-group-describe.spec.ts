import { consumerGroupDescribeV0, Reader, Writer } from '@platformatic/kafka';
import { parseResponse } from './platformatic-consumer-group-describe.js';

const TOPIC_ID = '4a4e92d1-3c71-4ecd-8b7f-488d75b67351';

/** A ConsumerGroupDescribe v0 response body as Apache Kafka 4.4 writes it: one group, one member. */
function response(errorCode = 0): Writer {
  const assignment = (w: Writer) =>
    w
      .appendArray([{ id: TOPIC_ID, name: 'news', partitions: [0, 1, 2] }], (t, tp) =>
        t
          .appendUUID(tp.id)
          .appendString(tp.name)
          .appendArray(tp.partitions, (p, n) => p.appendInt32(n), true, false),
      )
      .appendTaggedFields();
  return Writer.create()
    .appendInt32(0)
    .appendArray([0], (g) =>
      g
        .appendInt16(errorCode)
        .appendString(null)
        .appendString('group-1')
        .appendString('stable')
        .appendInt32(3)
        .appendInt32(3)
        .appendString('uniform')
        .appendArray(['member-1'], (m, id) => {
          m.appendString(id)
            .appendString(null)
            .appendString('{"nkb":1,"id":"a"}')
            .appendInt32(3)
            .appendString('client-1')
            .appendString('/127.0.0.1')
            .appendArray(['news', 'receipts'], (t, name) => t.appendString(name), true, false)
            .appendString(null);
          assignment(m);
          assignment(m);
        })
        .appendInt32(-2147483648),
    )
    .appendTaggedFields();
}

describe('ConsumerGroupDescribe v0 parsing', () => {
  it('reads the members of a group (their ids, rack ids, client ids and hosts, subscribed topics)', () => {
    const { groups } = parseResponse(0, 69, 0, Reader.from(response()));
    expect(groups).toEqual([
      {
        errorCode: 0,
        errorMessage: null,
        groupId: 'group-1',
        groupState: 'stable',
        members: [
          {
            memberId: 'member-1',
            rackId: '{"nkb":1,"id":"a"}',
            clientId: 'client-1',
            clientHost: '/127.0.0.1',
            subscribedTopicNames: ['news', 'receipts'],
          },
        ],
      },
    ]);
  });

  it("agrees with the client's own parser where that parser works (2.12; 1.35 fails on these bytes)", () => {
    // The peer range takes both lines: 1.35's parser throws "Out of bounds" on every group with a
    // member, 2.12's reads it. Ours serves both; where the client's works, both must agree.
    let theirs: unknown;
    try {
      theirs = consumerGroupDescribeV0.parseResponse(0, 69, 0, Reader.from(response()));
    } catch (error) {
      expect(String(error)).toMatch(/Out of bounds|out of range/i);
      return;
    }
    const ours = parseResponse(0, 69, 0, Reader.from(response()));
    const member = (theirs as { groups: { members: Record<string, unknown>[] }[] }).groups[0]
      ?.members[0];
    expect(member).toMatchObject({
      memberId: ours.groups[0]?.members[0]?.memberId,
      rackId: ours.groups[0]?.members[0]?.rackId,
      subscribedTopicNames: ours.groups[0]?.members[0]?.subscribedTopicNames,
    });
  });

  it('throws the errors other than GROUP_ID_NOT_FOUND (e.g. UNSUPPORTED_VERSION) as the client does', () => {
    expect(() => parseResponse(0, 69, 0, Reader.from(response(35)))).toThrow();
    expect(parseResponse(0, 69, 0, Reader.from(response(69))).groups[0]?.errorCode).toBe(69);
  });
});
