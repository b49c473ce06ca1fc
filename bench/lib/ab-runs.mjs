// What bench/ab.mjs and bench/ab-twenty.mjs share: two builds of the library (A, B) and raw
// kafkajs (R) measured in ONE process against one broker, the order of the sides rotating on
// every repetition, so load on a shared box hits all three alike.
import { mkdir, writeFile } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { parseArgs } from 'node:util';
import { REPO_ROOT, createTopics, findBroker, newRunId } from './common.mjs';
import { engineTopics, loadBuild } from './ours.mjs';

/** The one broadcast topic every engine of an A/B run reads. */
export const AB_TOPIC = 'ready';

/**
 * Parses --a, --b (the builds' dist/esm/index.js), --label and --reps plus `options`; exits with
 * `usage` when a build is missing. Then loads both builds, finds the broker and creates the
 * engine topics under a fresh prefix ending in `-<tag>-`.
 */
export async function startAbRun({ usage, reps, options = {}, tag }) {
  const { values: args } = parseArgs({
    options: {
      a: { type: 'string' },
      b: { type: 'string' },
      label: { type: 'string', default: 'change' },
      reps: { type: 'string', default: reps },
      ...options,
    },
  });
  if (!args.a || !args.b) {
    console.error(usage);
    process.exit(2);
  }
  const builds = {
    A: await loadBuild(pathToFileURL(resolve(args.a)).href),
    B: await loadBuild(pathToFileURL(resolve(args.b)).href),
  };
  const broker = await findBroker();
  const prefix = `${newRunId()}-${tag}-`;
  await createTopics(broker.brokers, engineTopics(prefix, AB_TOPIC));
  return { args, builds, broker, brokers: broker.brokers, prefix };
}

/** The sides in the order repetition `i` runs them: each one first, second and third in turn. */
export function sidesInTurn(i) {
  return [
    ['A', 'B', 'R'],
    ['B', 'R', 'A'],
    ['R', 'A', 'B'],
  ][i % 3];
}

/**
 * Writes `out` to .cache/bench/<name>.json (ignored by git: an A/B run is a note for a commit
 * message, not a result bench/results keeps) and says where.
 */
export async function writeResults(name, out) {
  const dir = join(REPO_ROOT, '.cache', 'bench');
  const file = join(dir, `${name}.json`);
  await mkdir(dir, { recursive: true });
  await writeFile(file, JSON.stringify(out, null, 1) + '\n');
  console.log(`wrote ${file}`);
}
