// A fleet of N instances spread over P child processes (bench/lib/fleet-child.mjs), started
// together on one signal, and the broker-side figures around it.
import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import kafkajs from 'kafkajs';
import { BENCH_DIR, REPO_ROOT } from './common.mjs';

/** The sum of the children's request counts; null when any child counts none (confluent). */
const requestSum = (replies) =>
  replies.some((r) => r.requests === null) ? null : replies.reduce((s, r) => s + r.requests, 0);

function spawnChild(config) {
  const proc = spawn(
    process.execPath,
    [join(BENCH_DIR, 'lib', 'fleet-child.mjs'), JSON.stringify(config)],
    {
      cwd: REPO_ROOT,
      stdio: ['pipe', 'pipe', 'pipe'],
    },
  );
  const waiting = new Map();
  let buffer = '';
  let stderr = '';
  proc.stdout.setEncoding('utf8');
  proc.stdout.on('data', (chunk) => {
    buffer += chunk;
    for (let nl; (nl = buffer.indexOf('\n')) >= 0;) {
      const line = buffer.slice(0, nl);
      buffer = buffer.slice(nl + 1);
      const space = line.indexOf(' ');
      const tag = line.slice(0, space);
      const resolve = waiting.get(tag);
      waiting.delete(tag);
      resolve?.(JSON.parse(line.slice(space + 1)));
    }
  });
  proc.stderr.setEncoding('utf8');
  proc.stderr.on('data', (c) => (stderr = (stderr + c).slice(-4000)));
  const exited = new Promise((resolve) => proc.on('exit', resolve));
  const answer = (tag, timeoutMs) =>
    new Promise((resolve, reject) => {
      const timer = setTimeout(
        () => reject(new Error(`child ${proc.pid}: no ${tag} in ${timeoutMs} ms\n${stderr}`)),
        timeoutMs,
      );
      timer.unref();
      waiting.set(tag, (v) => (clearTimeout(timer), resolve(v)));
      exited.then(() => reject(new Error(`child ${proc.pid} exited before ${tag}\n${stderr}`)));
    });
  const ask = (command, tag, timeoutMs = 300_000) => {
    const reply = answer(tag, timeoutMs);
    proc.stdin.write(`${command}\n`);
    return reply;
  };
  return { proc, answer, ask, exited, stderrTail: () => stderr };
}

/** CPU time (ms) a process has used so far, from /proc/<pid>/stat (utime + stime). */
export function processCpuMs(pid) {
  const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ');
  return ((Number(fields[11]) + Number(fields[12])) * 1000) / 100;
}

export function processRssKiB(pid) {
  return Number(/VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1]);
}

/**
 * Starts `n` instances of `mode` in `processes` children; resolves once every child has its
 * instances built (DataSources initialized) but none started.
 */
export async function prepareFleet({ n, processes, ...config }) {
  const p = Math.min(processes, n);
  const children = Array.from({ length: p }, (_, i) => {
    const count = Math.floor(n / p) + (i < n % p ? 1 : 0);
    return spawnChild({ ...config, count, tag: i });
  });
  await Promise.all(children.map((c) => c.answer('PREPARED', 300_000)));
  return {
    children,
    /** GO to every child at once; resolves with the fleet's start figures. */
    async go() {
      const t0 = Date.now();
      const replies = await Promise.all(children.map((c) => c.ask('GO', 'READY')));
      const readyAt = replies.flatMap((r) => r.readyAt);
      const groups = replies.flatMap((r) => r.groups);
      const cpuMs = replies.reduce((s, r) => s + r.cpuMs, 0);
      const kinds = {};
      for (const r of replies)
        for (const [k, v] of Object.entries(r.kinds ?? {})) kinds[k] = (kinds[k] ?? 0) + v;
      if (process.env.FLEET_REQUEST_KINDS)
        process.stderr.write(`[fleet] start requests by kind: ${JSON.stringify(kinds)}\n`);
      return {
        allReadyMs: Math.max(...readyAt) - t0,
        readyMs: readyAt.map((t) => t - t0).sort((a, b) => a - b),
        cpuMsPerStart: cpuMs / n,
        startRequests: requestSum(replies),
        distinctGroups: new Set(groups).size,
        groups,
        rssKiBPerInstance: replies.reduce((s, r) => s + r.rssKiB, 0) / n,
      };
    },
    async stats() {
      const replies = await Promise.all(children.map((c) => c.ask('STATS', 'STATS')));
      return {
        requests: requestSum(replies),
        heartbeatsSent: replies.reduce((s, r) => s + r.heartbeatsSent, 0),
        senders: replies.flatMap((r) => r.senders),
        notReady: replies.reduce((s, r) => s + r.notReady, 0),
        rssKiB: replies.reduce((s, r) => s + r.rssKiB, 0),
      };
    },
    async stop() {
      await Promise.all(
        children.map((c) => c.ask('STOP', 'STOPPED', 120_000).catch(() => c.proc.kill('SIGKILL'))),
      );
      await Promise.all(children.map((c) => c.exited));
    },
    kill() {
      for (const c of children) c.proc.kill('SIGKILL');
    },
  };
}

/** Consumer groups on the broker whose id starts with `prefix`. */
export async function groupsWithPrefix(brokers, prefix) {
  const admin = new kafkajs.Kafka({ brokers, logLevel: kafkajs.logLevel.NOTHING }).admin();
  await admin.connect();
  try {
    const { groups } = await admin.listGroups();
    return groups.map((g) => g.groupId).filter((g) => g.startsWith(prefix));
  } finally {
    await admin.disconnect();
  }
}

/** Records written to a topic so far (sum of high watermarks); 0 if it does not exist. */
export async function topicEnd(brokers, topic) {
  const admin = new kafkajs.Kafka({ brokers, logLevel: kafkajs.logLevel.NOTHING }).admin();
  await admin.connect();
  try {
    const offsets = await admin.fetchTopicOffsets(topic);
    return offsets.reduce((s, p) => s + Number(p.high), 0);
  } catch {
    return 0;
  } finally {
    await admin.disconnect();
  }
}

/** Deletes the groups and topics of `prefix` (groups may need a session timeout to empty). */
export async function cleanupPrefix(brokers, prefix) {
  const admin = new kafkajs.Kafka({ brokers, logLevel: kafkajs.logLevel.NOTHING }).admin();
  await admin.connect();
  try {
    const { groups } = await admin.listGroups();
    const ids = groups.map((g) => g.groupId).filter((g) => g.startsWith(prefix));
    if (ids.length) await admin.deleteGroups(ids).catch(() => undefined);
    const topics = (await admin.listTopics()).filter((t) => t.startsWith(prefix));
    if (topics.length) await admin.deleteTopics({ topics }).catch(() => undefined);
  } finally {
    await admin.disconnect();
  }
}

/** Creates the topics every instance reads (data + heartbeat), as an application's deploy would. */
export async function createTopics(brokers, topics) {
  const admin = new kafkajs.Kafka({ brokers, logLevel: kafkajs.logLevel.NOTHING }).admin();
  await admin.connect();
  try {
    // waitForLeaders can reject unhandled inside kafkajs when a broker answers before it knows
    // the topic; poll the offsets (which need a leader) instead.
    await admin.createTopics({
      topics: topics.map((topic) => ({ topic, numPartitions: 1 })),
      waitForLeaders: false,
    });
    for (const deadline = Date.now() + 60_000; ;) {
      try {
        for (const topic of topics) await admin.fetchTopicOffsets(topic);
        return;
      } catch (error) {
        if (Date.now() > deadline) throw error;
        await new Promise((r) => setTimeout(r, 200));
      }
    }
  } finally {
    await admin.disconnect();
  }
}
