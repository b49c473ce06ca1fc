import { carriedUserData, consumerClientId, rosterMembers } from './confluent-member-client-id.js';
import type { GroupDescription } from './confluent-library.js';

const INFO = JSON.stringify({ nkb: 1, id: 'pod ä/1.x', v: '0.1.0', since: 1 });

describe('the member info a consumer client id carries', () => {
  it('round-trips any info, unique per consumer, in characters brokers take as they are', () => {
    const [a, b] = [consumerClientId('app.api', INFO), consumerClientId('app.api', INFO)];
    expect(a).not.toBe(b);
    expect(a).toMatch(/^app\.api-[0-9a-f]{12}\.[A-Za-z0-9_-]+$/);
    expect(carriedUserData(a)).toBe(INFO);
  });

  it('carries nothing without info, nor for foreign client ids', () => {
    expect(carriedUserData(consumerClientId('app', undefined))).toBeUndefined();
    for (const foreign of ['rdkafka', 'app-0123456789ab', 'app.eyJh', '', undefined])
      expect(carriedUserData(foreign)).toBeUndefined();
  });

  it('lists each member with its info and the topics of its (target) assignment', () => {
    const member = (clientId: string, topics: string[], target: string[] = []) => ({
      clientId,
      memberId: `m-${clientId}`,
      assignment: { topicPartitions: topics.map((topic) => ({ topic, partition: 0 })) },
      targetAssignment: { topicPartitions: target.map((topic) => ({ topic, partition: 0 })) },
    });
    const group = {
      groupId: 'p.c-0',
      members: [member(consumerClientId('app', INFO), ['t1'], ['t1', 't2']), member('x', [])],
    } as unknown as GroupDescription;
    expect(rosterMembers([group])).toEqual([
      { groupId: 'p.c-0', memberId: expect.any(String), topics: ['t1', 't2'], userData: INFO },
      { groupId: 'p.c-0', memberId: 'm-x', topics: [], userData: undefined },
    ]);
  });
});
