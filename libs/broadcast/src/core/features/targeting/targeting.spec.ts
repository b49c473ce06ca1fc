import { BroadcastPublishError } from '../../../errors/broadcast-publish.error.js';
import { isTargeted, targetHeaders, targets } from './targeting.js';

const a1 = { instanceId: 'a1', service: 'svcA' };
const b1 = { instanceId: 'b1', service: 'svcB' };

describe('targeting', () => {
  it('an untargeted message is for everyone', () => {
    expect(targetHeaders(undefined, undefined)).toEqual({});
    expect(isTargeted({}, a1)).toBe(true);
  });

  it('instances and services combine as a union; exceptSelf wins', () => {
    expect(targets({ instances: ['a1'] }, undefined, a1)).toBe(true);
    expect(targets({ instances: ['a1'] }, undefined, b1)).toBe(false);
    expect(targets({ services: ['svcB'] }, undefined, b1)).toBe(true);
    expect(targets({ services: ['svcB'] }, undefined, a1)).toBe(false);
    expect(targets({ instances: ['a1'], services: ['svcB'] }, undefined, a1)).toBe(true);
    expect(targets({ instances: ['a1'], services: ['svcB'] }, undefined, b1)).toBe(true);
    expect(targets(undefined, 'a1', a1)).toBe(false);
    expect(targets(undefined, 'a1', b1)).toBe(true);
    expect(targets({ instances: ['a1'] }, 'a1', a1)).toBe(false);
    // An empty list targets nobody, rather than everybody.
    expect(targets({ instances: [] }, undefined, a1)).toBe(false);
  });

  it('an instance without a group yet matches no service', () => {
    expect(
      targets({ services: ['svcA'] }, undefined, { instanceId: 'x', service: undefined }),
    ).toBe(false);
  });

  it('refuses names it could not carry in a header', () => {
    expect(() => targetHeaders({ services: ['a,b'] }, undefined)).toThrow(BroadcastPublishError);
    expect(() => targetHeaders({ instances: 'a1' as never }, undefined)).toThrow(
      /Invalid publish option "to.instances"/,
    );
    expect(() => targetHeaders('a1' as never, undefined)).toThrow(/"to"/);
  });
});
