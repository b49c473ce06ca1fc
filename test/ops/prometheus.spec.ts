/**
 * Every shipped alert proven by its cause, on a real Prometheus (Debian's package) scraping real
 * demo instances: apps/demo in child processes with their defaults (waitForReady false,
 * heartbeats every 5 s, PostgreSQL locks, @platformatic/kafka), each serving /metrics and its
 * probes through its own Nest HTTP server. One Prometheus and one fleet for the whole file; the
 * scenarios run at once, each on instances of its own topic prefix (its own pool):
 *
 * - pool (p1..p4, maxGroups 3): the third instance fills the pool (BroadcastPoolNearlyExhausted);
 *   a fourth waits for an id while answering its probes and /metrics (BroadcastPoolExhausted and
 *   BroadcastInstanceNotReady name it); a running one loses its group to a foreign member and
 *   waits too (BroadcastPoolExhausted names it); each resolves as its cause goes.
 * - handlers (h1): a malformed product.changed fails its three attempts, goes to the dead-letter
 *   topic and to a refused webhook (onHandlerError); a big one's dead letter is refused by the
 *   topic's max.message.bytes; a tracing SDK throws on a third (BroadcastHandlerFailing,
 *   ...RetriesExhausted, ...DeadLetters, ...DeadLetterFailed, ...FailureHookFailed,
 *   ...InternalErrors); a foreign member makes it move (BroadcastGroupMoves, ...ReaderRecovering).
 * - frozen (f1): SIGSTOP (BroadcastInstanceDown); meanwhile retention passes its position and its
 *   heartbeat topic is created again (BroadcastRecordsPassedOver, BroadcastRewound once resumed).
 * - secured broker (s1, b1): s1 lacks the READ ACL on its topic (BroadcastReaderProblem,
 *   ...NotReady and ...ReaderRecovering until it is granted); then the broker stops
 *   (BroadcastInstanceStale on both, whose readers stay ready) and starts again.
 *
 * What this proves: each alert's expression fires on the series real instances export when its
 * cause happens, with the labels docs/OPERATIONS.md documents and a runbook_url, and resolves
 * once the cause is gone. The rules are the shipped file with `for:` and the range windows
 * shortened (live-alerts.ts) and three thresholds lowered through `broadcast:threshold:*`
 * series. What promtool proves (alert-rules.spec.ts): the shipped `for:`, windows and default
 * thresholds, e.g. a 2-hour outage. Times from cause to firing and from cure to resolving are
 * printed as one table at the end.
 */
import { readFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { join } from 'node:path';
import type { Admin, Producer } from 'kafkajs';
import { onTestFailed } from 'vitest';
import { REPO_ROOT } from '../../scripts/kafka-cluster.mjs';
import { kafkaBrokers, testPrefix, waitFor } from '../support/broker/kafka.js';
import { connectedAdmin, connectedProducer, deletePrefix } from '../support/faults/faults.js';
import {
  adminKafka,
  grant,
  readmeAcls,
  startSecured,
  type ReadmeAcl,
  type SecuredCluster,
} from '../support/security/secured-cluster.js';
import { ensureDemoBuilt } from '../support/telemetry/demo-build.js';
import {
  DemoFleet,
  type DemoInstance,
  type DemoSpec,
} from '../support/telemetry/demo-instances.js';
import { AlertChecks, liveRules, THRESHOLDS } from '../support/telemetry/live-alerts.js';
import { Prometheus } from '../support/telemetry/prometheus.js';
import { frozenScenario } from './scenarios/frozen.js';
import { handlersScenario } from './scenarios/handlers.js';
import { poolScenario } from './scenarios/pool.js';
import { securedScenario } from './scenarios/secured.js';

const JOB = 'broadcast';
const TOPIC = 'product.changed';
const DASHBOARD = join(REPO_ROOT, 'libs/broadcast/ops/grafana/broadcast-fleet.dashboard.json');
const FAULTY_TRACER = join(REPO_ROOT, 'test/support/telemetry/faulty-tracer-preload.mjs');
const base = testPrefix('ops-live');
const PREFIX = {
  pool: `${base}pool.`,
  handlers: `${base}handlers.`,
  frozen: `${base}frozen.`,
  secured: `${base}secured.`,
  outage: `${base}outage.`,
};
const S1 = { user: 'ops-noread', password: 'ops-S3cret-7c51' };
const brokers = kafkaBrokers();

let prometheus: Prometheus;
let secured: SecuredCluster;
let admin: Admin;
let producer: Producer;
let checks: AlertChecks;
let fleet: DemoFleet;
const targets = new Map<string, string>();
const live: Record<string, DemoInstance> = {};
let s1ListeningAt = 0;

/** Spawns a demo, waits for its port and adds its /metrics to Prometheus's targets. */
async function spawnScraped(spec: DemoSpec): Promise<DemoInstance> {
  const instance = await fleet.spawn(spec).listening();
  targets.set(instance.name, instance.target);
  prometheus.setTargets([...targets.values()]);
  return (live[spec.name] = instance);
}

/**
 * An instance scaled away on purpose: Prometheus drops its target (as service discovery does
 * for a deleted pod), then it stops. It must not be reported down.
 */
async function scaleAway(instance: DemoInstance): Promise<void> {
  targets.delete(instance.name);
  prometheus.setTargets([...targets.values()]);
  await waitFor(
    async () => (await prometheus.query(`up{instance="${instance.target}"}`)).length === 0,
    {
      timeoutMs: 15_000,
      intervalMs: 200,
      message: `Prometheus still scrapes ${instance.name}`,
    },
  );
  await instance.stop();
}

/** A port nothing listens on: the webhook h1's onHandlerError posts to is refused. */
async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  await new Promise((resolve) => server.close(resolve));
  return port;
}

const isTopicRead = (prefix: string) => (a: ReadmeAcl) =>
  a.resourceType === 'topic' && a.operation === 'READ' && a.name === `${prefix}${TOPIC}`;

beforeAll(async () => {
  const started = Promise.all([
    Prometheus.start(
      { 'broadcast.rules.yml': liveRules(), 'thresholds.rules.yml': THRESHOLDS },
      // A scrape every 2 s (timeout 1.6 s), so that a loaded machine is not a target down.
      { job: JOB, intervalSeconds: 1, scrapeSeconds: 2 },
    ),
    startSecured({ [S1.user]: S1.password }),
    connectedAdmin(brokers),
    connectedProducer(brokers),
  ]);
  // Synchronous (tsc): the broker's JVM and Prometheus start meanwhile.
  fleet = new DemoFleet(ensureDemoBuilt());
  [prometheus, secured, admin, producer] = await started;
  prometheus.watch();
  checks = new AlertChecks(prometheus);
  const s1Acls = readmeAcls(PREFIX.secured, [TOPIC]);
  await grant(
    secured,
    S1.user,
    s1Acls.filter((a) => !isTopicRead(PREFIX.secured)(a)),
  );
  const webhook = `http://127.0.0.1:${await closedPort()}/hook`;
  const pool = { BROADCAST_MAX_GROUPS: '3' };
  await Promise.all([
    spawnScraped({ name: 'p1', brokers, prefix: PREFIX.pool, env: pool }),
    spawnScraped({ name: 'p2', brokers, prefix: PREFIX.pool, env: pool }),
    spawnScraped({
      name: 'h1',
      brokers,
      prefix: PREFIX.handlers,
      env: { DEMO_FAILURE_WEBHOOK: webhook },
      nodeArgs: ['--import', FAULTY_TRACER],
    }),
    spawnScraped({ name: 'f1', brokers, prefix: PREFIX.frozen }),
    spawnScraped({
      name: 's1',
      brokers: secured.saslBrokers,
      prefix: PREFIX.secured,
      env: {
        KAFKA_SSL_CA_FILE: secured.caFile,
        KAFKA_SASL_MECHANISM: 'scram-sha-512',
        KAFKA_SASL_USERNAME: S1.user,
        KAFKA_SASL_PASSWORD: S1.password,
        BROADCAST_DEAD_LETTER_TOPIC: '',
      },
    }),
    spawnScraped({ name: 'b1', brokers: secured.brokers, prefix: PREFIX.outage }),
  ]);
  s1ListeningAt = live.s1!.listeningAt;
  await Promise.all(['p1', 'p2', 'h1', 'f1', 'b1'].map((n) => live[n]!.ready()));
  // h1's dead-letter topic takes no record over 2 KB: a big record's dead letter is refused.
  await admin.alterConfigs({
    validateOnly: false,
    resources: [
      {
        type: 2, // TOPIC
        name: `${PREFIX.handlers}dead-letters`,
        configEntries: [{ name: 'max.message.bytes', value: '2048' }],
      },
    ],
  });
}, 240_000);

afterAll(async () => {
  if (checks) console.log(`[ops] alerts on real instances:\n${checks.table()}`);
  await fleet?.stopAll();
  await prometheus?.stop();
  await secured?.stop();
  await producer?.disconnect();
  for (const prefix of [PREFIX.pool, PREFIX.handlers, PREFIX.frozen])
    await deletePrefix(admin, prefix).catch(() => undefined);
  await admin?.disconnect();
});

beforeEach(() => {
  onTestFailed(() => console.log(`${fleet?.diagnostics()}\n${prometheus?.diagnostics()}`));
});

it('a healthy fleet fires nothing: every instance exports its series, only s1 (no READ ACL) alerts', async () => {
  const s1Target = live.s1!.target;
  const others = (labels: Record<string, string>) =>
    labels.broadcast_instance !== 's1' && labels.instance !== s1Target;
  await prometheus.alertsUntil(
    (alerts) => alerts.filter((a) => others(a.labels)).length === 0,
    Date.now(),
    'alerts of a healthy fleet',
  );
  await waitFor(
    async () =>
      (await prometheus.query('count by (instance) (broadcast_state) and on (instance) up == 1'))
        .length === targets.size,
    { timeoutMs: 30_000, intervalMs: 250, message: 'every target scraped, with broadcast series' },
  );
});

describe.concurrent('each shipped alert, caused on real instances', () => {
  const env = () => ({ prometheus, checks, admin, producer, live, brokers, PREFIX, TOPIC });

  it('the pool: filled, a newcomer waits, a running instance waits, each resolves', async () => {
    await poolScenario({ ...env(), spawnScraped, scaleAway });
  }, 300_000);

  it('handlers, retries, dead letters, the failure hook, an instrumentation, group moves', async () => {
    await handlersScenario(env());
  }, 300_000);

  it('a frozen instance; records it missed (retention) and a log that ended before it', async () => {
    await frozenScenario(env());
  }, 300_000);

  it('a missing ACL, then the broker stopped and started again', async () => {
    const readAcl = readmeAcls(PREFIX.secured, [TOPIC]).filter(isTopicRead(PREFIX.secured));
    await securedScenario({
      ...env(),
      secured,
      s1ListeningAt,
      grantRead: () => grant(secured, S1.user, readAcl),
      publishSecured: async (topic, message) => {
        // As the admin, a super user (who publishes is not the point).
        const producer = adminKafka(secured).producer();
        await producer.connect();
        try {
          await producer.send({ topic, messages: [message] });
        } finally {
          await producer.disconnect();
        }
      },
    });
  }, 300_000);
});

describe('after the scenarios', () => {
  it('every shipped alert fired and resolved', () => {
    const shipped = [
      ...readFileSync(
        join(REPO_ROOT, 'libs/broadcast/ops/prometheus/broadcast.rules.yml'),
        'utf8',
      ).matchAll(/^\s+- alert: (\w+)$/gm),
    ].map((m) => m[1]!);
    expect(shipped).toHaveLength(16);
    for (const alert of shipped) {
      const seen = checks.figures.filter((f) => f.alert === alert);
      expect(
        seen.some((f) => f.fireMs !== undefined),
        `${alert} fired`,
      ).toBe(true);
      expect(
        seen.every((f) => f.resolveMs !== undefined),
        `${alert} resolved`,
      ).toBe(true);
    }
  });

  it('BroadcastInstanceDown fired for the frozen instance, not for the instances scaled away', () => {
    const down = prometheus.everFiring('BroadcastInstanceDown').map((a) => a.labels.instance);
    expect(down).toContain(live.f1!.target);
    for (const name of ['p3', 'p4']) expect(down).not.toContain(live[name]!.target);
  });

  it('every query of the Grafana dashboard returns series', async () => {
    const dashboard = JSON.parse(readFileSync(DASHBOARD, 'utf8')) as {
      panels: { title: string; targets?: { expr: string }[] }[];
    };
    const queries = dashboard.panels.flatMap((p) =>
      (p.targets ?? []).map((t) => ({ panel: p.title, expr: t.expr })),
    );
    expect(queries.length).toBeGreaterThan(20);
    const empty: string[] = [];
    for (const { panel, expr } of queries) {
      // What Grafana does with the dashboard's variable when "All" jobs are picked.
      const result = await prometheus.query(expr.replaceAll('$job', '.+'));
      if (result.length === 0) empty.push(`${panel}: ${expr}`);
    }
    expect(empty).toEqual([]);
  });
});
