import type { Admin } from '@platformatic/kafka';
import type { BrokerApi } from './platformatic-consumer-group-describe.js';
import { PlatformaticKnownLeaders } from './platformatic-known-leaders.js';

/** An Admin whose metadata names one topic with one partition led by broker 1; counts asks. */
function adminWithMetadata() {
  let asked = 0;
  const admin = {
    metadata: () => {
      asked++;
      return Promise.resolve({
        brokers: new Map([[1, { host: '127.0.0.1', port: 9001 }]]),
        topics: new Map([['t', { partitions: [{ leader: 1, leaderEpoch: 0 }] }]]),
      });
    },
  } as unknown as Admin;
  return { admin, asked: () => asked };
}

const ask = (partitionIndex: number) => [
  { name: 't', partitions: [{ partitionIndex, timestamp: -1n }] },
];

describe('PlatformaticKnownLeaders', () => {
  it("leaves the call to the client's own when the broker's APIs are not known", async () => {
    const { admin, asked } = adminWithMetadata();
    const known = new PlatformaticKnownLeaders(admin, () => undefined);
    expect(await known.listOffsets(ask(0), 0)).toBeUndefined();
    expect(await known.listGroups(['classic'])).toBeUndefined();
    expect(asked()).toBe(0);
  });

  it('leaves it to the client for a broker too old for the request shapes sent here', async () => {
    const { admin, asked } = adminWithMetadata();
    const apis: BrokerApi[] = [
      { apiKey: 2, maxVersion: 3 },
      { apiKey: 16, maxVersion: 4 },
    ];
    const known = new PlatformaticKnownLeaders(admin, () => apis);
    expect(await known.listOffsets(ask(0), 0)).toBeUndefined();
    expect(await known.listGroups(['classic'])).toBeUndefined();
    expect(asked()).toBe(0);
  });

  it('leaves it to the client when the metadata at hand lacks a partition asked for', async () => {
    const { admin } = adminWithMetadata();
    const known = new PlatformaticKnownLeaders(admin, () => [{ apiKey: 2, maxVersion: 9 }]);
    expect(await known.listOffsets(ask(1), 0)).toBeUndefined();
  });
});
