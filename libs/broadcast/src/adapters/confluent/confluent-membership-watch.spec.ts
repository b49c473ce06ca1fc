import type { OwnMember } from './confluent-admin.js';
import { ConfluentMembershipWatch } from './confluent-membership-watch.js';

/** A watch over a scripted sequence of answers (the last one repeats), every 5 ms. */
function watchOf(answers: (OwnMember | undefined | Error)[]) {
  const told: OwnMember[] = [];
  let n = 0;
  const watch = new ConfluentMembershipWatch(
    async () => {
      const a = answers[Math.min(n++, answers.length - 1)];
      if (a instanceof Error) throw a;
      return a;
    },
    5,
    (member) => {
      told.push(member);
      watch.seen(member);
    },
  );
  return { watch, told, asked: () => n };
}

const m = (memberId: string, ...others: string[]): OwnMember => ({
  memberId,
  memberIds: [memberId, ...others],
});

async function until(done: () => boolean) {
  for (const at = Date.now(); !done();) {
    if (Date.now() - at > 2_000) throw new Error('not in 2 s');
    await new Promise((r) => setTimeout(r, 5));
  }
}

describe('ConfluentMembershipWatch (KIP-848 membership changes no rebalance tells)', () => {
  it('tells the first listing and every change of the member set, once each, in any order of ids', async () => {
    const { watch, told, asked } = watchOf([
      undefined,
      new Error('coordinator moving'),
      m('a'),
      m('a'),
      m('a', 'b'),
      { memberId: 'a', memberIds: ['b', 'a'] },
      m('a'),
    ]);
    watch.start();
    await until(() => asked() > 8);
    await watch.stop();
    expect(told).toEqual([m('a'), m('a', 'b'), m('a')]);
  });

  it('does not tell again what a rebalance told (seen), and asks nothing after stop', async () => {
    const { watch, told, asked } = watchOf([m('a', 'b')]);
    watch.seen({ memberId: 'a', memberIds: ['b', 'a'] });
    expect(watch.isNew(m('a', 'b'))).toBe(false);
    expect(watch.isNew(m('a'))).toBe(true);
    watch.start();
    await until(() => asked() > 3);
    await watch.stop();
    const after = asked();
    await new Promise((r) => setTimeout(r, 30));
    expect(asked()).toBe(after);
    expect(told).toEqual([]);
  });
});
