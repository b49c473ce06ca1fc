// stop() is clean at any moment, on the real broker and databases: stopped at each startup step
// (allocation, lock, delete, snapshot, connect, subscribe, run, join, verification) and at each
// step of a recovery (after the lock's session was killed), an engine leaves no member in any
// group (also a moment later: kafkajs issue #1639, a disconnect during connect/run, leaves a
// runner that joins afterwards), and no lock held; a stop during a group consumer's connect lets
// no later step of its start run (issue #36: on @platformatic/kafka a stop during connect still
// subscribed and joined, and waited for that join). The steps are reached
// through the engine's internal test hook `probe`, which is not an option.
import { spawn } from 'node:child_process';
import type { Admin } from 'kafkajs';
import type { DataSource } from 'typeorm';
import { BroadcastEngine } from '../../libs/broadcast/src/engine/broadcast.engine.js';
import {
  FAST_CONSUMER,
  LockInspector,
  openDataSource,
  useEngineHarness,
  type EngineHarness,
  type LockKind,
} from '../support/engine/engine.js';
import { CapturingLogger } from '../support/engine/capturing-logger.js';
import { describe1, ensureLibBuilt } from '../support/faults/faults.js';
import { kafkaBrokers, waitFor } from '../support/broker/kafka.js';
import { kafkaClients, type BroadcastKafkaClient } from '../support/broker/kafka-clients.js';

const TOPIC = 'seams.stop';
const STARTUP_STEPS = [
  'allocate',
  'lock',
  'delete',
  'snapshot',
  'connect',
  'subscribe',
  'run',
  'joined',
  'verify',
];
const RECOVERY_STEPS = ['recover', ...STARTUP_STEPS.filter((s) => s !== 'snapshot')];
/** A group consumer's start steps, in order. */
const CONSUMER_STEPS = ['connect', 'subscribe', 'run'];
/** How long a group must stay memberless after stop(): a leftover runner joins well within it. */
const QUIET_MS = 1_000;

interface Run {
  engine: BroadcastEngine;
  logger: CapturingLogger;
  dataSource: DataSource | undefined;
  arm(step: string): void;
  /** The stop() the probe started, once the armed step was reached. */
  stopped(): Promise<void> | undefined;
  /** The steps probed after the armed one (which began the stop). */
  after(): string[];
}

async function createEngine(
  h: EngineHarness,
  kind: LockKind,
  name: string,
  client?: BroadcastKafkaClient,
): Promise<Run> {
  const dataSource = kind === 'none' ? undefined : await openDataSource(kind, `${h.prefix}${name}`);
  const logger = new CapturingLogger(name);
  let armed: string | undefined;
  let stopping: Promise<void> | undefined;
  const after: string[] = [];
  const engine: BroadcastEngine = new BroadcastEngine(
    {
      kafka: { brokers: kafkaBrokers(), clientId: `${h.name}-${name}`, client },
      topicPrefix: h.prefix,
      consumer: FAST_CONSUMER,
      heartbeat: false,
      instanceId: name,
      startupTimeoutMs: 20_000,
      lock: kind === 'none' ? false : { checkIntervalMs: 100 },
    },
    {
      dataSource,
      logger,
      probe: (step) => {
        if (stopping) after.push(step);
        if (step === armed) stopping ??= engine.stop();
      },
    },
  );
  engine.on(TOPIC, () => undefined);
  return {
    engine,
    logger,
    dataSource,
    arm: (step) => (armed = step),
    stopped: () => stopping,
    after: () => after,
  };
}

async function memberCount(admin: Admin, prefix: string): Promise<Map<string, number>> {
  const groupIds = (await admin.listGroups()).groups
    .map((g) => g.groupId)
    .filter((g) => g.startsWith(prefix));
  // describe1: KIP-848 groups through ConsumerGroupDescribe.
  const views = await Promise.all(
    groupIds.map(async (g) => [g, await describe1(admin, g)] as const),
  );
  return new Map(
    views.filter(([, v]) => v.memberIds.length > 0).map(([g, v]) => [g, v.memberIds.length]),
  );
}

/** No member in any of the prefix's groups, now and for QUIET_MS, and no lock held. */
async function expectNothingLeft(
  h: EngineHarness,
  inspector: LockInspector | undefined,
  context: string,
): Promise<void> {
  const admin = await h.admin();
  const until = Date.now() + QUIET_MS;
  do {
    const members = await memberCount(admin, h.prefix);
    expect(Object.fromEntries(members), context).toEqual({});
    await new Promise((resolve) => setTimeout(resolve, 100));
  } while (Date.now() < until);
  if (inspector) {
    for (let id = 0; id < 4; id++)
      expect(await inspector.holder(id), `${context}: lock ${id}`).toBeUndefined();
  }
}

async function finish(run: Run): Promise<void> {
  await run.engine.stop();
  if (run.dataSource?.isInitialized) await run.dataSource.destroy();
}

// Every client adapter over every lock kind (MariaDB once: its locks differ from PostgreSQL's
// only in the provider, which these steps do not reach twice).
const STOP_ROWS = kafkaClients().flatMap((client) =>
  (
    [
      ['postgres', 3],
      ['mariadb', 1],
      ['none', 3],
    ] as const
  ).map(([kind, rounds]) => [client, kind, rounds] as const),
);

describe.each(STOP_ROWS)('%s client: stop() during startup (%s locks)', (client, kind, rounds) => {
  it.each(STARTUP_STEPS)(
    `at step %s, ${rounds}×: no member, no lock, no late join`,
    async (step) => {
      const h = useEngineHarness(`stop-${kind}-${step}`, undefined, client);
      const inspector =
        kind === 'none' ? undefined : await LockInspector.open(kind, h.lockNamespace);
      if (inspector) h.onCleanup(() => inspector.close());
      for (let round = 0; round < rounds; round++) {
        const run = await createEngine(h, kind, `r${round}`, client);
        try {
          run.arm(step);
          await expect(run.engine.start()).rejects.toThrow();
          expect(run.stopped(), `step ${step} reached`).toBeDefined();
          await run.stopped();
          await expectNothingLeft(h, inspector, `${kind}, stopped at ${step}, round ${round}`);
          // A stop during the consumer's connect (a round trip, so the stop surely lands while it
          // runs) lets none of its later steps run. (@platformatic/kafka's subscribe is
          // synchronous: a stop begun at it reaches the consumer once it is done.)
          if (step === 'connect')
            expect(run.after().filter((s) => CONSUMER_STEPS.includes(s))).toEqual([]);
        } catch (error) {
          console.log(run.logger.lines.map((l) => `${l.level} ${l.message}`).join('\n'));
          throw error;
        } finally {
          await finish(run);
        }
      }
    },
  );
});

describe.each(kafkaClients())(
  '%s client: stop() during recovery after the lock session was killed (postgres locks)',
  (client) => {
    it.each(RECOVERY_STEPS)('at step %s, 2×: no member, no lock, no late join', async (step) => {
      const h = useEngineHarness(`stop-recovery-${step}`, undefined, client);
      const inspector = await LockInspector.open('postgres', h.lockNamespace);
      h.onCleanup(() => inspector.close());
      for (let round = 0; round < 2; round++) {
        const run = await createEngine(h, 'postgres', `r${round}`, client);
        try {
          await run.engine.start();
          run.arm(step);
          await inspector.killHolder(run.engine.reader.status().lockId!);
          await waitFor(() => run.stopped() !== undefined, {
            message: `step ${step} not reached`,
          });
          await run.stopped();
          await expectNothingLeft(h, inspector, `stopped at ${step}, round ${round}`);
        } catch (error) {
          console.log(run.logger.lines.map((l) => `${l.level} ${l.message}`).join('\n'));
          throw error;
        } finally {
          await finish(run);
        }
      }
    });
  },
);

/** Runs the child until it exits by itself, or kills it after `timeoutMs` (then `code` is null). */
function runChild(
  config: object,
  timeoutMs: number,
): Promise<{ code: number | null; out: string }> {
  return new Promise((resolve) => {
    const child = spawn(
      process.execPath,
      ['test/support/faults/seams-stop-child.mjs', JSON.stringify(config)],
      {
        env: { ...process.env },
        stdio: ['ignore', 'pipe', 'pipe'],
      },
    );
    let out = '';
    child.stdout.on('data', (chunk) => (out += String(chunk)));
    child.stderr.on('data', (chunk) => (out += String(chunk)));
    const timer = setTimeout(() => {
      out += `\n(still running after ${timeoutMs} ms: killed)`;
      child.kill('SIGKILL');
    }, timeoutMs);
    child.on('exit', (code) => {
      clearTimeout(timer);
      resolve({ code, out });
    });
  });
}

describe.each(kafkaClients())(
  '%s client: a process stopped at any startup step exits by itself (no process.exit)',
  (client) => {
    beforeAll(() => void ensureLibBuilt());

    it.each(STARTUP_STEPS)('at step %s (postgres locks)', async (step) => {
      const h = useEngineHarness(`stop-exit-${step}`, undefined, client);
      const inspector = await LockInspector.open('postgres', h.lockNamespace);
      h.onCleanup(() => inspector.close());
      const { code, out } = await runChild(
        { brokers: kafkaBrokers(), prefix: h.prefix, lock: 'postgres', step, client },
        30_000,
      );
      expect(out).toContain(`reached ${step}`);
      expect(out).toContain('stopped');
      expect(code, out).toBe(0);
      await expectNothingLeft(h, inspector, `child stopped at ${step}`);
    });
  },
);
