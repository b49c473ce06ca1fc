// 7. Resident memory per instance: child processes (bench/instance.mjs), READY, a few seconds idle, VmRSS.
// Our engine on each adapter (lock mode and lock-free) and R on each raw client, with the references.
// Then the process-cold start (lib/cold-start.mjs): one process at a time, every side timed from its
// process's start, which benchmark 1 measures only in a warm process. Ours imports the library's
// engine entry (no NestJS; R has none either), see bench/instance.mjs --entry.
import { createTopics, ratio, round, sleep, summary } from '../lib/common.mjs';
import { rssKiB, spawnInstance } from '../lib/child.mjs';
import { coldStarts } from '../lib/cold-start.mjs';
// Every client of the side-by-side benchmarks: confluent too when its build loads (sides.mjs).
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
  ...CLIENTS.map((client) => ({ label: `import-${client}`, mode: `import-${client}` })),
  ...CLIENTS.map((client) => ({ label: `import-lib-${client}`, mode: `import-lib-${client}` })),
];
/** What each client's import kind imports, for the row labels. */
const PACKAGE = {
  kafkajs: 'kafkajs',
  platformatic: '@platformatic/kafka',
  confluent: '@confluentinc/kafka-javascript',
};

/**
 * The rows of fourSideRows() this benchmark shows: ours vs R on each client, and with `cross` the
 * ours-X vs ours-kafkajs rows too (R's cross rows compare R with R, which #1 to #4 show already).
 */
const pick = (rows, cross) =>
  rows.filter((r) => !r.metric.includes('cross') || (cross && r.metric.includes(': cross, ours-')));
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
      await Promise.all(children.map((c) => c.child.ready));
      await sleep(idleMs);
      for (const { label, child } of children)
        samples[label].push({ rssMiB: round(rssKiB(child.pid) / 1024, 1) });
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
  const cold = await coldStarts({
    brokers: ctx.brokers,
    prefix,
    topic: TOPIC,
    reps: ctx.quick ? 2 : 6,
  });
  /** The four sides of the cold start: ours-X = `ours` on X, R-X = `r` on X (kind suffixes). */
  const coldSides = (ours, r, field) =>
    Object.fromEntries(
      CLIENTS.flatMap((client) => [
        [`ours-${client}`, cold.summary[`ours-${client}${ours}`][field]],
        [`R-${client}`, cold.summary[`R-${client}${r}`][field]],
      ]),
    );
  const imported = (label, what) => ({
    metric: `  process start -> imported, ${what} (ms)`,
    unit: 'ms',
    ours: cold.summary[label].uptimeMs,
    sub: true,
  });
  const rows = [
    ...fourSideRows({
      metric: 'RSS MiB, ours lock mode (typeorm+pg DataSource)',
      unit: 'MiB',
      by: sides('lock', rss),
    }),
    ...pick(
      fourSideRows({
        metric: 'RSS MiB, ours lock-free',
        unit: 'MiB',
        by: sides('lockfree', rss),
      }),
      true,
    ),
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
          ? 'the engine entry (nestjs-kafka-broadcast/engine): no NestJS, and no Kafka client (the engine loads its adapter when it is built)'
          : undefined,
    })),
    ...pick(
      fourSideRows({
        metric: 'RSS MiB above its own import, ours lock-free',
        unit: 'MiB',
        by: above,
        note: 'what running costs beyond loading the code (same rep paired); ours above the import of nestjs-kafka-broadcast and the client, R above its client',
        sub: true,
      }),
      true,
    ),
    ...pick(
      fourSideRows({
        metric: 'process-cold ready ms, process start -> ready, lock-free',
        unit: 'ms',
        by: coldSides('', '', 'uptimeMs'),
        target: '≤ 1.2',
        pass: (r) => r <= 1.2,
        note: 'one process at a time, rotating; both sides from process start, with their imports (ours: the engine entry and its client; R: its client)',
      }),
      false,
    ),
    ...pick(
      fourSideRows({
        metric: 'process-cold ready ms, lock mode (R opens the same TypeORM DataSource first)',
        unit: 'ms',
        by: coldSides('-lock', '-datasource', 'uptimeMs'),
        sub: true,
      }),
      false,
    ),
    ...pick(
      fourSideRows({
        metric: 'process CPU ms at ready, lock-free',
        unit: 'ms',
        by: coldSides('', '', 'cpuMs'),
        sub: true,
      }),
      false,
    ),
    imported('node', 'Node alone'),
    ...CLIENTS.map((client) => imported(`import-${client}`, PACKAGE[client])),
    imported('import-engine-entry', 'nestjs-kafka-broadcast/engine'),
    imported('import-barrel', 'nestjs-kafka-broadcast (the Nest module)'),
  ];
  return {
    params: { reps, idleMs, kinds: KINDS, coldReps: ctx.quick ? 2 : 6 },
    rows,
    summary: {
      rssMiB: Object.fromEntries(KINDS.map((k) => [k.label, rss(k.label)])),
      aboveImportMiB: above,
      cold: cold.summary,
    },
    samples: { ...samples, cold: cold.samples },
  };
}
