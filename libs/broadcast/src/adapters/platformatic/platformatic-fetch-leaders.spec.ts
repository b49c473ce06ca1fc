import { fetchRetryDelay, leaderMoved, unreachable } from './platformatic-fetch-leaders.js';

const answered = (apiId: string) =>
  Object.assign(new Error('fetch failed'), { errors: [{ apiId, canRetry: true }] });
const refused = () => Object.assign(new Error('connect ECONNREFUSED'), { code: 'ECONNREFUSED' });

describe('fetch leaders', () => {
  it('reads a moved leader from the broker error or from the old leader refusing', () => {
    for (const apiId of [
      'NOT_LEADER_OR_FOLLOWER',
      'LEADER_NOT_AVAILABLE',
      'FENCED_LEADER_EPOCH',
      'UNKNOWN_LEADER_EPOCH',
    ])
      expect(leaderMoved(answered(apiId))).toBe(true);
    expect(leaderMoved(refused())).toBe(true);
    expect(leaderMoved(answered('UNKNOWN_TOPIC_OR_PARTITION'))).toBe(false);
    expect(unreachable(refused())).toBe(true);
    expect(unreachable(answered('NOT_LEADER_OR_FOLLOWER'))).toBe(false);
  });

  it("retries a fetch whose leader moved or whose session the broker forgot at once, then after 100 ms doubling to 1 s; everything else waits the client's delay", () => {
    let atOnce = 0;
    const delay = fetchRetryDelay(undefined, () => atOnce++);
    const moved = answered('NOT_LEADER_OR_FOLLOWER');
    expect(delay({}, 'fetch', 1, 3, moved)).toBe(0);
    expect([2, 3, 4, 5, 6].map((attempt) => delay({}, 'fetch', attempt, 6, moved))).toEqual([
      100, 200, 400, 800, 1_000,
    ]);
    expect(delay({}, 'fetch', 2, 3, refused())).toBe(100);
    // The broker restarted since the session began (or evicted it): a full fetch, at once.
    expect(delay({}, 'fetch', 1, 3, answered('FETCH_SESSION_ID_NOT_FOUND'))).toBe(0);
    expect(delay({}, 'fetch', 1, 3, answered('INVALID_FETCH_SESSION_EPOCH'))).toBe(0);
    expect(delay({}, 'fetch', 2, 3, answered('FETCH_SESSION_ID_NOT_FOUND'))).toBe(100);
    expect(delay({}, 'fetch', 1, 3, refused())).toBe(0);
    expect(delay({}, 'metadata', 1, 3, moved)).toBe(1_000);
    expect(delay({}, 'fetch', 1, 3, answered('UNKNOWN_TOPIC_OR_PARTITION'))).toBe(1_000);
    expect(atOnce).toBe(4);
    expect(fetchRetryDelay(250)({}, 'fetch', 2, 3, answered('UNKNOWN_TOPIC_OR_PARTITION'))).toBe(
      250,
    );
    expect(fetchRetryDelay((_c, _o, attempt) => attempt * 7)({}, 'join', 3, 3, moved)).toBe(21);
  });
});
