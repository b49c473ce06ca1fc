// The scenarios of test/ops/prometheus.spec.ts (see its header): each causes alerts on its own
// demo instances, checks they fire with their documented labels, removes the cause and checks
// they resolve. They share one Prometheus and run at once.
import type { Admin, Consumer, Producer } from 'kafkajs';
import { waitFor } from '../support/broker/kafka.js';
import { kafkaFor } from '../support/faults/faults.js';
import type { SecuredCluster } from '../support/security/secured-cluster.js';
import type { DemoInstance, DemoSpec } from '../support/telemetry/demo-instances.js';
import { FOR_MS, type AlertChecks } from '../support/telemetry/live-alerts.js';
import type { Prometheus } from '../support/telemetry/prometheus.js';

/** FAULTY_TRACE_ID of faulty-tracer-preload.mjs, as a W3C traceparent. */
const FAULTY_TRACEPARENT = '00-0badc0de0badc0de0badc0de0badc0de-0badc0de0badc0de-01';
const HANDLER = 'ProductChangedHandler.onProductChanged';

export interface OpsEnv {
  prometheus: Prometheus;
  checks: AlertChecks;
  admin: Admin;
  producer: Producer;
  live: Record<string, DemoInstance>;
  brokers: string[];
  PREFIX: Record<'pool' | 'handlers' | 'frozen' | 'secured' | 'outage', string>;
  TOPIC: string;
}

const event = (id: unknown, extra: object = {}) => ({
  value: JSON.stringify({ id, changedAt: Date.now(), ...extra }),
});

/**
 * A consumer of another application joining a broadcast group (a misconfigured service reusing
 * the group id): the instance holding it waits for it to leave, then gives the group up.
 */
async function foreignMember(brokers: string[], groupId: string, topic: string) {
  const consumer: Consumer = kafkaFor(brokers).consumer({ groupId, sessionTimeout: 30_000 });
  await consumer.connect();
  await consumer.subscribe({ topics: [topic] });
  await consumer.run({ eachMessage: async () => undefined });
  return consumer;
}

async function groupOf(instance: DemoInstance): Promise<string> {
  return waitFor(async () => (await instance.status()).group, {
    message: `${instance.name} holds a group`,
  });
}

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

export async function handlersScenario(env: OpsEnv): Promise<void> {
  const { checks, producer, live, brokers, PREFIX, TOPIC } = env;
  const h1 = live.h1!;
  const h = { broadcast_instance: 'h1' };
  const t = Date.now();
  await producer.send({
    topic: PREFIX.handlers + TOPIC,
    messages: [
      // Fails its three attempts: dead-lettered, and the webhook of onHandlerError refuses.
      event('not a number'),
      // Fails too; its dead letter is over the topic's max.message.bytes.
      event('too big', { pad: 'x'.repeat(4_000) }),
      // Handled, but the tracing SDK throws on its span: contained, counted.
      { ...event(7), headers: { traceparent: FAULTY_TRACEPARENT } },
    ],
  });
  const failing = await Promise.all([
    checks.fired(
      'BroadcastHandlerFailing',
      { ...h, broadcast_handler: HANDLER },
      t,
      '2 malformed records, 6 failed attempts',
    ),
    checks.fired('BroadcastHandlerRetriesExhausted', h, t, '2 records failed their 3 attempts'),
    checks.fired('BroadcastDeadLetters', h, t, 'a final failure dead-lettered'),
    checks.fired('BroadcastDeadLetterFailed', h, t, 'a dead letter over max.message.bytes'),
    checks.fired('BroadcastFailureHookFailed', h, t, 'onHandlerError: the webhook refused'),
    checks.fired('BroadcastInternalErrors', h, t, 'the tracing SDK threw on a span'),
  ]);
  expect(failing[0]!.labels.messaging_destination_name).toBe(PREFIX.handlers + TOPIC);
  const handler = { ...h, broadcast_handler: HANDLER };
  const resolving = Promise.all(
    [
      ['BroadcastHandlerFailing', handler] as const,
      ...[
        'BroadcastHandlerRetriesExhausted',
        'BroadcastDeadLetters',
        'BroadcastDeadLetterFailed',
        'BroadcastFailureHookFailed',
        'BroadcastInternalErrors',
      ].map((alert) => [alert, h] as const),
    ].map(([alert, labels]) =>
      checks.resolved(alert, labels, t, 'no failure since (the window passed)'),
    ),
  );

  // A foreign member in its group: h1 waits for it to leave, then moves to another id.
  const group = await groupOf(h1);
  const foreign = await foreignMember(brokers, group, PREFIX.handlers + TOPIC);
  const movedAt = Date.now();
  try {
    // Its recovery lasts less than a scrape interval: the state gauges may never show it
    // (BroadcastReaderRecovering is proven by the broker outage, which lasts).
    await checks.fired(
      'BroadcastGroupMoves',
      h,
      movedAt,
      'a foreign member made h1 move (group_moves 0)',
    );
  } finally {
    await foreign.disconnect();
  }
  const movedTo = await groupOf(h1);
  expect(movedTo).not.toBe(group);
  await Promise.all([
    resolving,
    checks.resolved('BroadcastGroupMoves', h, movedAt, 'no move since (the window passed)'),
  ]);
}

export async function frozenScenario(env: OpsEnv): Promise<void> {
  const { checks, producer, admin, live, PREFIX, TOPIC } = env;
  const f1 = live.f1!;
  const topic = PREFIX.frozen + TOPIC;
  const heartbeats = `${PREFIX.frozen}broadcast.heartbeat.v1`;
  // Far enough into product.changed that the topic created again stays short of f1's position.
  await producer.send({ topic, messages: Array.from({ length: 30 }, (_, n) => event(n)) });
  await waitFor(async () => (await f1.status()).received >= 30, { message: 'f1 reads' });
  const [{ partitions }] = (await admin.fetchTopicMetadata({ topics: [topic] })).topics;

  const frozenAt = Date.now();
  f1.freeze();
  let resumedAt = 0;
  try {
    await Promise.all([
      checks.fired(
        'BroadcastInstanceDown',
        { instance: f1.target },
        frozenAt,
        'f1 frozen (SIGSTOP)',
      ),
      (async () => {
        // The fetch f1 left pending is answered with one heartbeat-topic record (it waits in
        // f1's socket); retention then removes the five after it before f1 reads them.
        await producer.send({ topic: heartbeats, messages: [{ value: 'x' }] });
        await producer.send({
          topic: heartbeats,
          messages: [1, 2, 3, 4, 5].map(() => ({ value: 'x' })),
        });
        const [end] = await admin.fetchTopicOffsets(heartbeats);
        await admin.deleteTopicRecords({
          topic: heartbeats,
          partitions: [{ partition: 0, offset: end!.high }],
        });
        // product.changed deleted and created again: its log ends before f1's position.
        await admin.deleteTopics({ topics: [topic] });
        await waitFor(
          () =>
            admin
              .createTopics({
                topics: [{ topic, numPartitions: partitions!.length }],
                waitForLeaders: true,
              })
              .catch(() => false),
          { timeoutMs: 30_000, intervalMs: 250, message: `${topic} created again` },
        );
      })(),
    ]);
  } finally {
    resumedAt = Date.now();
    f1.resume();
  }
  const f = { broadcast_instance: 'f1' };
  await Promise.all([
    checks.resolved(
      'BroadcastInstanceDown',
      { instance: f1.target },
      resumedAt,
      'f1 resumed (SIGCONT)',
    ),
    checks.fired(
      'BroadcastRecordsPassedOver',
      f,
      resumedAt,
      'f1 resumed after retention passed it',
    ),
    checks.fired('BroadcastRewound', f, resumedAt, 'f1 resumed: product.changed ends before it'),
  ]);
  await Promise.all([
    checks.resolved('BroadcastRecordsPassedOver', f, resumedAt, 'nothing passed over since'),
    checks.resolved('BroadcastRewound', f, resumedAt, 'no rewind since'),
  ]);
}

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
  await checks.fired(
    'BroadcastReaderProblem',
    { broadcast_instance: 's1' },
    env.s1ListeningAt,
    's1 listens; it has no READ ACL on its topic',
  );
  expect((await s1.status()).problem).toMatch(/READ/);
  const grantedAt = Date.now();
  await env.grantRead();
  // The problem is shown until a broadcast arrives (heartbeats do not count): one does.
  await env.publishSecured(env.PREFIX.secured + env.TOPIC, event(1));
  await checks.resolved(
    'BroadcastReaderProblem',
    { broadcast_instance: 's1' },
    grantedAt,
    'READ granted, and a broadcast arrives',
  );
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
    both.flatMap((labels) => [
      checks.fired('BroadcastInstanceStale', labels, downAt, 'the broker stopped'),
      checks.fired(
        'BroadcastInstanceNotReady',
        labels,
        downAt,
        'the broker stopped (unready_ms 15000)',
      ),
      checks.fired(
        'BroadcastReaderRecovering',
        labels,
        downAt,
        'the broker stopped (recoveries 0)',
      ),
    ]),
  );
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
    `[ops] broker answering -> readiness 200 again: s1 ${ready[0]} ms, b1 ${ready[1]} ms`,
  );
  await Promise.all(
    both.flatMap((labels) => [
      checks.resolved('BroadcastInstanceStale', labels, upAt, 'the broker answers again'),
      checks.resolved('BroadcastInstanceNotReady', labels, upAt, 'the broker answers again'),
      checks.resolved('BroadcastReaderRecovering', labels, upAt, 'ready again (the window passed)'),
    ]),
  );
}
