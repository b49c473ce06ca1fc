// Fault injection at the protocol seams (test/faults-seams-*.spec.ts): a private broker whose
// clients are sent through a fault-injecting TCP proxy, a publisher of sequence-numbered
// messages, and a trial runner that starts one engine through the proxy while a seeded fault
// fires at a chosen Kafka request or response (or on the lock's database connection), then
// checks the delivery guarantee: nothing published after ready is skipped, no bulk replay.
import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { setTimeout as delay } from 'node:timers/promises';
import { join } from 'node:path';
import type { Admin, Producer } from 'kafkajs';
import { DataSource } from 'typeorm';
import { BroadcastEngine } from 'nestjs-kafka-broadcast';
import { startCluster, type KafkaCluster } from '../../scripts/kafka-cluster.mjs';
import { connectedAdmin, connectedProducer, describe1 } from './faults.js';
import { CapturingLogger } from './capturing-logger.js';
import { createTopics, testPrefix, waitFor } from './kafka.js';
import { TcpProxy, type FaultAction, type FrameInfo } from './tcp-proxy.js';

export const SEAM_TOPIC = 'seq';
/** Records written before start() is called: any of them delivered is a replay. */
export const OLD_RECORDS = 20;
/** Duplicates tolerated per trial: at most one fetch's worth of in-flight records. */
export const DUPLICATE_BOUND = 50;

/** A private one-node broker with a second listener whose advertised address is the proxy. */
export interface ProxiedBroker {
  cluster: KafkaCluster;
  proxy: TcpProxy;
  /** the real PLAINTEXT listener: for the test's own admin and producer */
  direct: string[];
  /** the proxy: every engine connects here and metadata keeps it there */
  proxied: string[];
  stop(): Promise<void>;
}

export async function startProxiedBroker(): Promise<ProxiedBroker> {
  const cluster = await startCluster({
    nodes: 1,
    quiet: true,
    dir: await mkdtemp(join(tmpdir(), 'seams-kafka-')),
    extraPorts: 2,
    properties: (node) => ({
      listeners: `PLAINTEXT://127.0.0.1:${node.port},PROXIED://127.0.0.1:${node.extraPorts[0]},CONTROLLER://127.0.0.1:${node.controllerPort}`,
      // Clients that bootstrap through the proxy are told the proxy's port, so they stay on it.
      'advertised.listeners': `PLAINTEXT://127.0.0.1:${node.port},PROXIED://127.0.0.1:${node.extraPorts[1]}`,
      'listener.security.protocol.map':
        'PLAINTEXT:PLAINTEXT,PROXIED:PLAINTEXT,CONTROLLER:PLAINTEXT',
    }),
  });
  const node = cluster.nodes[0]!;
  const proxy = await TcpProxy.start({
    port: node.extraPorts[1],
    target: { host: '127.0.0.1', port: node.extraPorts[0]! },
    kafka: true,
  });
  return {
    cluster,
    proxy,
    direct: cluster.brokers,
    proxied: [`127.0.0.1:${proxy.port}`],
    async stop() {
      await proxy.close();
      await cluster.stop();
    },
  };
}

/** mulberry32: a small seeded PRNG, so a failing trial can be replayed from its seed. */
export function seededRandom(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

function hashName(name: string): number {
  let h = 2166136261;
  for (const c of name) h = Math.imul(h ^ c.charCodeAt(0), 16777619);
  return h >>> 0;
}

export function pick<T>(rnd: () => number, items: readonly T[]): T {
  return items[Math.floor(rnd() * items.length)]!;
}

/** Publishes {seq} records one after another, every `intervalMs`, and remembers when. */
export class SequencePublisher {
  readonly sent: { seq: number; startedAt: number; ackedAt: number }[] = [];
  private running: Promise<void> | undefined;
  private stopped = false;

  constructor(
    private readonly producer: Producer,
    private readonly topic: string,
    private readonly intervalMs = 20,
  ) {}

  start(): void {
    this.running = (async () => {
      while (!this.stopped) {
        const seq = this.sent.length;
        const startedAt = Date.now();
        await this.producer.send({
          topic: this.topic,
          acks: -1,
          messages: [{ value: JSON.stringify({ seq }) }],
        });
        this.sent.push({ seq, startedAt, ackedAt: Date.now() });
        await new Promise((resolve) => setTimeout(resolve, this.intervalMs));
      }
    })();
  }

  async stop(): Promise<void> {
    this.stopped = true;
    await this.running;
  }
}

export interface DeliveryVerdict {
  /** seqs whose send started after ready and that never arrived */
  missing: number[];
  /** seqs acknowledged before start() was called that arrived anyway */
  replayed: number;
  /** deliveries beyond the first of a seq */
  duplicates: number;
  firstAfterReady: number;
  lastSent: number;
}

/** Judges one engine's deliveries against what was published and when. */
export function judge(
  sent: SequencePublisher['sent'],
  received: readonly number[],
  startCalledAt: number,
  readyAt: number,
): DeliveryVerdict {
  const counts = new Map<number, number>();
  for (const seq of received) counts.set(seq, (counts.get(seq) ?? 0) + 1);
  const firstAfterReady = sent.find((s) => s.startedAt >= readyAt)?.seq ?? sent.length;
  const missing = sent
    .filter((s) => s.seq >= firstAfterReady && !counts.has(s.seq))
    .map((s) => s.seq);
  const replayed = [...counts.keys()].filter(
    (seq) => seq < 0 || (sent[seq] !== undefined && sent[seq].ackedAt < startCalledAt),
  ).length;
  let duplicates = 0;
  for (const n of counts.values()) duplicates += n - 1;
  return { missing, replayed, duplicates, firstAfterReady, lastSent: sent.length - 1 };
}

/** A fault that fires once, on the `nth` frame matching `match`. */
export interface FrameFault {
  describe: string;
  match: (frame: FrameInfo) => boolean;
  nth: number;
  action: FaultAction;
}

export interface ArmedFault {
  describe: string;
  fired: () => boolean;
}

/** Arms `fault` on the proxy, to fire once. */
export function armFrameFault(proxy: TcpProxy, fault: FrameFault): ArmedFault {
  let seen = 0;
  let fired = false;
  proxy.onFrame = (frame) => {
    if (fired || !fault.match(frame) || ++seen < fault.nth) return undefined;
    fired = true;
    return fault.action;
  };
  return {
    describe: `${fault.describe} #${fault.nth}: ${JSON.stringify(fault.action)}`,
    fired: () => fired,
  };
}

/**
 * A moment at the Kafka seam: frames of `apiKeys` in `direction`; each trial picks (seeded) the
 * occurrence (1..maxNth) and one of `actions`.
 */
export function frameMoment(
  direction: FrameInfo['direction'],
  apiKeys: readonly number[],
  actions: readonly ((frame: FrameInfo | undefined, rnd: () => number) => FaultAction)[],
  { maxNth = 2, minBytes = 0 } = {},
) {
  return (proxy: TcpProxy, rnd: () => number): ArmedFault => {
    const nth = 1 + Math.floor(rnd() * maxNth);
    const make = pick(rnd, actions);
    const probe = make(undefined, rnd);
    let seen = 0;
    let fired = false;
    let applied: FaultAction | undefined;
    proxy.onFrame = (frame) => {
      if (fired || frame.direction !== direction || !apiKeys.includes(frame.apiKey))
        return undefined;
      if (frame.bytes < minBytes || ++seen < nth) return undefined;
      fired = true;
      applied =
        probe.kind === 'reset' && probe.afterBytes === -1
          ? { kind: 'reset', afterBytes: Math.floor(frame.bytes / 2) }
          : probe;
      return applied;
    };
    return {
      get describe() {
        return `${direction} api ${apiKeys.join('/')} #${nth}: ${JSON.stringify(applied ?? probe)}`;
      },
      fired: () => fired,
    };
  };
}

/** Actions a moment can pick from. `afterBytes: -1` means "half of the frame". */
export const Faults = {
  reset: () => ({ kind: 'reset' }) as FaultAction,
  resetAfterFrame: () => ({ kind: 'reset', afterBytes: Number.MAX_SAFE_INTEGER }) as FaultAction,
  resetMidFrame: () => ({ kind: 'reset', afterBytes: -1 }) as FaultAction,
  drop: () => ({ kind: 'drop' }) as FaultAction,
  stall: (_f: FrameInfo | undefined, rnd: () => number) =>
    ({ kind: 'stall', ms: 500 + Math.floor(rnd() * 3_000) }) as FaultAction,
};

export interface TrialSpec {
  broker: ProxiedBroker;
  admin: Admin;
  producer: Producer;
  /** label for names and reports */
  moment: string;
  seed: number;
  lock: 'none' | 'postgres' | 'mariadb';
  /** arms the fault right before start(): says what it is and whether it fired yet */
  arm: (ctx: { rnd: () => number; dbProxy: TcpProxy | undefined }) => ArmedFault;
}

export interface TrialResult extends DeliveryVerdict {
  moment: string;
  seed: number;
  fired: boolean;
  fault: string;
  startFailed: string | undefined;
  leftMembers: number;
  stopMs: number;
  problems: string[];
  logs: string;
}

const DB_TARGET = {
  postgres: { host: '127.0.0.1', port: 5432 },
  mariadb: { host: '127.0.0.1', port: 3306 },
} as const;

/**
 * One trial: a fresh topic with OLD_RECORDS already in it, the publisher running, the fault
 * armed, start() through the proxy, more publishing after ready (and after the fault fired),
 * then the verdict, a clean stop and a check that no member was left behind.
 */
export async function runTrial(spec: TrialSpec): Promise<TrialResult> {
  // The moment's name is mixed in, so that one seed gives different picks at different moments.
  const rnd = seededRandom(spec.seed ^ hashName(spec.moment));
  const prefix = testPrefix(`seams-${spec.moment}-${spec.seed}`);
  const topic = prefix + SEAM_TOPIC;
  const problems: string[] = [];
  // Not kafkajs's waitForLeaders: it gives up on UNKNOWN_TOPIC_OR_PARTITION under load.
  await createTopics(spec.admin, [{ topic, numPartitions: 1 }]);
  await spec.producer.send({
    topic,
    acks: -1,
    messages: Array.from({ length: OLD_RECORDS }, (_, i) => ({
      value: JSON.stringify({ seq: -1 - i }),
    })),
  });
  const dbProxy =
    spec.lock === 'none' ? undefined : await TcpProxy.start({ target: DB_TARGET[spec.lock] });
  const dataSource = dbProxy
    ? await new DataSource(
        spec.lock === 'postgres'
          ? {
              type: 'postgres',
              host: '127.0.0.1',
              port: dbProxy.port,
              username: 'postgres',
              database: 'test',
            }
          : {
              type: 'mariadb',
              host: '127.0.0.1',
              port: dbProxy.port,
              username: 'root',
              password: '',
              database: 'test',
            },
      ).initialize()
    : undefined;
  const logger = new CapturingLogger();
  const engine = new BroadcastEngine(
    {
      kafka: {
        brokers: spec.broker.proxied,
        clientId: `seams-${spec.seed}`,
        requestTimeoutMs: 5_000,
      },
      topicPrefix: prefix,
      lock: spec.lock === 'none' ? false : { checkIntervalMs: 500 },
      heartbeat: false,
      consumer: { sessionTimeoutMs: 6_000, heartbeatIntervalMs: 500, maxWaitTimeMs: 100 },
      startupTimeoutMs: 60_000,
      instanceId: `seams-${spec.seed}`,
    },
    { dataSource, logger },
  );
  const received: number[] = [];
  engine.on(SEAM_TOPIC, (payload) => void received.push((payload as { seq: number }).seq));
  const publisher = new SequencePublisher(spec.producer, topic);
  publisher.start();
  await waitFor(() => publisher.sent.length >= 3, { message: 'publisher did not start' });
  const armed = spec.arm({ rnd, dbProxy });
  const fired = armed.fired;
  const startCalledAt = Date.now();
  let readyAt = Number.POSITIVE_INFINITY;
  let startFailed: string | undefined;
  try {
    await engine.start();
    readyAt = Date.now();
    // Keep publishing until the fault fired (or plainly never will), then 1.5 s more.
    await waitFor(fired, { timeoutMs: 8_000, intervalMs: 20 }).catch(() => undefined);
    await delay(1_500);
  } catch (error) {
    startFailed = error instanceof Error ? error.message : String(error);
  }
  await publisher.stop();
  spec.broker.proxy.onFrame = undefined;
  const last = publisher.sent.length - 1;
  if (!startFailed) {
    await waitFor(() => received.includes(last), { timeoutMs: 25_000, intervalMs: 50 }).catch(() =>
      problems.push(
        `last seq ${last} not received within 25 s (state ${engine.reader.status().state})`,
      ),
    );
  }
  const stopStarted = Date.now();
  await Promise.race([
    engine.stop(),
    new Promise((_, reject) => setTimeout(() => reject(new Error('stop() hung 30 s')), 30_000)),
  ]).catch((error: unknown) => problems.push(`stop: ${String(error)}`));
  const stopMs = Date.now() - stopStarted;
  await dataSource?.destroy().catch(() => undefined);
  await dbProxy?.close();
  // A member whose JoinGroup answer the proxy cut off is unknown to the client, so no one can
  // make it leave: it expires with its session (6 s). A member still there after that is a
  // consumer that stop() left running (it keeps heartbeating).
  const membersNow = async () => {
    const { groups } = await spec.admin.listGroups();
    let count = 0;
    for (const g of groups.filter((g) => g.groupId.startsWith(prefix)))
      count += (await describe1(spec.admin, g.groupId)).memberIds.length;
    return count;
  };
  let leftMembers = await membersNow();
  if (leftMembers > 0) {
    await waitFor(async () => (await membersNow()) === 0, {
      timeoutMs: 10_000,
      intervalMs: 250,
    }).catch(() => undefined);
    leftMembers = await membersNow();
  }
  // Topics and groups stay: the broker is private and removed with its data dir at the end
  // (deleting a topic would break the shared producer, which keeps refreshing its metadata).
  const verdict = judge(publisher.sent, received, startCalledAt, readyAt);
  return {
    moment: spec.moment,
    seed: spec.seed,
    fired: fired(),
    fault: armed.describe,
    startFailed,
    leftMembers,
    stopMs,
    problems,
    logs: logger.lines
      .filter((l) => l.level !== 'debug')
      .map((l) => `${new Date(l.at).toISOString().slice(11, 23)} ${l.level} ${l.message}`)
      .slice(-40)
      .join('\n'),
    ...verdict,
  };
}

/** Why a trial broke the guarantee, or undefined when it held. */
export function violation(r: TrialResult): string | undefined {
  const why: string[] = [...r.problems];
  if (r.startFailed) why.push(`start() failed: ${r.startFailed}`);
  if (r.missing.length > 0)
    why.push(
      `skipped ${r.missing.length} after ready (first ${r.missing.slice(0, 5).join(',')}; ready at seq ${r.firstAfterReady})`,
    );
  if (r.replayed > 0) why.push(`replayed ${r.replayed} records published before start()`);
  if (r.duplicates > DUPLICATE_BOUND) why.push(`${r.duplicates} duplicates (> ${DUPLICATE_BOUND})`);
  if (r.leftMembers > 0) why.push(`${r.leftMembers} member(s) left in groups after stop()`);
  return why.length > 0 ? why.join('; ') : undefined;
}

/** Seeds for `count` trials: env SEAMS_SEED replays one trial, else a base from the clock. */
export function trialSeeds(count: number): number[] {
  const fixed = process.env.SEAMS_SEED;
  if (fixed) return [Number(fixed)];
  const base = Number(process.env.SEAMS_BASE_SEED ?? Date.now() % 1_000_000_000);
  return Array.from(
    { length: Number(process.env.SEAMS_TRIALS ?? count) },
    (_, i) => base + i * 7919,
  );
}

export async function seamClients(
  broker: ProxiedBroker,
): Promise<{ admin: Admin; producer: Producer }> {
  return {
    admin: await connectedAdmin(broker.direct),
    producer: await connectedProducer(broker.direct),
  };
}

export interface SeamMoment {
  name: string;
  lock?: TrialSpec['lock'];
  arm: TrialSpec['arm'];
}

/**
 * Runs `trials` seeded trials of each moment against one proxied broker and returns every
 * result; prints one line per trial, and the seed and logs of every violation.
 */
export async function runMoments(
  broker: ProxiedBroker,
  moments: readonly SeamMoment[],
  trials: number,
): Promise<{ results: TrialResult[]; violations: string[] }> {
  const { admin, producer } = await seamClients(broker);
  const results: TrialResult[] = [];
  const violations: string[] = [];
  try {
    for (const moment of moments) {
      for (const seed of trialSeeds(trials)) {
        const r = await runTrial({
          broker,
          admin,
          producer,
          moment: moment.name,
          seed,
          lock: moment.lock ?? 'none',
          arm: moment.arm,
        });
        results.push(r);
        const bad = violation(r);
        console.log(
          `SEAM ${r.moment} seed=${r.seed} fault=${r.fault} fired=${r.fired} sent=${r.lastSent + 1} ` +
            `missing=${r.missing.length} replayed=${r.replayed} duplicates=${r.duplicates} stopMs=${r.stopMs}` +
            (bad ? ` VIOLATION ${bad}` : ''),
        );
        if (bad) {
          violations.push(`${r.moment} seed=${r.seed} (${r.fault}): ${bad}`);
          console.log(
            `--- logs of ${r.moment} seed=${r.seed} (replay: SEAMS_SEED=${r.seed})\n${r.logs}`,
          );
        }
      }
    }
  } finally {
    await producer.disconnect();
    await admin.disconnect();
  }
  return { results, violations };
}

/** One line of figures per moment, for docs/RELIABILITY.md. */
export function summarize(results: readonly TrialResult[]): Record<string, unknown> {
  const byMoment = new Map<string, TrialResult[]>();
  for (const r of results) byMoment.set(r.moment, [...(byMoment.get(r.moment) ?? []), r]);
  return Object.fromEntries(
    [...byMoment].map(([moment, rs]) => [
      moment,
      {
        trials: rs.length,
        fired: rs.filter((r) => r.fired).length,
        violations: rs.filter((r) => violation(r)).length,
        missing: rs.reduce((n, r) => n + r.missing.length, 0),
        replayed: rs.reduce((n, r) => n + r.replayed, 0),
        maxDuplicates: Math.max(0, ...rs.map((r) => r.duplicates)),
      },
    ]),
  );
}
