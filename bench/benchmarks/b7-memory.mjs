// 7. Resident memory per instance: child processes (bench/instance.mjs), READY, a few seconds idle, VmRSS.
// Our engine on each adapter (lock mode and lock-free) and R on each raw client, with the references.
// Also reports their process-cold start (time from engine.start / consumer start to ready, and from
// process start to ready), which benchmark 1 measures only in a warm process.
import { createTopics, ratio, round, sleep, summary } from '../lib/common.mjs';
import { rssKiB, spawnInstance } from '../lib/child.mjs';
import { CLIENTS, fourSideRows } from '../lib/sides.mjs';

export const id = '7';
export const title = 'Resident memory per instance (child processes)';
const TOPIC = 'events';

/** Every kind of process, `label` → instance.mjs mode and client. */
const KINDS = [
  ...['lock', 'lockfree', 'raw'].flatMap((mode) =>
    CLIENTS.map((client) => ({
      label: client === 'kafkajs' ? mode : `${mode}-${client}`,
      mode,
      client,
    })),
  ),
  { label: 'bare', mode: 'bare' },
  { label: 'import-lib', mode: 'import-lib' },
  { label: 'import-kafkajs', mode: 'import-kafkajs' },
  { label: 'import-platformatic', mode: 'import-platformatic' },
  { label: 'import-lib-kafkajs', mode: 'import-lib-kafkajs' },
  { label: 'import-lib-platformatic', mode: 'import-lib-platformatic' },
];
/** The label of the lock, lockfree or raw process of `client`. */
const kind = (mode, client) => (client === 'kafkajs' ? mode : `${mode}-${client}`);

export async function run(ctx) {
  const prefix = ctx.prefix(id);
  const reps = 3;
  const idleMs = ctx.quick ? 2000 : 4000;
  await createTopics(ctx.brokers, [prefix + TOPIC]);
  const samples = Object.fromEntries(KINDS.map((k) => [k.label, []]));
  for (let i = 0; i < reps; i++) {
    // One process of each kind at a time, side by side (RSS does not depend on the neighbours).
    const children = KINDS.map(({ label, mode, client }) => ({
      label,
      child: spawnInstance({
        mode,
        client,
        brokers: ctx.brokers,
        prefix,
        topic: TOPIC,
      }),
    }));
    try {
      const infos = await Promise.all(children.map((c) => c.child.ready));
      await sleep(idleMs);
      children.forEach(({ label, child }, k) =>
        samples[label].push({
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
  const rss = (label) => summary(samples[label].map((s) => s.rssMiB));
  /** The four sides of one ours mode: ours-X = `mode` on X, R-X = raw on X. */
  const sides = (mode, field) =>
    Object.fromEntries(
      CLIENTS.flatMap((client) => [
        [`ours-${client}`, field(kind(mode, client))],
        [`R-${client}`, field(kind('raw', client))],
      ]),
    );
  // What running costs beyond loading the code (same rep paired): ours above the import of the
  // library and the client its engine loads at start, R above its client's. (Until 2026-12-03
  // ours was taken above the library alone, so the client's own import, 40 MiB for
  // @platformatic/kafka, counted as ours.)
  const aboveImport = (label, importLabel) =>
    summary(samples[label].map((s, i) => s.rssMiB - samples[importLabel][i].rssMiB));
  const above = Object.fromEntries(
    CLIENTS.flatMap((client) => [
      [`ours-${client}`, aboveImport(kind('lockfree', client), `import-lib-${client}`)],
      [`R-${client}`, aboveImport(kind('raw', client), `import-${client}`)],
    ]),
  );
  const start = (label) => summary(samples[label].map((s) => s.startMs));
  const up = (label) => summary(samples[label].map((s) => s.uptimeAtReadyMs));
  const rows = [
    ...fourSideRows({
      metric: 'RSS MiB, ours lock mode (typeorm+pg DataSource)',
      unit: 'MiB',
      by: sides('lock', rss),
    }),
    ...fourSideRows({
      metric: 'RSS MiB, ours lock-free',
      unit: 'MiB',
      by: sides('lockfree', rss),
    }).slice(0, 3),
    {
      metric: '  RSS MiB: bare node process (reference)',
      unit: 'MiB',
      ours: rss('bare'),
      sub: true,
    },
    ...CLIENTS.map((client) => ({
      metric: `  RSS MiB: idle after import only: nestjs-kafka-broadcast vs ${client}`,
      unit: 'MiB',
      ours: rss('import-lib'),
      base: rss(`import-${client}`),
      ratio: ratio(rss('import-lib').median, rss(`import-${client}`).median),
      sub: true,
      note:
        client === 'kafkajs'
          ? 'the package barrel also loads the NestJS layer (@nestjs/*), not a Kafka client (the adapter is loaded at start); a Nest app pays that anyway'
          : undefined,
    })),
    ...fourSideRows({
      metric: 'RSS MiB above its own import, ours lock-free',
      unit: 'MiB',
      by: above,
      note: 'what running costs beyond loading the code (same rep paired); ours above the import of nestjs-kafka-broadcast and the client, R above its client',
      sub: true,
    }).slice(0, 3),
    ...fourSideRows({
      metric: 'process-cold ready ms (start -> ready), ours lock mode',
      unit: 'ms',
      by: sides('lock', start),
    }).slice(0, 2),
    ...fourSideRows({
      metric: 'process start -> ready ms, ours lock mode',
      unit: 'ms',
      by: sides('lock', up),
      note: 'includes imports and, for ours, DataSource init',
    }).slice(0, 2),
  ];
  return {
    params: { reps, idleMs, kinds: KINDS },
    rows,
    summary: {
      rssMiB: Object.fromEntries(KINDS.map((k) => [k.label, rss(k.label)])),
      aboveImportMiB: above,
    },
    samples,
  };
}
