import { Consumer } from '@platformatic/kafka';
import type { GroupConsumerSpec } from '../../interfaces/kafka-port.interface.js';
import { PlatformaticKip848Consumer, type Kip848Deps } from './platformatic-kip848-consumer.js';

describe('PlatformaticKip848Consumer', () => {
  // The client's Fetch retries find a moved leader in the metadata of the topics it tracks; with
  // none tracked, every retry went back to the node of the first attempt (issue #37).
  it('tells the client its topics, whose fetch retries read their leaders from them', async () => {
    const client = new Consumer({
      clientId: 'kip848-spec',
      groupId: 'g',
      bootstrapBrokers: ['127.0.0.1:1'],
    });
    // No broker: connect() reads the topics' metadata, answered here.
    vi.spyOn(client, 'metadata').mockResolvedValue({
      topics: new Map([['news', { id: 'id-news', partitionsCount: 1 }]]),
    } as never);
    const member = new PlatformaticKip848Consumer(
      { groupId: 'g', topics: ['news'] } as unknown as GroupConsumerSpec,
      { make: () => client } as unknown as Kip848Deps,
    );
    try {
      await member.connect();
      member.subscribe();
      expect(client.topics.current).toEqual(['news']);
    } finally {
      await client.close(true);
    }
  });
});
