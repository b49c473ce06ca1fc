// The soak's faults. Each takes the soak context and resolves once the fault is over (the
// victim restarted, the broker answering again, the stray consumer gone...), returning a line
// for the log.
import kafkajs from 'kafkajs';
import pg from 'pg';

const { Kafka, logLevel } = kafkajs;

function liveReady(ctx, filter = () => true) {
  return ctx.slots.filter((s) => filter(s) && s.current.alive && s.current.readyAt !== undefined);
}

export const FAULTS = {
  /** SIGKILL an instance and start it again at once (a crash and an orchestrator restart). */
  async killRestart(ctx) {
    const slot = ctx.rnd.pick(liveReady(ctx));
    if (!slot) return 'kill-restart: no ready instance';
    await slot.current.kill9();
    const next = slot.spawn();
    await ctx.waitReady(next);
    return `kill-restart ${slot.name} -> incarnation ${next.number} ready in ${next.readyAt - next.spawnedAt} ms`;
  },

  /** Kill the PostgreSQL session that holds an instance's advisory lock. */
  async terminateLockSession(ctx) {
    const slot = ctx.rnd.pick(liveReady(ctx, (s) => s.lock === 'postgres'));
    if (!slot) return 'pg-terminate: no ready postgres instance';
    const client = new pg.Client({
      host: '127.0.0.1',
      port: 5432,
      user: 'postgres',
      database: 'test',
    });
    await client.connect();
    try {
      const { rows } = await client.query(
        `select pg_terminate_backend(a.pid) as killed, a.pid from pg_stat_activity a
           join pg_locks l on l.pid = a.pid and l.locktype = 'advisory' and l.granted
          where a.application_name = $1`,
        [`bcast-${slot.current.processName}`],
      );
      return `pg-terminate ${slot.name}: ${rows.length} lock session(s) ${rows.map((r) => r.pid).join(',')}`;
    } finally {
      await client.end();
    }
  },

  /** Stop the broker (controlled shutdown), then start it again on the same data and ports. */
  async brokerRestart(ctx) {
    const began = Date.now();
    await ctx.broker.cluster.stopNode(1);
    const down = Date.now();
    await ctx.broker.cluster.startNode(1);
    const up = Date.now();
    await ctx.waitAllReady(90_000);
    return `broker-restart: down ${up - down} ms (stop ${down - began} ms); all ready ${Date.now() - up} ms after start`;
  },

  /** A stray kafkajs consumer joins an instance's live group for a few seconds. */
  async strayConsumer(ctx) {
    const slot = ctx.rnd.pick(liveReady(ctx, (s) => s.current.states.at(-1)?.groupId));
    const groupId = slot?.current.states.at(-1)?.groupId;
    if (!groupId) return 'stray: no instance in a group yet';
    const consumer = new Kafka({
      clientId: 'soak-stray',
      brokers: ctx.broker.direct,
      logLevel: logLevel.NOTHING,
    }).consumer({
      groupId,
      sessionTimeout: 6_000,
      heartbeatInterval: 500,
      maxWaitTimeInMs: 100,
    });
    await consumer.connect();
    await consumer.subscribe({ topic: ctx.topicOf(slot), fromBeginning: false });
    await consumer.run({ eachMessage: async () => undefined });
    await new Promise((resolve) => setTimeout(resolve, ctx.rnd.int(2_000, 5_000)));
    await consumer.disconnect();
    return `stray consumer in ${groupId} (${slot.name}'s group)`;
  },

  /** The producer stamps records an hour ahead or behind for a few seconds. */
  async skewedProducer(ctx) {
    const skew = ctx.rnd.pick([3_600_000, -3_600_000]);
    const ms = ctx.rnd.int(2_000, 5_000);
    ctx.producer.skewMs = skew;
    await new Promise((resolve) => setTimeout(resolve, ms));
    ctx.producer.skewMs = 0;
    return `skewed producer ${skew > 0 ? '+' : '-'}1 h for ${ms} ms`;
  },

  /** The proxy between the instances and the broker holds all traffic for a while. */
  async proxyStall(ctx) {
    const ms = ctx.rnd.int(1_000, 5_000);
    const connections = ctx.broker.proxy.connections;
    ctx.broker.proxy.stallAll(ms);
    await new Promise((resolve) => setTimeout(resolve, ms));
    return `proxy stall ${ms} ms (${connections} connections)`;
  },
};
