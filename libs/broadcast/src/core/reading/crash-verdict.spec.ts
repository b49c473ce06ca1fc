import { InstanceIdHeldError } from '../../errors/instance-id-held.error.js';
import { crashVerdict } from './crash-verdict.js';

describe('crashVerdict', () => {
  const held = (holder?: string) => new InstanceIdHeldError('g-1', 'g-1', holder);

  it('a crash is a failure (the reader rejoins the same group)', () => {
    const error = new Error('connection closed');
    expect(crashVerdict(error, new Set())).toEqual({ kind: 'failed', error });
  });

  it('an instance id held by another instance: the group is someone else’s', () => {
    expect(crashVerdict(held('m-other'), new Set(['m-own']))).toEqual({
      kind: 'foreign',
      memberIds: ['m-other'],
      refusal: held('m-other').message,
    });
    expect(crashVerdict(held(), new Set())).toMatchObject({
      kind: 'foreign',
      memberIds: ['the holder of instance id g-1'],
    });
  });

  it('an instance id still held by an earlier member of this instance: a failure (tried again)', () => {
    const error = held('m-own');
    expect(crashVerdict(error, new Set(['m-own']))).toEqual({ kind: 'failed', error });
  });
});
