// End-to-end: `npm run demo -- --once` builds the workspace, starts demo instances against the
// run's broker, updates a product and checks that every instance evicted it, then stops them.
// Once per Kafka client: the instances get it as KAFKA_CLIENT and name it in their logs.
import { spawn } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import {
  clientScoped,
  kafkaClients,
  type BroadcastKafkaClient,
} from '../support/broker/kafka-clients.js';
import { kafkaBrokers, newAdmin, testPrefix } from '../support/broker/kafka.js';

interface DemoRun {
  code: number | null;
  signal: NodeJS.Signals | null;
  output: string;
}

const DEMO_TIMEOUT_MS = 300_000;
const ROOT = fileURLToPath(new URL('../..', import.meta.url));

/** Runs the demo script to completion (SIGKILL after the timeout), capturing stdout and stderr. */
function runDemo(args: string[], prefix: string, client: BroadcastKafkaClient): Promise<DemoRun> {
  return new Promise((resolve, reject) => {
    const child = spawn('npm', ['run', 'demo', '--', ...args], {
      cwd: ROOT,
      env: {
        ...process.env,
        KAFKA_BROKERS: kafkaBrokers().join(','),
        BROADCAST_TOPIC_PREFIX: prefix,
        KAFKA_CLIENT: client,
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let output = '';
    child.stdout.on('data', (d: Buffer) => (output += d.toString()));
    child.stderr.on('data', (d: Buffer) => (output += d.toString()));
    const timer = setTimeout(() => child.kill('SIGKILL'), DEMO_TIMEOUT_MS);
    child.on('error', reject);
    child.on('close', (code, signal) => {
      clearTimeout(timer);
      resolve({ code, signal, output });
    });
  });
}

function pidsOf(output: string): number[] {
  const line = /^DEMO_PIDS=([\d,]+)$/m.exec(output);
  expect(line, `no DEMO_PIDS line in:\n${output}`).not.toBeNull();
  return line![1]!.split(',').map(Number);
}

/** Each instance's log (the script prints their folder) says which Kafka client it used. */
function expectClientInLogs(output: string, count: number, client: BroadcastKafkaClient): void {
  const dir = /^Instance logs: (\S+)$/m.exec(output)?.[1];
  expect(dir, `no 'Instance logs:' line in:\n${output}`).toBeDefined();
  for (let n = 1; n <= count; n++)
    expect(readFileSync(join(dir!, `demo-${n}.log`), 'utf8')).toMatch(
      new RegExp(`Listening on \\S+ \\(Kafka \\S+ via ${client}, `),
    );
}

/** The demo script builds the workspace on its first run in this file only; later runs reuse dist/. */
let built = false;
const buildOnce = (): string[] => (built ? ['--no-build'] : ((built = true), []));

function isRunning(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/** The demo's instances have stopped (their groups are empty): delete what they created. */
async function deleteTopicsAndGroups(prefixes: string[]): Promise<void> {
  const admin = await newAdmin();
  try {
    const ours = (name: string) => prefixes.some((p) => name.startsWith(p));
    const groups = (await admin.listGroups()).groups.map((g) => g.groupId).filter(ours);
    if (groups.length) await admin.deleteGroups(groups);
    const topics = (await admin.listTopics()).filter(ours);
    if (topics.length) await admin.deleteTopics({ topics });
  } finally {
    await admin.disconnect();
  }
}

describe.each(kafkaClients())('npm run demo -- --once (%s client)', (client) => {
  const demoPrefix = testPrefix(clientScoped('demo', client));
  const lockFreePrefix = testPrefix(clientScoped('demo-lockfree', client));

  afterAll(() => deleteTopicsAndGroups([demoPrefix, lockFreePrefix]));

  it(
    'builds (on the first run), starts 3 instances, every instance evicts the updated product, and nothing is left running',
    async () => {
      const run = await runDemo(['--once', ...buildOnce()], demoPrefix, client);

      expect(run.code, run.output).toBe(0);
      expect(run.output).toMatch(/All 3 instances evicted product 1: fan-out latency \d+–\d+ ms/);
      // The PUT answers with the receipt: every instance confirmed the eviction.
      expect(run.output).toMatch(
        /demo-1 {2}receipt: evicted on 3\/3 instances \(demo-1, demo-2, demo-3\)/,
      );
      for (const n of [1, 2, 3]) {
        expect(run.output).toMatch(new RegExp(`demo-${n} {2}GET /products/1 → miss, then hit`));
        expect(run.output).toMatch(
          new RegExp(
            `demo-${n} {2}evicted product 1 \\d+ ms after the change \\(was cached\\); next GET → miss`,
          ),
        );
      }
      // With the local PostgreSQL the instances take advisory locks; without it they run lock-free.
      expect(run.output).toMatch(
        /broadcastConsumer-\d+ │ postgres #\d+|broadcastLFConsumer-\d+ │ none \(lock-free\)/,
      );
      const pids = pidsOf(run.output);
      expect(pids).toHaveLength(3);
      expect(run.output).toMatch(/Stopped: (demo-\d \(pid \d+\) stopped cleanly(, )?){3}$/m);
      expect(pids.filter(isRunning)).toEqual([]);
      expectClientInLogs(run.output, 3, client);
    },
    DEMO_TIMEOUT_MS + 10_000,
  );

  it(
    'runs lock-free without a database (--no-db) with 2 instances',
    async () => {
      // An earlier test built dist/; this one reuses it.
      expect(
        existsSync(join(ROOT, 'dist/apps/demo/main.js')),
        'dist/apps/demo/main.js is missing: run npm run build',
      ).toBe(true);
      const run = await runDemo(
        ['--once', '--no-db', '--no-build', '--instances', '2'],
        lockFreePrefix,
        client,
      );

      expect(run.code, run.output).toBe(0);
      expect(run.output).toMatch(/All 2 instances evicted product 1/);
      expect(run.output).toMatch(/receipt: evicted on 2\/2 instances/);
      expect(run.output).toMatch(/broadcastLFConsumer-\d+ │ none \(lock-free\)/);
      const pids = pidsOf(run.output);
      expect(pids).toHaveLength(2);
      expect(pids.filter(isRunning)).toEqual([]);
      expectClientInLogs(run.output, 2, client);
    },
    DEMO_TIMEOUT_MS + 10_000,
  );
});
