/**
 * What one start of the engine asks the broker (lock-free, on topics an earlier start created),
 * on both clients: every request frame written to a socket the start opened, from start() until
 * it resolves, counted by API key at the socket (the same count for both clients, below either
 * client's own bookkeeping). Each request here is paid by every instance of a fleet at every
 * deploy; R, a raw consumer, sends 9. Until 2026-12-05 a start on @platformatic/kafka sent 24
 * before and around ready: the topic check listed every topic of the cluster twice, the admin's
 * connection sent ApiVersions twice (once more to see whether KIP-848 is offered) and the group's
 * coordinator was looked up four times.
 *
 * @confluentinc/kafka-javascript (the confluent row, on the group protocol that
 * BROADCAST_GROUP_PROTOCOL picks) opens its sockets in librdkafka's C code, which Node's
 * `net.client.socket` channel never sees: its counted engine starts at a proxy in front of the
 * run's broker that keeps it there (the broker's address in Metadata and FindCoordinator answers
 * is rewritten to the proxy's, advertising-proxy.ts), and the request frames the proxy forwards
 * while start() runs are counted by API key, its DescribeGroups helper process's included (a
 * frame written just before start() resolves may reach the proxy just after: the racing counts
 * have ranges). A start there sends 38 to 40 requests on classic and 32 to 37 on KIP-848, over 7
 * connections (EXPECTED says which and why): librdkafka's bootstrap connections, the group
 * consumer's own coordinator connection, a Metadata before each ListOffsets and the describe
 * helper's start make it the most of the three clients.
 */
import { subscribe, unsubscribe } from 'node:diagnostics_channel';
import type { Socket } from 'node:net';
import { ApiKey, FrameSplitter, requestHeader } from '../support/broker/tcp-proxy.js';
import { startAdvertisingProxy } from '../support/broker/advertising-proxy.js';
import { groupProtocolOf, kafkaClients } from '../support/broker/kafka-clients.js';
import { useEngineHarness } from '../support/engine/engine.js';

/** Node's channel for every client socket net.connect() makes (both clients open theirs so). */
const SOCKETS = 'net.client.socket';
const NAMES = new Map<number, string>(Object.entries(ApiKey).map(([name, key]) => [key, name]));

interface Sent {
  api: string;
  connection: number;
}

/** What a row counts with: the requests sent while `during` runs, and the brokers to start at. */
interface Recorder {
  sent: Sent[];
  /** The brokers of the engine counted (undefined: the run's broker). */
  brokers?: string[];
  during(run: () => Promise<unknown>): Promise<void>;
  close(): Promise<void> | void;
}

/**
 * Records the request frames written, while `counting` is on, to every socket opened after it
 * was made (an engine's clients may connect before its start: a socket is watched from birth).
 */
function socketRecorder(): Recorder {
  const sent: Sent[] = [];
  let counting = false;
  let sockets = 0;
  const onSocket = (message: unknown) => {
    const { socket } = message as { socket: Socket };
    const connection = sockets++;
    const frames = new FrameSplitter();
    // Every frame is split, counted or not, so the count starts on a frame boundary.
    const see = (chunk: unknown) => {
      if (!Buffer.isBuffer(chunk) && !(chunk instanceof Uint8Array)) return;
      for (const frame of frames.push(Buffer.from(chunk))) {
        if (!counting) continue;
        const { apiKey } = requestHeader(frame);
        sent.push({ api: NAMES.get(apiKey) ?? String(apiKey), connection });
      }
    };
    // The stream's own write hooks: Node resets socket.write when it connects.
    const writeOne = socket._write;
    const writeMany = socket._writev;
    socket._write = function (this: Socket, chunk, encoding, done) {
      see(chunk);
      writeOne.call(this, chunk, encoding, done);
    };
    socket._writev = function (this: Socket, chunks, done) {
      for (const { chunk } of chunks) see(chunk);
      writeMany?.call(this, chunks, done);
    };
  };
  subscribe(SOCKETS, onSocket);
  return {
    sent,
    async during(run: () => Promise<unknown>): Promise<void> {
      counting = true;
      try {
        await run();
      } finally {
        counting = false;
      }
    },
    close: () => void unsubscribe(SOCKETS, onSocket),
  };
}

/**
 * Records the request frames that reach the broker, while `counting` is on, through a proxy in
 * front of it that keeps the clients on it (advertising-proxy.ts): for librdkafka, whose sockets
 * are opened in C (no `net.client.socket` message), its DescribeGroups helper process included.
 */
async function proxyRecorder(): Promise<Recorder> {
  const proxy = await startAdvertisingProxy();
  const sent: Sent[] = [];
  let counting = false;
  proxy.onRequest = (frame) => {
    if (counting)
      sent.push({
        api: NAMES.get(frame.apiKey) ?? String(frame.apiKey),
        connection: frame.connectionId,
      });
  };
  return {
    sent,
    brokers: proxy.brokers,
    async during(run: () => Promise<unknown>): Promise<void> {
      counting = true;
      try {
        await run();
      } finally {
        counting = false;
      }
    },
    close: () => proxy.close(),
  };
}

/** Requests per API key, in the order each key was first sent. */
function byApiKey(sent: Sent[]): Record<string, number> {
  const counts: Record<string, number> = {};
  for (const s of sent) counts[s.api] = (counts[s.api] ?? 0) + 1;
  return counts;
}

/**
 * What one start sends per API key, per client: a count, or [least, most] for the requests of
 * loops that race with start()'s resolution (the consumer's next heartbeat, its first fetch or
 * its first offsets lookup).
 * Measured 2026-12-06 (docs/BENCHMARKS.md, start section).
 */
const EXPECTED: Record<string, Record<string, number | [number, number]>> = {
  // The probe, the admin and the KIP-848 consumer's heartbeats share the admin's connection, the
  // fetches have the consumer's (platformatic-shared-connections.ts): one ApiVersions, the
  // probe's (three connections and three until 2026-12-06), and one Metadata, the topic check's,
  // which the pool listing, the offsets snapshot and the consumer reuse (5 until 2026-12-06,
  // then 2). The second ListGroups is the roster's first look, begun as start() resolves. No
  // DeleteGroups (nor its FindCoordinator) since 2026-12-06: under KIP-848 an id the listing saw
  // free is joined without the delete, the join is the claim.
  platformatic: {
    ApiVersions: 1,
    Metadata: 1,
    ListGroups: [1, 2],
    FindCoordinator: 1,
    DeleteGroups: 0,
    ListOffsets: 1,
    ConsumerGroupDescribe: 2,
    ConsumerGroupHeartbeat: [1, 2],
    Fetch: [0, 2],
  },
  // Classic protocol: a JoinGroup without a member id is answered with one, then joined again.
  // Metadata: the topic check's, which the pool listing reuses (kafkajs's listGroups refreshed it
  // first until 2026-12-06: 5 in all), and the consumer's two. FindCoordinator: the delete's,
  // which the verifying describe reuses, and the consumer's (until 2026-12-07 kafkajs's
  // deleteGroups read the metadata again and the describe looked the coordinator up again: 18).
  kafkajs: {
    ApiVersions: 2,
    Metadata: 3,
    ListGroups: 1,
    FindCoordinator: 2,
    DeleteGroups: 1,
    // The offsets snapshot's, and the consumer's own as it begins to fetch (racing ready).
    ListOffsets: [1, 2],
    JoinGroup: 2,
    SyncGroup: 1,
    OffsetFetch: 1,
    DescribeGroups: 1,
    // Its first fetch, when the consumer begins to fetch before start() resolves (seen once in
    // a run under load, 2026-12-06).
    Fetch: [0, 1],
  },
  // @confluentinc/kafka-javascript (librdkafka), counted at a proxy in front of the broker (its
  // sockets are opened in C). Every librdkafka client keeps its bootstrap connection beside the
  // one to the node it learns (the same address here, another broker handle), each with its own
  // ApiVersions and Metadata: the admin's two, the group consumer's three (bootstrap, node, and
  // the group coordinator's own connection) and the DescribeGroups helper process's two
  // (confluent-describe-helper.ts, forked at the start's first call): 7 connections, or 6 when
  // the consumer's node connection (its fetch leader's) opens only after ready (KIP-848 in a
  // clean-clone CI run, 2026-12-07: the coordinator's connection carried the heartbeats). On the
  // admin's node connection: the topic check's two Metadata (describeTopics is a Metadata
  // request) after librdkafka's own, the pool listing, then three pairs of
  // Metadata and ListOffsets (the adapter's listOffsets describes the topic before each
  // ListOffsets, where the other clients send one ListOffsets). librdkafka's own Metadata and
  // FindCoordinator lookups race the set-up of each client's connections (a lookup is sent on
  // whichever connection is up, and again once the next one is): 12 to 14 Metadata and 3 to 7
  // FindCoordinator in all were seen. The helper sends the claim's FindCoordinator and DeleteGroups
  // (DeleteGroups on KIP-848 too, unlike @platformatic/kafka), and asks ConsumerGroupDescribe before DescribeGroups
  // (librdkafka's describeConsumerGroups: a classic group is not found by the first), once for
  // the join's own member, once for the verification. Measured 2026-12-06: classic 38 to 40
  // requests in eight starts, KIP-848 32 to 37 in eleven, at load 7 to 29.
  confluent: {
    ApiVersions: [6, 7],
    Metadata: [12, 14],
    ListGroups: 1,
    FindCoordinator: [2, 7],
    DeleteGroups: 1,
    ListOffsets: 3,
    JoinGroup: 2,
    SyncGroup: 1,
    // The consumer's heartbeats, from the SyncGroup on, racing ready.
    Heartbeat: [1, 3],
    ConsumerGroupDescribe: 2,
    DescribeGroups: 2,
    // Its first fetch, racing ready.
    Fetch: [0, 1],
  },
  // KIP-848: the join and its assignment are ConsumerGroupHeartbeats on the coordinator's
  // connection (the second racing ready); the helper's describes find the group with
  // ConsumerGroupDescribe alone, and the membership watch (confluent-membership-watch.ts: one
  // describe per heartbeat interval) adds a third now and then (seen once, at load 15).
  'confluent KIP-848': {
    ApiVersions: [6, 7],
    Metadata: [12, 14],
    ListGroups: 1,
    FindCoordinator: [2, 7],
    DeleteGroups: 1,
    ListOffsets: 3,
    ConsumerGroupHeartbeat: [1, 2],
    ConsumerGroupDescribe: [2, 3],
    Fetch: [0, 1],
  },
};

/**
 * Connections a start writes to, per client: on @platformatic/kafka the admin's, which the probe
 * and the consumer's heartbeats share, and the consumer's fetch connection once its first fetch
 * (racing ready) is sent (three until 2026-12-06: the probe's, the admin's and the consumer's);
 * on kafkajs the admin's, its consumer's group connection and, once its first fetch is sent, the
 * leader's; on @confluentinc/kafka-javascript 7, on either protocol, or 6 when the consumer's
 * connection to the fetch leader opens after ready (EXPECTED.confluent names them).
 */
const CONNECTIONS: Record<string, [number, number]> = {
  platformatic: [1, 2],
  kafkajs: [2, 3],
  confluent: [6, 7],
  'confluent KIP-848': [6, 7],
};

/** `counts` against `expected`: every key expected, each within its count or range. */
function misses(
  counts: Record<string, number>,
  expected: Record<string, number | [number, number]>,
) {
  const wrong: string[] = [];
  for (const api of new Set([...Object.keys(counts), ...Object.keys(expected)])) {
    const [least, most] = [expected[api] ?? 0].flat() as [number, number?];
    const n = counts[api] ?? 0;
    if (n < least || n > (most ?? least))
      wrong.push(`${api}: ${n}, expected ${JSON.stringify(expected[api] ?? 0)}`);
  }
  return wrong;
}

/** The row of EXPECTED and CONNECTIONS: the client, and for confluent its group protocol. */
function rowOf(client: string): string {
  return client === 'confluent' && groupProtocolOf(client).groupProtocol === 'consumer'
    ? 'confluent KIP-848'
    : client;
}

describe.each(kafkaClients())('one start on %s', (client) => {
  it('sends the requests pinned per API key, ApiVersions once per connection', async () => {
    const h = useEngineHarness('start-requests', { heartbeat: false }, client);
    // The first start creates the topics; the one counted finds them.
    const first = await h.start({ lock: 'none', topics: ['news'] });
    await first.stop();
    const recorder = client === 'confluent' ? await proxyRecorder() : socketRecorder();
    const engine = await h.create({
      lock: 'none',
      topics: ['news'],
      ...(recorder.brokers && { kafka: { brokers: recorder.brokers } }),
    });
    // The engine stops before a proxy it goes through closes (else its stop waits on a dead one).
    onTestFinished(async () => {
      await engine.stop();
      await recorder.close();
    });
    await recorder.during(() => h.startEngine(engine));
    const sent = recorder.sent;
    const counts = byApiKey(sent);
    console.log(
      `START-REQUESTS ${rowOf(client)} ${sent.length} ${JSON.stringify(counts)} ${JSON.stringify(sent.map((s) => `${s.api}@${s.connection}`))}`,
    );
    const apiVersionsPerConnection = new Map<number, number>();
    for (const s of sent.filter((s) => s.api === 'ApiVersions'))
      apiVersionsPerConnection.set(
        s.connection,
        (apiVersionsPerConnection.get(s.connection) ?? 0) + 1,
      );
    expect([...apiVersionsPerConnection.values()].every((n) => n === 1)).toBe(true);
    const connections = new Set(sent.map((s) => s.connection)).size;
    const row = rowOf(client);
    const [least, most] = CONNECTIONS[row]!;
    expect(connections).toBeGreaterThanOrEqual(least);
    expect(connections).toBeLessThanOrEqual(most);
    expect(misses(counts, EXPECTED[row]!)).toEqual([]);
    expect(engine.status().state).toBe('ready');
  });
});
