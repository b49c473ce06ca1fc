// Start-up failures as an app meets them: each case runs in standalone child processes (an ESM
// module with top-level await, a CommonJS script with `void engine.start()`, a Nest app made as
// `nest new` makes one), on each client, with nothing else keeping the process alive. Each must
// end non-zero, before its deadline, with the message naming the option on stderr: never a
// silent exit (issue #28: exit 13 or 0 with nothing printed) while start() was still pending.
// A SIGTERM while a Nest app waits for a full pool ends it cleanly (no stack), and an engine that
// starts and stops logs one line for each. An unreachable broker is named at its first failed
// attempt by one warning (issue #38: silent until startupTimeoutMs), long before the error.
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { BroadcastModuleOptions } from 'nestjs-kafka-broadcast';
import { connectedAdmin, deletePrefix, describe1, prefixGroups } from '../support/faults/faults.js';
import {
  kafkaClients,
  groupProtocolOf,
  type BroadcastKafkaClient,
} from '../support/broker/kafka-clients.js';
import { kafkaBrokers, testPrefix } from '../support/broker/kafka.js';
import { lockKeyOf } from '../support/nest/nest.js';
import {
  securedKafka,
  startSecured,
  type SecuredCluster,
} from '../support/security/secured-cluster.js';
import {
  describeRun,
  ensureCjsLibBuilt,
  expectWarnedFirst,
  runStartupChild,
  type StartupChildKind,
  type StartupChildRun,
} from '../support/nest/startup-children.js';

const PASSWORD = 'sp-S3cret-4a2c9';
const BARE_PASSWORD = 'sb-S3cret-e71f0';
const WRONG_PASSWORD = 'sw-r0ng-S3cret-93d1';
const STARTUP_TIMEOUT_MS = 4_000;
/**
 * Import, start-up and exit of a child, several at once on a shared 2-core host: far above what a
 * failing start takes (startupTimeoutMs and a second), far below "never" (a process held open).
 */
const DEADLINE_MS = 45_000;
/**
 * A TLS handshake with the secured broker takes seconds when the host is busy. A refusal is
 * reported at once, so the longer start-up deadline costs nothing when the broker answers.
 */
const SLOW_TLS = { connectionTimeoutMs: 10_000 };
const SECURED_STARTUP_TIMEOUT_MS = 20_000;
const UNREACHABLE_STARTUP_TIMEOUT_MS = 12_000;
const KINDS: readonly StartupChildKind[] = ['esm', 'cjs', 'nest'];

let cluster: SecuredCluster;
/** Holds the advisory locks that make a pool full (see occupyPool). */
const holder = new pg.Client({
  host: '127.0.0.1',
  port: 5432,
  user: 'postgres',
  database: 'test',
  application_name: 'startup-process-holder',
});
const figures: string[] = [];
const prefixes: string[] = [];

beforeAll(async () => {
  // Both builds before any child runs: a build blocks this process, and with it the children's clocks.
  ensureCjsLibBuilt();
  // svc exists with PASSWORD (a wrong password is refused); bare logs in and holds no ACL.
  cluster = await startSecured({ svc: PASSWORD, bare: BARE_PASSWORD });
  await holder.connect();
  // A build and a secured broker's JVM: past the default 120 s at load 16 in CI (2026-12-07,
  // four files at a time), as security/startup.spec.ts's start already allows.
}, 300_000);

afterAll(async () => {
  console.log(`start-up failures in child processes:\n  ${figures.join('\n  ')}`);
  await holder.end().catch(() => undefined);
  await cluster?.stop();
  const admin = await connectedAdmin(kafkaBrokers());
  try {
    for (const prefix of prefixes) await deletePrefix(admin, prefix);
  } finally {
    await admin.disconnect();
  }
});

/** Options every child gets: short timings, its own prefix, no database unless a case adds one. */
function baseOptions(label: string, client: BroadcastKafkaClient) {
  const topicPrefix = testPrefix(`startup-${label}-${client}`);
  prefixes.push(topicPrefix);
  return {
    topicPrefix,
    lock: false as const,
    startupTimeoutMs: STARTUP_TIMEOUT_MS,
    heartbeat: false as const,
    consumer: { sessionTimeoutMs: 6_000, heartbeatIntervalMs: 500, maxWaitTimeMs: 100 },
    kafka: { brokers: kafkaBrokers(), client, ...groupProtocolOf(client) },
  };
}

/** Holds advisory lock 0 of `prefix`'s namespace, so a pool of one group is full. */
async function occupyPool(prefix: string): Promise<void> {
  await holder.query('SELECT pg_advisory_lock($1::int4, 0)', [lockKeyOf(prefix)]);
}

interface FailureCase {
  name: string;
  options(client: BroadcastKafkaClient): Promise<Record<string, unknown>> | Record<string, unknown>;
  /** What stderr must say: the cause and the option to check. */
  expected: RegExp;
  /** Locks of a `pg` pool (functions cannot cross into the child as JSON). */
  pgLocks?: boolean;
  kinds?: readonly StartupChildKind[];
  /**
   * One warning, and one only, that comes before the error: in the same stream (stderr) for the
   * plain apps; Nest logs warnings on stdout, its error on stderr, so there only its presence.
   */
  warnedFirst?: RegExp;
}

const CASES: FailureCase[] = [
  {
    name: 'broker unreachable',
    options: (client) => {
      const base = baseOptions('unreachable', client);
      return {
        ...base,
        // The client's import counts against startupTimeoutMs (seconds on a loaded host): the
        // first attempt must still fit in what it leaves, to be warned about before the error.
        startupTimeoutMs: UNREACHABLE_STARTUP_TIMEOUT_MS,
        kafka: { ...base.kafka, brokers: ['127.0.0.1:1'], connectionTimeoutMs: 1_000 },
      };
    },
    expected: /Could not reach Kafka at 127\.0\.0\.1:1: .*Check the option kafka\.brokers/,
    warnedFirst:
      /Could not reach Kafka at 127\.0\.0\.1:1: .*ECONNREFUSED.*\. Still trying until startupTimeoutMs ends, at \d{4}-\d\d-\d\dT[\d:.]+Z; check the option kafka\.brokers/,
  },
  {
    name: 'login refused',
    options: (client) => ({
      ...baseOptions('login', client),
      startupTimeoutMs: SECURED_STARTUP_TIMEOUT_MS,
      kafka: securedKafka(cluster, 'svc', WRONG_PASSWORD, { client, ...SLOW_TLS }),
    }),
    expected:
      /refused the SASL login of user "svc" \(scram-sha-512\).*Check the option kafka\.sasl/,
  },
  {
    name: 'missing ACL',
    options: (client) => ({
      ...baseOptions('acl', client),
      startupTimeoutMs: SECURED_STARTUP_TIMEOUT_MS,
      kafka: securedKafka(cluster, 'bare', BARE_PASSWORD, { client, ...SLOW_TLS }),
    }),
    expected: /Kafka denied .*: the principal lacks the [A-Z]+[^.]* ACL on that topic/,
  },
  {
    name: 'bad option',
    options: (client) => ({ ...baseOptions('bad-option', client), maxGroups: 0 }),
    expected:
      /Invalid BroadcastModule option "maxGroups": expected an integer from 1 to 1000000, got 0/,
  },
  {
    name: 'misspelled option key',
    options: (client) => {
      const { topicPrefix, ...base } = baseOptions('misspelled', client);
      return { ...base, topicPrefx: topicPrefix };
    },
    expected: /Unknown BroadcastModule option "topicPrefx": did you mean "topicPrefix"\?/,
    // The case: the key came from a forRootAsync factory.
    kinds: ['esm', 'cjs', 'nest', 'nest-async'],
  },
  {
    name: 'full pool',
    options: async (client) => {
      const base = baseOptions('full-pool', client);
      await occupyPool(base.topicPrefix);
      // Long enough for one pass over the pool on a loaded host (the message then names maxGroups).
      return { ...base, maxGroups: 1, lock: {}, startupTimeoutMs: 15_000 };
    },
    pgLocks: true,
    expected:
      /Broadcast group pool exhausted: .*\(maxGroups 1\).* Could not allocate a broadcast consumer group within \d+ ms/,
  },
];

describe.each(kafkaClients())(
  'a start-up failure on %s ends the process with its message',
  (client) => {
    it.each(CASES)(
      '$name',
      async ({ name, options, expected, pgLocks, kinds = KINDS, warnedFirst }) => {
        const given = await options(client);
        const runs = await Promise.all(
          kinds.map((kind) =>
            runStartupChild(kind, {
              options: given as Partial<BroadcastModuleOptions>,
              deadlineMs: DEADLINE_MS,
              ...(pgLocks && { pgLocks: `startup-${client}-${kind}` }),
            }),
          ),
        );
        for (const run of runs) {
          figures.push(describeRun(`${client} ${name}`, run));
          expectFailedLoudly(run, expected);
          if (warnedFirst) expectWarnedFirst(run, warnedFirst, expected);
        }
      },
    );
  },
);

/** Ended by itself, non-zero, with the message on stderr. */
function expectFailedLoudly(run: StartupChildRun, expected: RegExp) {
  const output = `${run.kind}: exit ${run.code} signal ${run.signal}\n--- stdout\n${run.stdout}\n--- stderr\n${run.stderr}`;
  expect(run.killed, output).toBe(false);
  expect(run.code, output).not.toBe(0);
  expect(run.code, output).not.toBeNull();
  expect(run.stderr, output).toMatch(expected);
}

/** Members of `prefix`'s groups, and the pg sessions named `applicationName`, once settled. */
async function leftovers(prefix: string, applicationName: string) {
  const admin = await connectedAdmin(kafkaBrokers());
  try {
    const groups = await prefixGroups(admin, prefix);
    const members = (await Promise.all(groups.map((g) => describe1(admin, g)))).flatMap(
      (d) => d.memberIds,
    );
    // A backend ends a moment after its client went away.
    let sessions = -1;
    for (const deadline = Date.now() + 10_000; sessions !== 0 && Date.now() < deadline;) {
      const { rows } = await holder.query<{ n: number }>(
        'SELECT count(*)::int AS n FROM pg_stat_activity WHERE application_name = $1',
        [applicationName],
      );
      sessions = rows[0]!.n;
      if (sessions !== 0) await new Promise((r) => setTimeout(r, 100));
    }
    return { members, sessions };
  } finally {
    await admin.disconnect();
  }
}

describe.each(kafkaClients())('a Nest app on %s stopped by SIGTERM during start-up', (client) => {
  it('ends cleanly while the pool is full: no stack, one line, nothing left', async () => {
    const base = baseOptions('sigterm', client);
    await occupyPool(base.topicPrefix);
    const applicationName = `startup-sigterm-${client}`;
    const run = await runStartupChild('nest', {
      // Far beyond the deadline: only the stop can end start() in time.
      options: { ...base, maxGroups: 1, lock: {}, startupTimeoutMs: 120_000 },
      pgLocks: applicationName,
      deadlineMs: DEADLINE_MS,
      sigtermWhen: /pool exhausted/,
    });
    figures.push(describeRun(`${client} SIGTERM while the pool is full`, run));
    const output = `exit ${run.code} signal ${run.signal}\n--- stdout\n${run.stdout}\n--- stderr\n${run.stderr}`;
    expect(run.killed, output).toBe(false);
    // Nest re-raises the signal once its shutdown hooks ran: 143 in a shell.
    expect(run.signal, output).toBe('SIGTERM');
    expect(run.stdout + run.stderr, output).not.toMatch(/\n\s+at |Error:/);
    expect(
      run.stdout.match(
        /Broadcast start-up cancelled by stop: the application is shutting down on SIGTERM/g,
      ),
      output,
    ).toHaveLength(1);
    expect(run.stdout, output).not.toMatch(/successfully started/);
    expect(run.stdout, output).toMatch(
      /Broadcast engine stopped in \d+ ms: no consumer group was held/,
    );
    expect(await leftovers(base.topicPrefix, applicationName)).toEqual({
      members: [],
      sessions: 0,
    });
  });
});

describe.each(kafkaClients())(
  'an engine on %s that starts and stops logs one line each',
  (client) => {
    it('lock-free (ESM) and with PostgreSQL locks (CommonJS): group, lock, client, protocol, times', async () => {
      const protocol = client === 'kafkajs' ? 'classic' : '(classic|consumer)';
      const lockFree = baseOptions('lines-lock-free', client);
      const locked = baseOptions('lines-locked', client);
      const [esm, cjs] = await Promise.all([
        runStartupChild('esm', {
          options: { ...lockFree, startupTimeoutMs: 30_000 },
          deadlineMs: DEADLINE_MS,
        }),
        runStartupChild('cjs', {
          options: { ...locked, lock: {}, startupTimeoutMs: 30_000 },
          pgLocks: `startup-lines-${client}`,
          deadlineMs: DEADLINE_MS,
          env: { STARTUP_STOP_AFTER_START: '1' },
        }),
      ]);
      for (const [run, prefix, lock, released] of [
        [esm, lockFree.topicPrefix, 'lock-free', 'lock-free'],
        [
          cjs,
          locked.topicPrefix,
          'advisory lock 0 \\(postgres\\)',
          'released advisory lock 0 \\(postgres\\)',
        ],
      ] as const) {
        figures.push(describeRun(`${client} lifecycle lines`, run));
        const output = `exit ${run.code}\n--- stdout\n${run.stdout}\n--- stderr\n${run.stderr}`;
        expect(run.code, output).toBe(0);
        const group = `${prefix.replace(/\./g, '\\.')}broadcast(LFConsumer-\\d+|Consumer-0)`;
        const ready = new RegExp(
          `^\\[broadcast\\] Reading broadcasts through consumer group ${group} \\(ready in \\d+ ms; ${lock}; client ${client}, ${protocol} protocol\\) \\{"group":"${group}",.*"client":"${client}","groupProtocol":"${protocol}","startMs":\\d+\\}$`,
          'm',
        );
        const stopped = new RegExp(
          `^\\[broadcast\\] Broadcast engine stopped in \\d+ ms: left consumer group ${group}, ${released} \\{"group":"${group}",.*"stopMs":\\d+\\}$`,
          'm',
        );
        expect(run.stdout, output).toMatch(ready);
        expect(run.stdout, output).toMatch(stopped);
        expect(run.stdout.match(/Reading broadcasts through/g), output).toHaveLength(1);
        expect(run.stdout.match(/Broadcast engine stopped/g), output).toHaveLength(1);
      }
    });
  },
);
