// Benchmark 7's process-cold start: child processes (bench/instance.mjs) ONE AT A TIME, every side
// timed from the same moment, its process's start (`process.uptime()` at READY), so ours and R both
// include Node's own start, every import and the start itself. The kinds rotate every repetition
// (load drift hits all alike), after one uncounted process of each.
// Every client of the side-by-side benchmarks (confluent when its build loads).
import { CLIENTS, rotation } from './sides.mjs';
import { round, summary } from './common.mjs';
import { spawnInstance } from './child.mjs';

/**
 * What each kind of process is. Per client: R; R after opening the TypeORM DataSource lock mode
 * opens (`raw --datasource`, an app with TypeORM); ours lock-free; ours in lock mode. The import
 * references: Node alone, each client's import alone, the library's engine entry alone, and the
 * package barrel (the Nest module: @nestjs/*), each process start → imported. The import kinds of
 * the clients are `import-<client>` (import-kafkajs, import-platformatic, import-confluent).
 */
export const COLD_KINDS = Object.freeze([
  ...CLIENTS.flatMap((client) => [
    { label: `R-${client}`, mode: 'raw', client },
    { label: `R-${client}-datasource`, mode: 'raw', client, extraArgs: ['--datasource'] },
    { label: `ours-${client}`, mode: 'lockfree', client },
    { label: `ours-${client}-lock`, mode: 'lock', client },
  ]),
  { label: 'node', mode: 'bare' },
  ...CLIENTS.map((client) => ({ label: `import-${client}`, mode: `import-${client}` })),
  { label: 'import-engine-entry', mode: 'import-lib' },
  { label: 'import-barrel', mode: 'import-lib', extraArgs: ['--entry=index'] },
]);

/** One process of `kind`: process start → READY (ms), CPU at READY (ms), start() → READY (ms). */
async function once(kind, { brokers, prefix, topic }) {
  const child = spawnInstance({ ...kind, brokers, prefix, topic });
  try {
    const info = await child.ready;
    return {
      uptimeMs: round(info.uptimeMs, 1),
      cpuMs: round(info.cpuMs, 1),
      ...(info.startMs !== undefined && { startMs: round(info.startMs, 1) }),
    };
  } finally {
    child.proc.kill('SIGTERM');
    await child.exited;
  }
}

/**
 * `reps` processes of every kind in COLD_KINDS, one at a time, rotating; returns the samples and
 * per-kind summaries of each field (`{ [label]: { uptimeMs, cpuMs, startMs } }`).
 */
export async function coldStarts({ brokers, prefix, topic, reps }) {
  const kinds = COLD_KINDS.map((k) => ({ ...k, key: k.label }));
  for (const kind of kinds) await once(kind, { brokers, prefix, topic });
  const samples = Object.fromEntries(kinds.map((k) => [k.label, []]));
  for (let i = 0; i < reps; i++)
    for (const kind of rotation(i, kinds))
      samples[kind.label].push(await once(kind, { brokers, prefix, topic }));
  const field = (label, name) => {
    const values = samples[label].map((s) => s[name]).filter((v) => v !== undefined);
    return values.length ? summary(values) : undefined;
  };
  const summaries = Object.fromEntries(
    kinds.map((k) => [
      k.label,
      {
        uptimeMs: field(k.label, 'uptimeMs'),
        cpuMs: field(k.label, 'cpuMs'),
        startMs: field(k.label, 'startMs'),
      },
    ]),
  );
  return { samples, summary: summaries };
}
