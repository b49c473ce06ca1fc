// 5. Consumer groups left on the broker after 50 start/stop cycles of single processes, 10 of them crashes.
// Three variants run side by side, each with its own prefix and peak concurrency 1 (+ a crashed zombie):
// ours in lock mode, ours lock-free, and R (a fresh random group per process).
import {
  createTopics,
  groupsWithPrefix,
  info,
  rawKafka,
  rawProducer,
  sleep,
  withAdmin,
} from '../lib/common.mjs';
import { spawnInstance } from '../lib/child.mjs';

export const id = '5';
export const title = 'Groups left after start/stop cycles with crashes';
const TOPIC = 'events';
const SESSION_TIMEOUT_MS = 6000;

async function waitZombieGone(admin, zombie, timeoutMs) {
  const t0 = Date.now();
  while (Date.now() - t0 < timeoutMs) {
    const { groups } = await admin.describeGroups([zombie.groupId]);
    const members = groups[0]?.members.map((m) => m.memberId) ?? [];
    if (!members.includes(zombie.memberId)) return Date.now() - t0;
    await sleep(200);
  }
  throw new Error(
    `member ${zombie.memberId} of ${zombie.groupId} still there after ${timeoutMs} ms`,
  );
}

async function stopChild(child, signal) {
  child.proc.kill(signal);
  const timer = setTimeout(() => child.proc.kill('SIGKILL'), 30_000);
  const exit = await child.exited;
  clearTimeout(timer);
  return exit;
}

async function cycles(ctx, mode, prefix, total, crashEvery) {
  const producer = rawProducer(rawKafka(ctx.brokers, 'bench-b5-producer'));
  await producer.connect();
  const log = [];
  let zombie;
  let crashes = 0;
  let zombieWaitMs = 0;
  try {
    await withAdmin(ctx.brokers, async (admin) => {
      for (let i = 0; i < total; i++) {
        const crash = i % crashEvery === crashEvery - 1;
        if (crash && zombie) {
          zombieWaitMs += await waitZombieGone(
            admin,
            zombie,
            4 * SESSION_TIMEOUT_MS,
          );
          zombie = undefined;
        }
        const child = spawnInstance({
          mode,
          brokers: ctx.brokers,
          prefix,
          topic: TOPIC,
          sessionTimeoutMs: SESSION_TIMEOUT_MS,
        });
        const ready = await child.ready;
        // One message read (and its offset committed) per process, as a service would.
        await producer.send({
          topic: prefix + TOPIC,
          acks: -1,
          messages: [{ value: JSON.stringify({ cycle: i }) }],
        });
        await child.waitLine(
          (l) => l.startsWith('GOT ') && l.includes(`"cycle":${i}`),
          30_000,
        );
        if (crash) {
          await sleep(500); // let the auto-commit of that message go out first
          await stopChild(child, 'SIGKILL');
          zombie = { groupId: ready.groupId, memberId: ready.memberId };
          crashes++;
        } else {
          const exit = await stopChild(child, 'SIGTERM');
          if (exit.code !== 0)
            info(
              `b5 ${mode}: cycle ${i} exited with ${exit.code ?? exit.signal}`,
            );
        }
        log.push({
          cycle: i,
          crash,
          groupId: ready.groupId.slice(prefix.length),
          startMs: Math.round(ready.startMs),
        });
      }
    });
  } finally {
    await producer.disconnect().catch(() => undefined);
  }
  const groups = await withAdmin(ctx.brokers, (admin) =>
    groupsWithPrefix(admin, prefix),
  );
  return {
    mode,
    cycles: total,
    crashes,
    groups: groups.length,
    groupIds: groups.map((g) => g.slice(prefix.length)).sort(),
    zombieWaitMs,
    log,
  };
}

export async function run(ctx) {
  const total = ctx.quick ? 10 : 50;
  const crashEvery = 5; // 10 crashes in 50 cycles (2 in 10)
  const base = ctx.prefix(id);
  const variants = [
    { mode: 'lock', prefix: `${base}lock-` },
    { mode: 'lockfree', prefix: `${base}lf-` },
    { mode: 'raw', prefix: `${base}raw-` },
  ];
  await createTopics(
    ctx.brokers,
    variants.map((v) => v.prefix + TOPIC),
  );
  const t0 = Date.now();
  const results = await Promise.all(
    variants.map((v) => cycles(ctx, v.mode, v.prefix, total, crashEvery)),
  );
  const [lock, lockfree, raw] = results;
  const row = (label, r) => ({
    metric: `groups left: ${label} (${r.cycles} cycles, ${r.crashes} crashes)`,
    unit: 'groups',
    ours: { n: 1, min: r.groups, median: r.groups, max: r.groups },
    base: { n: 1, min: raw.groups, median: raw.groups, max: raw.groups },
    ratio: raw.groups ? +(r.groups / raw.groups).toFixed(3) : NaN,
    target: 'info',
    note: `groups: ${r.groupIds.join(', ')}`,
  });
  return {
    params: {
      cycles: total,
      crashEvery,
      sessionTimeoutMs: SESSION_TIMEOUT_MS,
      concurrency:
        '1 process per variant (+ the crashed one until its session expires); variants run side by side',
      wallMs: Date.now() - t0,
    },
    rows: [row('ours lock mode', lock), row('ours lock-free', lockfree)],
    samples: { lock, lockfree, raw },
    cleanupWaitMs: 2 * SESSION_TIMEOUT_MS,
  };
}
