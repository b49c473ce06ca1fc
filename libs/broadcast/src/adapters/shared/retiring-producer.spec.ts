import { RetiringProducer } from './retiring-producer.js';

function producers() {
  const made: number[] = [];
  const closed: number[] = [];
  const retiring = new RetiringProducer(
    () => {
      made.push(made.length);
      return made.length - 1;
    },
    async (p) => void closed.push(p),
  );
  return { made, closed, retiring };
}

describe('RetiringProducer', () => {
  it('keeps one producer while sends succeed', async () => {
    const { made, closed, retiring } = producers();
    expect(await retiring.send(async (p) => p)).toBe(0);
    expect(await retiring.send(async (p) => p)).toBe(0);
    expect([made, closed]).toEqual([[0], []]);
  });

  it('retires the producer of a failed send: the next send gets a new one, the old one is closed', async () => {
    const { made, closed, retiring } = producers();
    await expect(retiring.send(() => Promise.reject(new Error('gave up')))).rejects.toThrow();
    expect(closed).toEqual([0]);
    expect(await retiring.send(async (p) => p)).toBe(1);
    expect(made).toEqual([0, 1]);
  });

  it('closes a retired producer only once its last send in flight has settled', async () => {
    const { closed, retiring } = producers();
    let finish!: () => void;
    const slow = retiring.send(() => new Promise<void>((resolve) => (finish = resolve)));
    await expect(retiring.send(() => Promise.reject(new Error('gave up')))).rejects.toThrow();
    expect(closed).toEqual([]);
    finish();
    await slow;
    expect(closed).toEqual([0]);
  });

  it('closeCurrent closes the producer in use; the next send makes another', async () => {
    const { made, closed, retiring } = producers();
    await retiring.send(async () => undefined);
    await retiring.closeCurrent();
    expect(closed).toEqual([0]);
    await retiring.send(async () => undefined);
    expect(made).toEqual([0, 1]);
  });

  it('one at a time: a send queued behind one that fails goes out on a new producer', async () => {
    const made: number[] = [];
    const retiring = new RetiringProducer(
      () => made.push(made.length) - 1,
      async () => undefined,
      true,
    );
    let fail!: (error: Error) => void;
    const failing = retiring.send(() => new Promise((_, reject) => (fail = reject)));
    const queued = retiring.send(async (p) => p);
    await vi.waitFor(() => expect(fail).toBeDefined());
    fail(new Error('gave up'));
    await expect(failing).rejects.toThrow('gave up');
    expect(await queued).toBe(1);
    expect(made).toEqual([0, 1]);
  });
});
