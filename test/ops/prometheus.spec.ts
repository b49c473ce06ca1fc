/**
 * The shipped alert rules and dashboard against a real Prometheus (Debian's package) scraping
 * the `/metrics` of three real instances (child processes, real engines with PostgreSQL locks,
 * the library's OpenTelemetry metrics through the Prometheus exporter, as the demo serves them)
 * on a private one-node broker. Faults: the broker stopped and started again (every instance's
 * BroadcastInstanceStale fires, then resolves), one instance frozen with SIGSTOP and resumed
 * (BroadcastInstanceDown fires, then resolves), a fourth instance for a pool of three
 * (BroadcastPoolExhausted fires, then resolves once it stops). Then every query of the Grafana
 * dashboard returns series. The rules are the shipped file with its `for:` durations shortened
 * to the test's scale (the thresholds are the shipped defaults, except the staleness bound,
 * which is each instance's own health.maxStalenessMs). Times from each fault to firing and from
 * each repair to resolving are printed.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { onTestFailed } from 'vitest';
import { REPO_ROOT, startCluster, type KafkaCluster } from '../../scripts/kafka-cluster.mjs';
import { ensureLibBuilt, FAST_CONSUMER, LOCK_CHECK_INTERVAL_MS } from '../support/faults/faults.js';
import { Instances, type Instance, type InstanceConfig } from '../support/faults/instances.js';
import { testPrefix, waitFor } from '../support/broker/kafka.js';
import { firing, listed, Prometheus } from '../support/telemetry/prometheus.js';

const RULES = join(REPO_ROOT, 'libs/broadcast/ops/prometheus/broadcast.rules.yml');
const DASHBOARD = join(REPO_ROOT, 'libs/broadcast/ops/grafana/broadcast-fleet.dashboard.json');
const PRELOAD = join(REPO_ROOT, 'test/support/telemetry/metrics-preload.mjs');
const JOB = 'broadcast';
const TOPIC = 'news';
const MAX_GROUPS = 3;
/** The shipped `for:` durations (1m, 10m) at the scale of a 1 s scrape and evaluation. */
const TEST_FOR = '2s';

const fleet = new Instances();
let cluster: KafkaCluster | undefined;
let prometheus: Prometheus | undefined;
let prefix: string;
let instances: Instance[] = [];
const targets = new Map<string, string>();
const figures: Record<string, number> = {};

function instanceConfig(name: string): InstanceConfig {
  return {
    name,
    brokers: cluster!.brokers,
    prefix,
    lock: 'postgres',
    topics: [TOPIC],
    consumer: FAST_CONSUMER,
    lockCheckIntervalMs: LOCK_CHECK_INTERVAL_MS,
    heartbeat: { intervalMs: 500 },
    maxStalenessMs: 2_000,
    maxGroups: MAX_GROUPS,
    startupTimeoutMs: 120_000,
    nodeArgs: ['--import', PRELOAD],
  };
}

/** Spawns an instance and adds its /metrics to Prometheus's targets. */
async function spawnScraped(name: string): Promise<Instance> {
  const instance = fleet.spawn(instanceConfig(name));
  const { port } = await instance.waitFor<{ event: string; at: number; port: number }>(
    (e) => e.event === 'metrics',
    { message: 'its metrics port' },
  );
  targets.set(name, `127.0.0.1:${port}`);
  prometheus!.setTargets([...targets.values()]);
  return instance;
}

function unscrape(name: string): void {
  targets.delete(name);
  prometheus!.setTargets([...targets.values()]);
}

function record(name: string, ms: number): void {
  figures[name] = ms;
  console.log(`[ops-prometheus] ${name}: ${ms} ms`);
}

beforeAll(async () => {
  ensureLibBuilt();
  prefix = testPrefix('ops-prometheus');
  const shipped = readFileSync(RULES, 'utf8');
  const rules = shipped.replace(/^(\s+for:) \d+[smh]$/gm, `$1 ${TEST_FOR}`);
  expect(rules).not.toBe(shipped);
  [cluster, prometheus] = await Promise.all([
    startCluster({ nodes: 1, quiet: true }),
    Prometheus.start({ 'broadcast.rules.yml': rules }, { job: JOB }),
  ]);
  instances = await Promise.all(['a', 'b', 'c'].map(spawnScraped));
  await Promise.all(instances.map((i) => i.ready()));
  // Traffic for the counters and histograms: one broadcast from each, received by all three.
  for (const [n, i] of instances.entries())
    i.send(`publish ${JSON.stringify({ id: `m${n}`, topic: TOPIC, payload: { n } })}`);
  await waitFor(() => instances.every((i) => i.payloads(TOPIC).length === 3), {
    timeoutMs: 30_000,
    message: `broadcasts not received by all\n${fleet.diagnostics()}`,
  });
  await waitFor(
    async () =>
      (await prometheus!.query(`up{job="${JOB}"} == 1 and on (instance) broadcast_staleness`))
        .length === 3,
    { timeoutMs: 30_000, intervalMs: 200, message: 'Prometheus never scraped all three' },
  );
}, 180_000);

afterAll(async () => {
  for (const i of fleet.alive) if (i.pid) process.kill(i.pid, 'SIGCONT');
  await fleet.stopAll(20_000);
  await fleet.killAll();
  await prometheus?.stop();
  await cluster?.stop();
  console.log(`[ops-prometheus] figures ${JSON.stringify(figures)}`);
});

describe('shipped alert rules on a real Prometheus scraping three real instances', () => {
  beforeEach(() => {
    onTestFailed(() => console.log(`${fleet.diagnostics()}\n${prometheus?.diagnostics()}`));
  });

  it('broker stopped: every instance goes stale and alerts; broker back: every alert resolves', async () => {
    const names = instances.map((i) => i.name);
    await prometheus!.alertsUntil(
      (alerts) => listed(alerts, 'BroadcastInstanceStale').length === 0,
      Date.now(),
      'stale alerts before the outage',
    );
    const stopBegan = Date.now();
    await cluster!.stopNode(1);
    const downAt = Date.now();
    record('broker controlled shutdown (stopNode)', downAt - stopBegan);
    record(
      'broker stopped -> BroadcastInstanceStale firing for all 3',
      await prometheus!.alertsUntil(
        (alerts) =>
          names.every(
            (n) => firing(alerts, 'BroadcastInstanceStale', ['broadcast_instance', n]).length,
          ),
        downAt,
        'every instance stale',
      ),
    );
    const startBegan = Date.now();
    await cluster!.startNode(1);
    const upAt = Date.now();
    record('broker restart until it answers (startNode)', upAt - startBegan);
    record(
      'broker answering again -> every BroadcastInstanceStale resolved',
      await prometheus!.alertsUntil(
        (alerts) => listed(alerts, 'BroadcastInstanceStale').length === 0,
        upAt,
        'stale alerts resolved',
        120_000,
      ),
    );
  }, 240_000);

  it('one instance frozen (SIGSTOP): its BroadcastInstanceDown fires; resumed: it resolves', async () => {
    const frozen = instances[1]!;
    const target = targets.get(frozen.name)!;
    process.kill(frozen.pid!, 'SIGSTOP');
    const stoppedAt = Date.now();
    try {
      record(
        'SIGSTOP -> BroadcastInstanceDown firing',
        await prometheus!.alertsUntil(
          (alerts) => firing(alerts, 'BroadcastInstanceDown', ['instance', target]).length === 1,
          stoppedAt,
          `${target} down`,
        ),
      );
      // Only the frozen one.
      expect(firing(await prometheus!.alerts(), 'BroadcastInstanceDown')).toHaveLength(1);
    } finally {
      process.kill(frozen.pid!, 'SIGCONT');
    }
    const resumedAt = Date.now();
    record(
      'SIGCONT -> BroadcastInstanceDown resolved',
      await prometheus!.alertsUntil(
        (alerts) => listed(alerts, 'BroadcastInstanceDown').length === 0,
        resumedAt,
        'down alert resolved',
      ),
    );
  }, 120_000);

  it(`a fourth instance for a pool of ${MAX_GROUPS}: BroadcastPoolExhausted fires; it stops: it resolves`, async () => {
    const pool = `${prefix}broadcastConsumer`; // the default locked base
    const spawnedAt = Date.now();
    const fourth = await spawnScraped('d');
    record(
      'fourth instance spawned -> BroadcastPoolExhausted firing',
      await prometheus!.alertsUntil(
        (alerts) => firing(alerts, 'BroadcastPoolExhausted', ['broadcast_pool', pool]).length === 1,
        spawnedAt,
        `pool ${pool} exhausted`,
      ),
    );
    const [waiting] = await prometheus!.query('broadcast:pool_waiting:count');
    expect(waiting?.metric.broadcast_pool).toBe(pool);
    expect(Number(waiting?.value[1])).toBe(1);
    const [size] = await prometheus!.query('broadcast:pool_size:max');
    expect(Number(size?.value[1])).toBe(MAX_GROUPS);
    expect((await fourth.status()).poolExhausted).toBe(true);

    const stoppedAt = Date.now();
    await fourth.terminate();
    unscrape('d');
    record(
      'fourth instance stopped -> BroadcastPoolExhausted resolved',
      await prometheus!.alertsUntil(
        (alerts) => listed(alerts, 'BroadcastPoolExhausted').length === 0,
        stoppedAt,
        'pool alert resolved',
      ),
    );
  }, 120_000);

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
      const result = await prometheus!.query(expr.replaceAll('$job', '.+'));
      if (result.length === 0) empty.push(`${panel}: ${expr}`);
    }
    expect(empty).toEqual([]);
  });
});
