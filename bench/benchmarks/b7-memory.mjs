// 7. Resident memory per instance: child processes (bench/instance.mjs), READY, a few seconds idle, VmRSS.
// Also reports their process-cold start (time from engine.start / consumer.connect to ready, and from
// process start to ready), which benchmark 1 measures only in a warm process.
import { createTopics, ratio, round, sleep, summary } from '../lib/common.mjs';
import { rssKiB, spawnInstance } from '../lib/child.mjs';

export const id = '7';
export const title = 'Resident memory per instance (child processes)';
const TOPIC = 'events';

export async function run(ctx) {
  const prefix = ctx.prefix(id);
  const reps = 3;
  const idleMs = ctx.quick ? 2000 : 4000;
  const modes = [
    'lock',
    'lockfree',
    'raw',
    'bare',
    'import-lib',
    'import-kafkajs',
  ];
  await createTopics(ctx.brokers, [prefix + TOPIC]);
  const samples = Object.fromEntries(modes.map((m) => [m, []]));
  for (let i = 0; i < reps; i++) {
    // One process of each kind at a time, side by side (RSS does not depend on the neighbours).
    const children = modes.map((mode) => ({
      mode,
      child: spawnInstance({
        mode,
        brokers: ctx.brokers,
        prefix,
        topic: TOPIC,
      }),
    }));
    try {
      const infos = await Promise.all(children.map((c) => c.child.ready));
      await sleep(idleMs);
      children.forEach(({ mode, child }, k) =>
        samples[mode].push({
          rssMiB: round(rssKiB(child.pid) / 1024, 1),
          startMs: round(infos[k].startMs ?? NaN, 1),
          uptimeAtReadyMs: round(infos[k].uptimeMs ?? NaN, 1),
        }),
      );
    } finally {
      for (const { child } of children) child.proc.kill('SIGTERM');
      await Promise.all(children.map(({ child }) => child.exited));
    }
  }
  const rss = (m) => summary(samples[m].map((s) => s.rssMiB));
  const rows = [
    {
      metric: 'RSS MiB: ours lock mode (typeorm+pg DataSource) vs R',
      unit: 'MiB',
      ours: rss('lock'),
      base: rss('raw'),
      ratio: ratio(rss('lock').median, rss('raw').median),
      target: 'info',
    },
    {
      metric: 'RSS MiB: ours lock-free vs R',
      unit: 'MiB',
      ours: rss('lockfree'),
      base: rss('raw'),
      ratio: ratio(rss('lockfree').median, rss('raw').median),
      target: 'info',
    },
    {
      metric: '  RSS MiB: bare node process (reference)',
      unit: 'MiB',
      ours: rss('bare'),
      sub: true,
    },
    {
      metric: '  RSS MiB: idle after import only: nestjs-kafka-broadcast vs kafkajs',
      unit: 'MiB',
      ours: rss('import-lib'),
      base: rss('import-kafkajs'),
      ratio: ratio(rss('import-lib').median, rss('import-kafkajs').median),
      sub: true,
      note: 'the package barrel also loads the NestJS layer (@nestjs/*); a Nest app pays that anyway',
    },
    {
      metric: '  RSS MiB above its own import: ours lock-free vs R',
      unit: 'MiB',
      ours: summary(
        samples.lockfree.map(
          (s, i) => s.rssMiB - samples['import-lib'][i].rssMiB,
        ),
      ),
      base: summary(
        samples.raw.map(
          (s, i) => s.rssMiB - samples['import-kafkajs'][i].rssMiB,
        ),
      ),
      ratio: ratio(
        summary(
          samples.lockfree.map(
            (s, i) => s.rssMiB - samples['import-lib'][i].rssMiB,
          ),
        ).median,
        summary(
          samples.raw.map(
            (s, i) => s.rssMiB - samples['import-kafkajs'][i].rssMiB,
          ),
        ).median,
      ),
      sub: true,
      note: 'what running costs beyond loading the code (same rep paired)',
    },
  ];
  const start = (m) => summary(samples[m].map((s) => s.startMs));
  const up = (m) => summary(samples[m].map((s) => s.uptimeAtReadyMs));
  rows.push(
    {
      metric: 'process-cold ready ms (start/connect -> ready): lock vs R',
      unit: 'ms',
      ours: start('lock'),
      base: start('raw'),
      ratio: ratio(start('lock').median, start('raw').median),
      target: 'info',
    },
    {
      metric: 'process start -> ready ms: lock vs R',
      unit: 'ms',
      ours: up('lock'),
      base: up('raw'),
      ratio: ratio(up('lock').median, up('raw').median),
      target: 'info',
      note: 'includes imports and, for ours, DataSource init',
    },
  );
  return { params: { reps, idleMs, modes }, rows, samples };
}
