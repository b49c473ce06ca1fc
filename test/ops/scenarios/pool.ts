// The pool (p1..p4 of maxGroups 3): filled (BroadcastPoolNearlyExhausted); a newcomer waits while
// answering its probes and /metrics (BroadcastPoolExhausted and BroadcastInstanceNotReady name
// it); a running instance loses its group to a foreign member and waits too; each resolves.
import type { DemoInstance, DemoSpec } from '../../support/telemetry/demo-instances.js';
import { FOR_MS } from '../../support/telemetry/live-alerts.js';
import { foreignMember, groupOf, type OpsEnv } from './shared.js';

export async function poolScenario(
  env: OpsEnv & {
    spawnScraped: (spec: DemoSpec) => Promise<DemoInstance>;
    scaleAway: (instance: DemoInstance) => Promise<void>;
  },
): Promise<void> {
  const { checks, prometheus, live, brokers, PREFIX, TOPIC } = env;
  const pool = `${PREFIX.pool}broadcastConsumer`;
  const spec = (name: string): DemoSpec => ({
    name,
    brokers,
    prefix: PREFIX.pool,
    env: { BROADCAST_MAX_GROUPS: '3' },
  });

  let t = Date.now();
  const p3 = await env.spawnScraped(spec('p3'));
  const nearly = await checks.fired(
    'BroadcastPoolNearlyExhausted',
    { broadcast_pool: pool },
    t,
    'p3 takes the last id of maxGroups 3',
  );
  expect(nearly.annotations.summary).toBe(`pool ${pool} is 100% used`);

  // A newcomer in the full pool: its port, liveness and /metrics answer while it waits.
  t = Date.now();
  const p4 = await env.spawnScraped(spec('p4'));
  const exhausted = await checks.fired(
    'BroadcastPoolExhausted',
    { broadcast_instance: 'p4' },
    t,
    'p4 started into the full pool',
  );
  expect(Date.now() - t).toBeLessThanOrEqual(FOR_MS + 60_000);
  expect(exhausted.labels).toMatchObject({ broadcast_pool: pool, instance: p4.target });
  expect(exhausted.annotations.summary).toBe(`p4 waits for an id of pool ${pool}`);
  expect(exhausted.annotations.description).toContain(`(maxGroups 3) is held, and p4`);
  const notReady = await checks.fired(
    'BroadcastInstanceNotReady',
    { broadcast_instance: 'p4' },
    t,
    'p4 waits for a pool id (unready_ms 15000)',
  );
  expect(notReady.annotations.summary).toMatch(/^p4 not ready for .*, waiting for a pool id$/);
  expect((await p4.get('/health/live')).code).toBe(200);
  expect(await p4.get('/health/ready')).toMatchObject({
    code: 503,
    body: { details: { broadcast: { status: 'down', waitingFor: 'pool' } } },
  });
  expect(await prometheus.query(`up{instance="${p4.target}"} == 1`)).toHaveLength(1);
  expect(p4.alive).toBe(true); // waiting, not crash-looping

  // A running instance loses its group in the full pool and waits for an id too.
  const p2 = live.p2!;
  const foreign = await foreignMember(brokers, await groupOf(p2), PREFIX.pool + TOPIC);
  try {
    t = Date.now();
    await checks.fired(
      'BroadcastPoolExhausted',
      { broadcast_instance: 'p2' },
      t,
      'a foreign member took running p2 out of its group in the full pool',
    );
    t = Date.now();
    await env.scaleAway(p4);
    await Promise.all([
      checks.resolved('BroadcastPoolExhausted', { broadcast_instance: 'p4' }, t, 'p4 scaled away'),
      checks.resolved(
        'BroadcastInstanceNotReady',
        { broadcast_instance: 'p4' },
        t,
        'p4 scaled away',
      ),
    ]);
  } finally {
    t = Date.now();
    await foreign.disconnect();
  }
  await checks.resolved(
    'BroadcastPoolExhausted',
    { broadcast_instance: 'p2' },
    t,
    'the foreign member left: p2 takes its id again',
  );
  // Back to 3 of 3 (it may have dropped while p2 waited), then one fewer.
  await prometheus.alertsUntil(
    (alerts) =>
      alerts.some(
        (a) => a.labels.alertname === 'BroadcastPoolNearlyExhausted' && a.state === 'firing',
      ),
    Date.now(),
    'the pool full again',
  );
  t = Date.now();
  await env.scaleAway(p3);
  await checks.resolved(
    'BroadcastPoolNearlyExhausted',
    { broadcast_pool: pool },
    t,
    'p3 scaled away',
  );
}
