// The soak's faults. Each takes the soak context and resolves once the fault is over (the
// victim restarted, the broker answering again, the stray consumer gone...), returning a line
// for the log.
import kafkajs from 'kafkajs';
import mysql from 'mysql2/promise';
import pg from 'pg';
import { ApiKey } from '../../test/support/broker/kafka-frames.mjs';

const { Kafka, logLevel } = kafkajs;

function liveReady(ctx, filter = () => true) {
  return ctx.slots.filter((s) => filter(s) && s.current.alive && s.current.readyAt !== undefined);
}

/** Acknowledgement values no receiver would send: JSON that is not an ack, and no JSON at all. */
const MALFORMED_ACKS = ['null', '123', '"x"', '{}', '{"r":5}', '{"r":', null];
/** How long the fleet is watched after malformed acks for a crash, a rejoin or `recovering`. */
const MALFORMED_WATCH_MS = 3_000;
/** How long a victim of a lock loss has to be `ready` again. */
const LOCK_LOSS_MOVE_MS = 60_000;

/** Ends the database session holding a slot's advisory lock; resolves with the sessions ended. */
async function endLockSession(slot) {
  if (slot.lock === 'postgres') {
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
      return rows.map((r) => r.pid);
    } finally {
      await client.end();
    }
  }
  // MariaDB: the user lock `<prefix><groupBaseName>-<id>` (the soak's names stay under 64
  // characters, so the library uses them as they are), held by one connection.
  const lockId = slot.current.states.at(-1)?.lockId;
  const name = `${slot.prefix}${slot.service}-${lockId}`;
  if (lockId === undefined || name.length > 64) return [];
  const connection = await mysql.createConnection({
    host: '127.0.0.1',
    port: 3306,
    user: 'root',
    database: 'test',
  });
  try {
    const [rows] = await connection.query('SELECT IS_USED_LOCK(?) AS holder', [name]);
    const holder = rows[0]?.holder;
    if (holder === null || holder === undefined) return [];
    await connection.query(`KILL ${Number(holder)}`);
    return [Number(holder)];
  } finally {
    await connection.end();
  }
}

/** Ends `slot`'s lock session and waits until the victim is ready in a group again. */
async function loseLock(ctx, slot, stallMs) {
  const inc = slot.current;
  const before = inc.states.length;
  const group = inc.states.at(-1)?.groupId;
  const sessions = await endLockSession(slot);
  if (sessions.length === 0) return `lock-loss ${slot.name}: no lock session found`;
  ctx.shapes.lockLosses[slot.lock]++;
  const began = Date.now();
  const moved = () => {
    const after = inc.states.slice(before);
    const left = after.findIndex((s) => s.state !== 'ready');
    return left >= 0 && after.slice(left).some((s) => s.state === 'ready' && s.groupId);
  };
  while (!moved()) {
    if (!inc.alive)
      throw new Error(`lock-loss ${slot.name}: the victim exited ${JSON.stringify(inc.exit)}`);
    if (Date.now() - began > LOCK_LOSS_MOVE_MS)
      throw new Error(
        `lock-loss ${slot.name}: not ready again ${LOCK_LOSS_MOVE_MS} ms after its lock session ended`,
      );
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  ctx.shapes.lockLosses.moved++;
  const now = inc.states.at(-1)?.groupId;
  return `lock-loss ${slot.name} (${slot.lock}, session ${sessions.join(',')}, DescribeGroups held ${stallMs} ms): ${group?.slice(slot.prefix.length)} -> ${now?.slice(slot.prefix.length)}, ready again in ${Date.now() - began} ms`;
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

  /**
   * Lock loss while records stream: the database session holding a PostgreSQL or MariaDB
   * instance's advisory lock is ended from the server side; the victim must give its group up
   * and be `ready` in a group again (its gaps are judged with everything else). Meanwhile the
   * proxy holds every DescribeGroups answer 0.5–2 s (a slow coordinator): a consumer that
   * fetches before its exclusivity is proven then hands records over first, which the verdict
   * flags (`unproven` handler calls).
   */
  async terminateLockSession(ctx) {
    const slot = ctx.rnd.pick(
      liveReady(ctx, (s) => s.lock !== 'none' && s.current.state === 'ready'),
    );
    if (!slot) return 'lock-loss: no ready instance with a lock';
    const stallMs = ctx.rnd.int(500, 2_000);
    ctx.broker.proxy.onFrame = (f) =>
      f.direction === 'response' && f.apiKey === ApiKey.DescribeGroups
        ? { kind: 'stall', ms: stallMs }
        : undefined;
    try {
      return await loseLock(ctx, slot, stallMs);
    } finally {
      ctx.broker.proxy.onFrame = undefined;
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

  /**
   * Raw records on the receipts topic keyed by every ready instance's id (each one a publisher)
   * with values no receiver sends. Nobody may crash, rejoin or leave `ready` because of them,
   * and a real publish with receipts right after must still be answered by every instance.
   */
  async malformedAcks(ctx) {
    await ctx.waitAllReady(90_000);
    const slots = liveReady(ctx, (s) => s.prefix === ctx.receiptsPrefix);
    const marks = slots.map((s) => ({
      slot: s,
      inc: s.current,
      states: s.current.states.length,
      rejoins: s.current.rejoins.length,
    }));
    const messages = slots.flatMap((s) =>
      MALFORMED_ACKS.map((value) => ({ key: s.current.processName, value })),
    );
    await ctx.producer.producer.send({ topic: ctx.receiptsTopic, acks: -1, messages });
    ctx.shapes.malformedAcks += messages.length;
    const answer = await ctx.targeted.publishWithReceipt({ services: ctx.targeted.services });
    await new Promise((resolve) => setTimeout(resolve, MALFORMED_WATCH_MS));
    const hurt = marks.flatMap(({ slot, inc, states, rejoins }) => {
      const why = [];
      if (slot.current !== inc || !inc.alive) why.push('exited');
      if (inc.rejoins.length > rejoins) why.push(`rejoined (${inc.rejoins.at(-1).message})`);
      const left = inc.states.slice(states).find((s) => s.state !== 'ready');
      if (left) why.push(`went ${left.state}`);
      return why.length > 0 ? [`${slot.name}: ${why.join(', ')}`] : [];
    });
    const receipt = answer?.receipt;
    if (!receipt)
      hurt.push(`the publish with receipts was not answered (${answer?.failed ?? 'no answer'})`);
    else if (missingAlive(receipt, marks).length > 0)
      hurt.push(`the receipt misses ${missingAlive(receipt, marks).join(', ')}`);
    else if (receipt.expected.length < slots.length)
      hurt.push(`the receipt expected only ${receipt.expected.join(', ') || 'nobody'}`);
    const line = `malformed acks: ${messages.length} to ${slots.map((s) => s.name).join(', ')}; receipt ${receipt ? `${receipt.ok.length} ok, ${receipt.missing.length} missing` : 'none'}`;
    if (hurt.length > 0) throw new Error(`${line}; ${hurt.join('; ')}`);
    return line;
  },
};

/**
 * The instances a receipt misses that were alive when it was asked for. The publisher expects
 * the instances its roster lists, and a killed process's member stays listed until its session
 * expires and the roster polls again: missing that one is the receipt telling the truth.
 */
function missingAlive(receipt, marks) {
  const alive = new Set(marks.map(({ inc }) => inc.processName));
  return receipt.missing.filter((id) => alive.has(id));
}
