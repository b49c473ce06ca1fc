/**
 * What one start of the engine asks the broker on @platformatic/kafka (lock-free, KIP-848 where the
 * broker offers it, on topics an earlier start created), counted on the client's own diagnostics
 * channel from start() until it resolves. Each request here is paid by every instance of a fleet
 * at every deploy; R, a raw consumer, sends 9. Until 2026-12-05 a start sent 24 before and around
 * ready: the topic check listed every topic of the cluster twice, the admin's connection sent
 * ApiVersions twice (once more to see whether KIP-848 is offered) and the group's coordinator was
 * looked up four times.
 */
import { subscribe, unsubscribe } from 'node:diagnostics_channel';
import { useEngineHarness } from '../support/engine/engine.js';

const CHANNEL = 'tracing:plt:kafka:connections:api:start';
const API: Record<number, string> = {
  1: 'Fetch',
  2: 'ListOffsets',
  3: 'Metadata',
  10: 'FindCoordinator',
  16: 'ListGroups',
  18: 'ApiVersions',
  42: 'DeleteGroups',
  68: 'ConsumerGroupHeartbeat',
  69: 'ConsumerGroupDescribe',
};

interface Sent {
  api: string;
  connection: number | undefined;
}

describe('one start on @platformatic/kafka', () => {
  it('checks its topics with one Metadata request, asks ApiVersions once per connection and finds its coordinator once', async () => {
    const h = useEngineHarness('start-requests', { heartbeat: false }, 'platformatic');
    // The first start creates the topics; the one counted finds them.
    const first = await h.start({ lock: 'none', topics: ['news'] });
    await first.stop();
    const engine = await h.create({ lock: 'none', topics: ['news'] });
    const sent: Sent[] = [];
    const onStart = (message: unknown) => {
      const { apiKey, connection } = message as {
        apiKey: number;
        connection?: { instanceId?: number };
      };
      sent.push({ api: API[apiKey] ?? String(apiKey), connection: connection?.instanceId });
    };
    subscribe(CHANNEL, onStart);
    try {
      await h.startEngine(engine);
    } finally {
      unsubscribe(CHANNEL, onStart);
    }
    const count = (api: string) => sent.filter((s) => s.api === api).length;
    const apiVersionsPerConnection = new Map<number | undefined, number>();
    for (const s of sent.filter((s) => s.api === 'ApiVersions'))
      apiVersionsPerConnection.set(
        s.connection,
        (apiVersionsPerConnection.get(s.connection) ?? 0) + 1,
      );
    console.log(`START-REQUESTS ${JSON.stringify(sent.map((s) => s.api))}`);
    expect([...apiVersionsPerConnection.values()].every((n) => n === 1)).toBe(true);
    // One by the client's own DeleteGroups, one shared by the describes and the heartbeats.
    expect(count('FindCoordinator')).toBe(2);
    // The topic check (1), the pool listing (1, ListGroups first reads the brokers), the offsets
    // snapshot (1, the client's ListOffsets refreshes the leaders) and the consumer's own (1);
    // room for one more (a refresh after a stale answer). The roster's look at start, which used
    // to begin as start() resolved, now runs only for a chosen instanceId.
    expect(count('Metadata')).toBeLessThanOrEqual(5);
    expect(count('ListGroups')).toBe(1);
    expect(engine.status().state).toBe('ready');
  });
});
