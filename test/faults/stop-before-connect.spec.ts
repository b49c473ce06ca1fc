// stop() right after start() leaves nothing running, on the real broker and PostgreSQL: an engine
// in its own process is stopped in the same tick as start(), after one setImmediate, or 1, 2, 5,
// 10 or 50 ms later, and does NOT call process.exit. The process must end by itself with no socket
// left, no lock held and no member in any group: a client that connects after stop() (start()
// carrying on after the instrumentation import, once stop() had disconnected everything) would
// keep the process alive forever (issue #23, defect 9).
import { spawn } from 'node:child_process';
import { readdirSync, readFileSync, readlinkSync } from 'node:fs';
import { lockNamespaceKey } from '../../libs/broadcast/src/locks/lock-keys.js';
import { useEngineHarness, type LockKind } from '../support/engine/engine.js';
import { describe1, ensureLibBuilt, prefixGroups } from '../support/faults/faults.js';
import { kafkaBrokers } from '../support/broker/kafka.js';
import { kafkaClients, type BroadcastKafkaClient } from '../support/broker/kafka-clients.js';

/** When stop() is called, as the child takes it: the same tick, one setImmediate, or ms. */
const DELAYS = [
  ['in the same tick as', 'sync'],
  ['one setImmediate after', 'immediate'],
  // 50 ms: lock-free, the first admin connect is under way then.
  ...[1, 2, 5, 10, 50].map((ms) => [`${ms} ms after`, ms] as const),
] as const;
/**
 * How long the child may take to import the library, start, stop and exit. A process kept alive
 * by a leftover connection never exits (it was still alive after 150 s before the fix).
 */
const EXIT_DEADLINE_MS = 30_000;

interface ChildOutcome {
  /** null when it had to be killed. */
  code: number | null;
  out: string;
  /** Its established connections to the broker when it was killed. */
  brokerConnections: number | undefined;
}

/** Established TCP connections of process `pid` to `port` (Linux /proc). */
function connectionsTo(pid: number, port: number): number {
  const inodes = new Set<string>();
  for (const fd of readdirSync(`/proc/${pid}/fd`)) {
    const link = readlinkSync(`/proc/${pid}/fd/${fd}`, { encoding: 'utf8' });
    const inode = /^socket:\[(\d+)\]$/.exec(link)?.[1];
    if (inode) inodes.add(inode);
  }
  let count = 0;
  for (const table of ['tcp', 'tcp6']) {
    for (const line of readFileSync(`/proc/${pid}/net/${table}`, 'utf8').split('\n').slice(1)) {
      const fields = line.trim().split(/\s+/);
      const remotePort = parseInt(fields[2]?.split(':')[1] ?? '', 16);
      // st 01: ESTABLISHED; field 9: the socket's inode.
      if (remotePort === port && fields[3] === '01' && inodes.has(fields[9]!)) count++;
    }
  }
  return count;
}

/** Runs the child until it exits by itself, or kills it after EXIT_DEADLINE_MS. */
function runChild(config: object): Promise<ChildOutcome> {
  const brokerPort = Number(kafkaBrokers()[0]!.split(':').at(-1));
  return new Promise((resolve) => {
    const child = spawn(
      process.execPath,
      ['test/support/faults/seams-stop-early-child.mjs', JSON.stringify(config)],
      { env: { ...process.env }, stdio: ['ignore', 'pipe', 'pipe'] },
    );
    let out = '';
    let brokerConnections: number | undefined;
    child.stdout.on('data', (chunk) => (out += String(chunk)));
    child.stderr.on('data', (chunk) => (out += String(chunk)));
    const timer = setTimeout(() => {
      brokerConnections = connectionsTo(child.pid!, brokerPort);
      out += `\n(still running after ${EXIT_DEADLINE_MS} ms with ${brokerConnections} connection(s) to the broker: killed)`;
      child.kill('SIGKILL');
    }, EXIT_DEADLINE_MS);
    child.on('exit', (code) => {
      clearTimeout(timer);
      resolve({ code, out, brokerConnections });
    });
  });
}

/** The child's report line starting with `key`, without the key. */
function reported(out: string, key: string): string | undefined {
  const line = out.split('\n').find((l) => l.startsWith(`${key} `));
  return line?.slice(key.length + 1);
}

const ROWS = kafkaClients().flatMap((client) =>
  (['postgres', 'none'] as const).map((lock) => [client, lock] as const),
);

describe.each<readonly [BroadcastKafkaClient, Exclude<LockKind, 'mariadb'>]>(ROWS)(
  '%s client: a process stopped right after start() exits by itself (%s locks, no process.exit)',
  (client, lock) => {
    beforeAll(() => void ensureLibBuilt());

    it.each(DELAYS)('stop() %s start(): no socket, no lock, no member', async (_, delay) => {
      const h = useEngineHarness(`stop-early-${lock}-${String(delay)}`, undefined, client);
      const outcome = await runChild({
        brokers: kafkaBrokers(),
        client,
        prefix: h.prefix,
        lock,
        delay,
        lockKey: lockNamespaceKey(h.lockNamespace),
      });
      const { code, out } = outcome;
      expect(outcome.brokerConnections, out).toBeUndefined();
      expect(code, out).toBe(0);
      expect(reported(out, 'start'), out).toMatch(/^rejected: /);
      const active = JSON.parse(reported(out, 'active') ?? '[]') as string[];
      expect(
        active.filter((r) => r.startsWith('TCP')),
        out,
      ).toEqual([]);
      if (lock === 'postgres') expect(reported(out, 'locks held'), out).toBe('0');
      const admin = await h.admin();
      const members = await Promise.all(
        (await prefixGroups(admin, h.prefix)).map(
          async (g) => [g, (await describe1(admin, g)).memberIds] as const,
        ),
      );
      expect(members.filter(([, ids]) => ids.length > 0)).toEqual([]);
    });
  },
);
