// The secured broker: s1 lacks the READ ACL on its topic (BroadcastReaderProblem, and the reader
// kept from ready: ...NotReady, ...ReaderRecovering, until granted); then the broker stops
// (BroadcastInstanceStale on s1 and b1, whose readers keep their members and stay ready: issue
// #37) and starts again: the recovery after a broker restart is measured here.
import type { SecuredCluster } from '../../support/security/secured-cluster.js';
import { event, type OpsEnv } from './shared.js';

export async function securedScenario(
  env: OpsEnv & {
    secured: SecuredCluster;
    s1ListeningAt: number;
    grantRead: () => Promise<void>;
    publishSecured: (topic: string, message: { value: string }) => Promise<void>;
  },
): Promise<void> {
  const { checks, live, secured } = env;
  const [s1, b1] = [live.s1!, live.b1!];
  const s1Labels = { broadcast_instance: 's1' };
  const noRead = 's1 listens; it has no READ ACL on its topic';
  await Promise.all([
    checks.fired('BroadcastReaderProblem', s1Labels, env.s1ListeningAt, noRead),
    checks.fired(
      'BroadcastInstanceNotReady',
      s1Labels,
      env.s1ListeningAt,
      `${noRead} (unready_ms 15000)`,
    ),
    checks.fired(
      'BroadcastReaderRecovering',
      s1Labels,
      env.s1ListeningAt,
      `${noRead} (recoveries 0)`,
    ),
  ]);
  expect((await s1.status()).problem).toMatch(/READ/);
  const grantedAt = Date.now();
  await env.grantRead();
  // The problem is shown until a broadcast arrives (heartbeats do not count): one does.
  await env.publishSecured(env.PREFIX.secured + env.TOPIC, event(1));
  const granted = 'READ granted, and a broadcast arrives';
  await Promise.all([
    checks.resolved('BroadcastReaderProblem', s1Labels, grantedAt, granted),
    checks.resolved('BroadcastInstanceNotReady', s1Labels, grantedAt, granted),
    checks.resolved(
      'BroadcastReaderRecovering',
      s1Labels,
      grantedAt,
      `${granted} (the window passed)`,
    ),
  ]);
  await Promise.all([s1.ready(), b1.ready()]);
  // A clean slate: what the ACL wait set off (s1 not ready, recovering) has resolved.
  await env.prometheus.alertsUntil(
    (alerts) => alerts.every((a) => !['s1', 'b1'].includes(a.labels.broadcast_instance!)),
    Date.now(),
    'no alert of s1 or b1 before the broker stops',
  );

  const stopping = Date.now();
  await secured.stopNode(1);
  const downAt = Date.now();
  console.log(`[ops] broker controlled shutdown took ${downAt - stopping} ms`);
  const both = ['s1', 'b1'].map((n) => ({ broadcast_instance: n }));
  await Promise.all(
    both.map((labels) =>
      checks.fired('BroadcastInstanceStale', labels, downAt, 'the broker stopped'),
    ),
  );
  // Nothing reaches them, so their view is stale; but their readers keep their group members
  // through the outage, as Kafka's Java consumer does (issue #37): still ready, not recovering.
  for (const instance of [s1, b1]) expect((await instance.status()).state).toBe('ready');
  const starting = Date.now();
  await secured.startNode(1);
  const upAt = Date.now();
  console.log(`[ops] broker restart until it answered took ${upAt - starting} ms`);
  const ready = await Promise.all(
    [s1, b1].map(async (i) => {
      await i.ready(180_000);
      return Date.now() - upAt;
    }),
  );
  console.log(
    `[ops] broker answering -> readiness 200 (kept through the outage by default): s1 ${ready[0]} ms, b1 ${ready[1]} ms`,
  );
  await Promise.all(
    both.map((labels) =>
      checks.resolved('BroadcastInstanceStale', labels, upAt, 'the broker answers again'),
    ),
  );
}
