import { Admin, Consumer } from '@platformatic/kafka';
import type { BrokerApi } from './platformatic-consumer-group-describe.js';
import { PlatformaticSharedConnections } from './platformatic-shared-connections.js';

/** Port 1 refuses: any request that reaches the network fails at once, without retries. */
const options = { bootstrapBrokers: ['127.0.0.1:1'], clientId: 'shared-spec', retries: 0 };
const apis: BrokerApi[] = [{ apiKey: 1, maxVersion: 17 }];

function clients() {
  const admin = new Admin(options);
  const consumer = new Consumer({ ...options, groupId: 'shared-spec' });
  onTestFinished(async () => {
    await consumer.close(true);
    await admin.close();
  });
  return { admin, consumer };
}

describe('PlatformaticSharedConnections', () => {
  it("answers the admin's and a borrowing consumer's APIs from the probe, asking nothing", async () => {
    const { admin, consumer } = clients();
    const shared = new PlatformaticSharedConnections(admin, () => apis);
    shared.lend(consumer);
    // Unpatched, each would connect to port 1 and fail.
    expect(await admin.listApis()).toEqual(apis);
    expect(await consumer.listApis()).toEqual(apis);
  });

  it('asks the broker while the probe has not answered', async () => {
    const { admin, consumer } = clients();
    const shared = new PlatformaticSharedConnections(admin, () => undefined);
    shared.lend(consumer);
    await expect(consumer.listApis()).rejects.toThrow();
  });

  it("sends a borrower's heartbeats and metadata through the admin, its fetches through its own pool", () => {
    const { admin, consumer } = clients();
    const shared = new PlatformaticSharedConnections(admin, () => apis);
    shared.lend(consumer);
    expect(shared.pool(consumer)).toBe(admin.connections);
    expect(consumer.connections).not.toBe(admin.connections);
    let cleared = 0;
    admin.clearMetadata = () => void cleared++;
    consumer.clearMetadata();
    expect(cleared).toBe(1);
  });
});
