#!/usr/bin/env node
// 9. Fleet scale and cost curves: N instances in P child processes, started on one signal.
//
//   node bench/benchmarks/b11-fleet.mjs --cluster=single|three --modes=lockfree,raw,postgres,mariadb
//        --sizes=1,10,50,100,200 [--lock-sizes=200] [--processes=10] [--heartbeat-ms=2000] [--window-ms=12000]
//        [--lockfree-max-groups=N]   (maxGroups for lock-free fleets; the engine's default otherwise)
//        (mode lockfree-x2: a lock-free fleet of N with maxGroups 2N, the headroom GUIDE.md advises)
//        [--client=kafkajs|platformatic|confluent] [--protocol=classic|consumer]   (ours and R alike;
//        confluent needs @confluentinc/kafka-javascript in node_modules, scripts/confluent-client.mjs,
//        and counts no requests: those columns are null)
//        [--before-lib=path/to/esm/index.js]   (modes named <mode>-before run that build)
//        [--lib=path/to/esm/index.js]   (the other modes of ours; default the built package)
//        [--out=bench/results/fleet-single.json]
//
// cluster env: the brokers of KAFKA_BROKERS (broker CPU is then not measured, and the broker is
//   shared with whatever else runs).
//
// cluster single: a fresh 1-node broker with the test settings (initial rebalance delay 0, one
//   offsets partition); three: a fresh 3-node cluster with broker defaults (initial rebalance
//   delay 3000 ms, 50 offsets partitions, replication 3). Lock modes run against private
//   PostgreSQL / MariaDB servers (bench/lib/fleet-db.mjs): 200 lock connections exceed the shared ones.
// Per (mode, N): time until all are ready, client CPU per start (sum over the children), client
// requests during the start and per second idle, broker CPU (from /proc of the broker JVMs),
// heartbeats per interval over an idle window, RSS per instance, groups left after a clean stop.
import { mkdir, writeFile } from 'node:fs/promises';
import { dirname, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { PRODUCTION_DEFAULTS, benchCluster, warmUp } from '../lib/clusters.mjs';
import { REPO_ROOT, machineInfo, otherLoad, round } from '../lib/common.mjs';
import { startPrivateMariadb, startPrivatePostgres } from '../lib/fleet-db.mjs';
import { HEARTBEAT_TOPIC, engineTopics } from '../lib/ours.mjs';
import {
  cleanupPrefix,
  createTopics,
  groupsWithPrefix,
  prepareFleet,
  processCpuMs,
  topicEnd,
} from '../lib/fleet.mjs';

const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
const brokerCpu = (cluster) =>
  cluster.nodes.reduce((s, n) => s + (n.pid ? processCpuMs(n.pid) : 0), 0);
/** The highest trailing `-<id>` of the pool groups held (-1 if none has one). */
const highestPoolId = (groups) =>
  Math.max(-1, ...groups.map((g) => Number(/-(\d+)$/.exec(g ?? '')?.[1] ?? -1)));
/** The brokers of KAFKA_BROKERS as a cluster whose CPU is not measured (no pids). */
const envCluster = () => ({
  brokers: process.env.KAFKA_BROKERS.split(','),
  nodes: [],
  stop: async () => undefined,
});

async function measure({
  cluster,
  mode: label,
  client,
  protocol,
  beforeLib,
  lib,
  n,
  processes,
  heartbeatMs,
  windowMs,
  db,
  runId,
  maxGroups,
}) {
  // lockfree-x2: a lock-free fleet whose pool has twice its size (maxGroups 2N).
  const mode = label.replace(/-before$/, '').replace(/-x2$/, '');
  const prefix = `${runId}-${label}-${n}-`;
  // All three topics an engine reads exist before the clock starts, for ours and R alike.
  await createTopics(cluster.brokers, engineTopics(prefix, 'events'));
  const fleet = await prepareFleet({
    n,
    processes,
    mode,
    brokers: cluster.brokers,
    prefix,
    topic: 'events',
    heartbeatMs,
    db,
    maxGroups,
    startupTimeoutMs: 180_000,
    client,
    ...(protocol && { groupProtocol: protocol }),
    ...(label.endsWith('-before') ? { lib: beforeLib } : lib ? { lib } : {}),
  });
  try {
    const cpu0 = brokerCpu(cluster);
    const start = await fleet.go();
    const brokerStartCpuMs = brokerCpu(cluster) - cpu0;
    // Idle: the first heartbeats after the last start are not steady state.
    await sleep(2 * heartbeatMs);
    const hb0 = await topicEnd(cluster.brokers, prefix + HEARTBEAT_TOPIC);
    const s0 = await fleet.stats();
    const idleCpu0 = brokerCpu(cluster);
    const t0 = Date.now();
    await sleep(windowMs);
    const elapsed = Date.now() - t0;
    const idleCpu = brokerCpu(cluster) - idleCpu0;
    const s1 = await fleet.stats();
    const hb1 = await topicEnd(cluster.brokers, prefix + HEARTBEAT_TOPIC);
    await fleet.stop();
    const left = await groupsWithPrefix(cluster.brokers, prefix);
    return {
      mode: label,
      client,
      protocol: protocol ?? (client === 'kafkajs' ? 'classic' : 'auto'),
      n,
      processes: Math.min(processes, n),
      ...(maxGroups && { maxGroups }),
      allReadyMs: start.allReadyMs,
      medianReadyMs: start.readyMs[Math.floor(start.readyMs.length / 2)],
      distinctGroups: start.distinctGroups,
      // The highest pool id held once all are ready (ids count from 0; R's groups are random).
      poolHighWaterId: mode === 'raw' ? null : highestPoolId(start.groups),
      clientCpuMsPerStart: round(start.cpuMsPerStart),
      startRequests: start.startRequests,
      startRequestsPerSec:
        start.startRequests === null
          ? null
          : round((start.startRequests * 1000) / Math.max(1, start.allReadyMs)),
      brokerCpuMsDuringStart: round(brokerStartCpuMs),
      brokerCpuMsPerStart: round(brokerStartCpuMs / n),
      idleRequestsPerSec:
        s1.requests === null ? null : round(((s1.requests - s0.requests) * 1000) / elapsed),
      idleBrokerCpuPercent: round((idleCpu * 100) / elapsed),
      heartbeatsPerInterval: mode === 'raw' ? null : round((hb1 - hb0) / (elapsed / heartbeatMs)),
      rssMiBPerInstance: round(start.rssKiBPerInstance / 1024),
      // Who sent in the window, and instances not 'ready' at its start and end.
      heartbeatSendersInWindow: s1.senders.filter((k, i) => k > s0.senders[i]).length,
      notReadyAtWindowStartEnd: [s0.notReady, s1.notReady],
      groupsLeftAfterStop: left.length,
    };
  } catch (error) {
    fleet.kill();
    throw error;
  } finally {
    await cleanupPrefix(cluster.brokers, prefix).catch(() => undefined);
  }
}

async function main() {
  const { values: args } = parseArgs({
    options: {
      cluster: { type: 'string', default: 'single' },
      modes: { type: 'string', default: 'lockfree,raw' },
      sizes: { type: 'string', default: '1,10,50,100,200' },
      // Sizes for the lock modes, when they should differ (e.g. only the 200 fleet).
      'lock-sizes': { type: 'string' },
      processes: { type: 'string', default: '10' },
      'heartbeat-ms': { type: 'string', default: '2000' },
      'window-ms': { type: 'string', default: '12000' },
      'lockfree-max-groups': { type: 'string' },
      client: { type: 'string', default: 'kafkajs' },
      protocol: { type: 'string' },
      'before-lib': { type: 'string' },
      lib: { type: 'string' },
      out: { type: 'string' },
    },
  });
  const modes = args.modes.split(',');
  const sizes = args.sizes.split(',').map(Number);
  const out = resolve(REPO_ROOT, args.out ?? `bench/results/fleet-${args.cluster}.json`);
  const runId = `b9${Date.now().toString(36)}`;
  const report = {
    schema: 1,
    bench: '9 fleet',
    date: new Date().toISOString(),
    args,
    machine: {
      ...machineInfo(),
      // What else ran on the machine, when the operator says (BENCH_NOTE); load is measured.
      ...(process.env.BENCH_NOTE && { note: process.env.BENCH_NOTE }),
    },
    otherProcessesAtStart: otherLoad(),
    rows: [],
    errors: [],
  };
  const t0 = Date.now();
  const cluster = args.cluster === 'env' ? envCluster() : await benchCluster(args.cluster);
  report.cluster = {
    kind: args.cluster,
    nodes: cluster.nodes.length,
    properties:
      args.cluster === 'three'
        ? PRODUCTION_DEFAULTS
        : args.cluster === 'env'
          ? 'the shared broker of KAFKA_BROKERS'
          : 'test settings (rebalance delay 0, 1 offsets partition)',
  };
  const dbs = {};
  try {
    // A fresh cluster's offsets topic is made by its first group: not inside the first row's clock.
    if (args.cluster !== 'env') report.cluster.warmupMs = await warmUp(cluster, runId);
    const uses = (m) => modes.includes(m) || modes.includes(`${m}-before`);
    if (uses('postgres')) dbs.postgres = await startPrivatePostgres();
    if (uses('mariadb')) dbs.mariadb = await startPrivateMariadb();
    const lockSizes = args['lock-sizes']?.split(',').map(Number);
    for (const n of [...new Set([...sizes, ...(lockSizes ?? [])])].sort((a, b) => a - b))
      for (const mode of modes) {
        const locked = /^(postgres|mariadb)/.test(mode);
        if (!(locked && lockSizes ? lockSizes : sizes).includes(n)) continue;
        const label = `${mode} N=${n}`;
        process.stderr.write(`[b9] ${label} ... (load ${machineInfo().loadavg.join(' ')})\n`);
        try {
          const row = await measure({
            cluster,
            mode,
            n,
            processes: Number(args.processes),
            heartbeatMs: Number(args['heartbeat-ms']),
            windowMs: Number(args['window-ms']),
            db: dbs[mode.replace(/-before$/, '')]?.db,
            client: args.client,
            protocol: args.protocol,
            beforeLib: args['before-lib'] && resolve(args['before-lib']),
            lib: args.lib && resolve(args.lib),
            runId,
            // lockfree-x2-before too: the earlier build's fleet with the same pool.
            maxGroups:
              mode.replace(/-before$/, '') === 'lockfree-x2'
                ? 2 * n
                : mode.startsWith('lockfree') && args['lockfree-max-groups']
                  ? Number(args['lockfree-max-groups'])
                  : undefined,
          });
          row.loadavg = machineInfo().loadavg;
          report.rows.push(row);
          process.stderr.write(`[b9] ${label}: ${JSON.stringify(row)}\n`);
        } catch (error) {
          report.errors.push({ mode, n, error: String(error?.stack ?? error).slice(0, 2000) });
          process.stderr.write(`[b9] ${label} FAILED: ${error}\n`);
        }
      }
  } finally {
    await Promise.all(Object.values(dbs).map((d) => d.stop().catch(() => undefined)));
    await cluster.stop();
  }
  report.durationMs = Date.now() - t0;
  report.machine.loadavgEnd = machineInfo().loadavg;
  await mkdir(dirname(out), { recursive: true });
  await writeFile(out, JSON.stringify(report, null, 1) + '\n');
  process.stderr.write(`[b9] wrote ${out}\n`);
}

if (import.meta.url === `file://${process.argv[1]}`) await main();
