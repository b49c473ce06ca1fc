#!/usr/bin/env node
// `npm run demo` — N instances of apps/demo share one Kafka broadcast topic and show that a
// product update evicts every instance's cache, with the fan-out latency of each.
//
//   npm run demo                        3 instances, live status table until Ctrl-C
//   npm run demo -- --instances 5       more instances
//   npm run demo -- --once              scenario + one table, then exit (0 = every instance evicted)
//   npm run demo -- --no-db             lock-free mode (DATABASE_URL=none), products in memory
//   npm run demo -- --no-build          skip `npm run build` (dist/ must be current)
//   npm run demo -- --keep-broker       leave a broker the demo started running
//
// The broker: KAFKA_BROKERS if set, else the one `npm run kafka:start` left running, else the
// demo starts one (scripts/kafka.mjs) and stops it again at exit. Plain Node, no dependencies.
import { spawn } from 'node:child_process';
import { closeSync, mkdtempSync, openSync, readFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { clusterAnswers, readState, REPO_ROOT } from './kafka-cluster.mjs';

const HEALTH_DEADLINE_MS = 120_000;
const EVICTION_DEADLINE_MS = 20_000;
const STOP_GRACE_MS = 20_000;
const PRODUCT_ID = 1;
const MAIN = join(REPO_ROOT, 'dist', 'apps', 'demo', 'main.js');

const { values: opts } = parseArgs({
  options: {
    instances: { type: 'string', default: '3' },
    once: { type: 'boolean', default: false },
    'no-db': { type: 'boolean', default: false },
    'no-build': { type: 'boolean', default: false },
    'keep-broker': { type: 'boolean', default: false },
    help: { type: 'boolean', short: 'h', default: false },
  },
});
if (opts.help) {
  console.log(
    'usage: npm run demo -- [--instances N] [--once] [--no-db] [--no-build] [--keep-broker]',
  );
  process.exit(0);
}
const count = Number(opts.instances);
if (!Number.isInteger(count) || count < 1 || count > 20)
  fail(`--instances must be an integer from 1 to 20, got '${opts.instances}'`);

const tty = Boolean(process.stdout.isTTY);
const paint = (code) => (text) => (tty ? `\x1b[${code}m${text}\x1b[0m` : String(text));
const [bold, dim, green, red, yellow] = [paint(1), paint(2), paint(32), paint(31), paint(33)];
const say = (line = '') => console.log(line);
const note = (line) => console.log(dim(line));

/** Everything that must be undone, whatever happens. */
const run = {
  abort: new AbortController(),
  instances: [],
  broker: { brokers: '', started: false, source: '' },
  helpers: new Set(), // short-lived child processes (build, broker CLI)
  cleaning: undefined,
};

// ---------------------------------------------------------------- signals

let signals = 0;
for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP']) {
  process.on(signal, () => {
    if (signals++ === 0) {
      say(`\n${yellow(`${signal}: stopping everything…`)}`);
      run.abort.abort(new Interrupted(signal));
    } else {
      note(`(${signal} again: already stopping; every step has a deadline)`);
    }
  });
}

// A bug anywhere must not leave instances behind: clean up, then exit 1.
for (const event of ['uncaughtException', 'unhandledRejection']) {
  process.on(event, (error) => {
    console.error(red(`\nUnexpected ${event}:`), error);
    if (!run.abort.signal.aborted) run.abort.abort(error);
    cleanup().finally(() => process.exit(1));
  });
}

class Interrupted extends Error {
  constructor(signal) {
    super(`interrupted by ${signal}`);
  }
}

// ---------------------------------------------------------------- main

process.exitCode = await main();

async function main() {
  try {
    await ensureBroker();
    if (!opts['no-build']) await build();
    const logDir = mkdtempSync(join(tmpdir(), 'kafka-broadcast-demo-'));
    const prefix = process.env.BROADCAST_TOPIC_PREFIX ?? 'demo.';
    say(`Instance logs: ${bold(logDir)}`);
    const ports = await freePorts(count);
    for (let i = 0; i < count; i++)
      run.instances.push(startInstance(i + 1, ports[i], logDir, prefix));
    say(`DEMO_PIDS=${run.instances.map((x) => x.child.pid).join(',')}`);
    await Promise.all(run.instances.map(waitHealthy));
    // Lock-free instances that start together can meet in one group; the one that leaves makes
    // the other's group rebalance, and a receipt asked for meanwhile would not expect it.
    await Promise.all(run.instances.map((inst) => waitForRoster(inst, count)));
    say(green(`All ${count} instances are up.`));
    const scenario = await runScenario(run.instances);
    if (opts.once) {
      say();
      say(renderTable(await snapshot(run.instances)));
      return scenario.ok ? 0 : 1;
    }
    await live(scenario);
    return scenario.ok ? 0 : 1;
  } catch (error) {
    if (error instanceof Interrupted || run.abort.signal.aborted) return opts.once ? 130 : 0;
    say(red(`\nDemo failed: ${error.message}`));
    for (const inst of run.instances) if (inst.exit || inst.failed) say(logTail(inst));
    return 1;
  } finally {
    await cleanup();
  }
}

// ---------------------------------------------------------------- broker and build

async function ensureBroker() {
  if (process.env.KAFKA_BROKERS) {
    run.broker = { brokers: process.env.KAFKA_BROKERS, started: false, source: 'KAFKA_BROKERS' };
  } else {
    const state = await readState();
    if (state && (await clusterAnswers(state.brokers))) {
      run.broker = {
        brokers: state.brokers.join(','),
        started: false,
        source: 'the running local broker',
      };
    } else {
      say(
        'Starting a local Kafka broker (scripts/kafka.mjs start; the first run downloads it from Maven Central)…',
      );
      const { stdout } = await helper(
        'kafka broker start',
        process.execPath,
        [join(REPO_ROOT, 'scripts/kafka.mjs'), 'start'],
        {
          streamStderr: true,
          detached: true, // Ctrl-C must not kill it half-way: we wait, then stop it properly
          interruptible: false,
        },
      );
      const line = stdout.trim().split('\n').at(-1) ?? '';
      if (!line.startsWith('KAFKA_BROKERS='))
        throw new Error(`scripts/kafka.mjs start printed no KAFKA_BROKERS line:\n${stdout}`);
      run.broker = {
        brokers: line.slice('KAFKA_BROKERS='.length),
        started: true,
        source: 'started by the demo',
      };
    }
  }
  say(`Kafka: ${bold(run.broker.brokers)} (${run.broker.source})`);
  run.abort.signal.throwIfAborted();
}

async function build() {
  say('Building (npm run build)…');
  const [cmd, args] = process.env.npm_execpath
    ? [process.execPath, [process.env.npm_execpath, 'run', 'build']]
    : ['npm', ['run', 'build']];
  const started = Date.now();
  try {
    await helper('npm run build', cmd, args);
  } catch (error) {
    if (error instanceof Interrupted) throw error;
    throw new Error(`the build failed (npm run build):\n${error.output ?? error.message}`);
  }
  note(`Built in ${((Date.now() - started) / 1000).toFixed(1)} s.`);
}

/**
 * Runs a short-lived command, capturing its output. Interruptible ones are SIGTERMed on abort;
 * the others are waited for (they have their own deadlines), so they never leave half a thing.
 */
function helper(
  name,
  cmd,
  args,
  { streamStderr = false, detached = false, interruptible = true } = {},
) {
  return new Promise((resolve, reject) => {
    const child = spawn(cmd, args, { cwd: REPO_ROOT, stdio: ['ignore', 'pipe', 'pipe'], detached });
    run.helpers.add(child);
    let stdout = '';
    let output = '';
    child.stdout.on('data', (d) => ((stdout += d), (output += d)));
    child.stderr.on('data', (d) => {
      output += d;
      if (streamStderr) process.stderr.write(dim(String(d)));
    });
    const onAbort = () => interruptible && child.kill('SIGTERM');
    run.abort.signal.addEventListener('abort', onAbort, { once: true });
    child.on('error', (error) => reject(error));
    child.on('close', (code, signal) => {
      run.helpers.delete(child);
      run.abort.signal.removeEventListener('abort', onAbort);
      if (interruptible && run.abort.signal.aborted) return reject(run.abort.signal.reason);
      if (code === 0) return resolve({ stdout });
      reject(
        Object.assign(new Error(`${name} exited with ${signal ?? `code ${code}`}`), { output }),
      );
    });
  });
}

// ---------------------------------------------------------------- instances

function startInstance(n, port, logDir, prefix) {
  const name = `demo-${n}`;
  const logFile = join(logDir, `${name}.log`);
  const env = {
    ...process.env,
    PORT: String(port),
    HOST: '127.0.0.1',
    INSTANCE_NAME: name,
    KAFKA_BROKERS: run.broker.brokers,
    BROADCAST_TOPIC_PREFIX: prefix,
  };
  if (opts['no-db']) env.DATABASE_URL = 'none';
  const fd = openSync(logFile, 'a');
  let child;
  try {
    // Own process group: Ctrl-C reaches only this script, which then stops each instance once.
    // The IPC channel is a lifeline: if this script dies, the instance shuts itself down.
    child = spawn(process.execPath, [MAIN], {
      cwd: REPO_ROOT,
      env,
      detached: true,
      stdio: ['ignore', fd, fd, 'ipc'],
    });
  } finally {
    closeSync(fd);
  }
  const inst = {
    n,
    name,
    port,
    logFile,
    child,
    exit: undefined,
    failed: false,
    base: `http://127.0.0.1:${port}`,
  };
  inst.exited = new Promise((resolve) => {
    child.on('exit', (code, signal) => resolve((inst.exit = { code, signal })));
    child.on('error', (error) => resolve((inst.exit = { code: null, signal: null, error })));
  });
  note(`  ${name}: pid ${child.pid}, port ${port}, log ${logFile}`);
  return inst;
}

/** Waits until `inst` sees all `count` instances in the roster (every group settled). */
async function waitForRoster(inst, count) {
  const deadline = Date.now() + HEALTH_DEADLINE_MS;
  let seen = [];
  while (Date.now() < deadline) {
    run.abort.signal.throwIfAborted();
    const roster = await getJson(inst, '/broadcast/roster');
    seen = roster.body?.instances ?? [];
    if (roster.ok && seen.length >= count) return;
    await sleep(200);
  }
  inst.failed = true;
  throw new Error(
    `${inst.name} saw ${seen.length} of ${count} instances in the roster (${seen.join(', ')})`,
  );
}

async function waitHealthy(inst) {
  const deadline = Date.now() + HEALTH_DEADLINE_MS;
  let last = 'no answer yet';
  while (Date.now() < deadline) {
    run.abort.signal.throwIfAborted();
    if (inst.exit) {
      inst.failed = true;
      throw new Error(
        `${inst.name} exited during startup (${describeExit(inst.exit)}); its log is below`,
      );
    }
    const health = await getJson(inst, '/health');
    if (health.ok && health.body?.status === 'ok') return;
    last = health.error ?? healthReason(health.body);
    await sleep(500);
  }
  inst.failed = true;
  throw new Error(
    `${inst.name} was not healthy within ${HEALTH_DEADLINE_MS / 1000} s (last: ${last})`,
  );
}

// ---------------------------------------------------------------- scenario

async function runScenario(instances) {
  say();
  say(
    bold(
      `Scenario: warm every cache, update product ${PRODUCT_ID} through ${instances[0].name}, watch every instance evict it`,
    ),
  );
  if (opts['no-db'])
    note(
      '  (no database: every instance keeps its own in-memory products, so only the first one sees the new name)',
    );
  for (const inst of instances) {
    const first = await getJson(inst, `/products/${PRODUCT_ID}`);
    const second = await getJson(inst, `/products/${PRODUCT_ID}`);
    if (!first.ok || !second.ok)
      throw new Error(
        `${inst.name}: GET /products/${PRODUCT_ID} failed (${first.error ?? second.error ?? first.status})`,
      );
    say(
      `  ${inst.name}  GET /products/${PRODUCT_ID} → ${first.body.cache}, then ${second.body.cache}`,
    );
  }

  const changes = {
    name: `Espresso machine (updated ${new Date().toISOString().slice(11, 19)})`,
    price: randomPrice(),
  };
  const put = await request(instances[0], `/products/${PRODUCT_ID}`, {
    method: 'PUT',
    body: JSON.stringify(changes),
  });
  if (!put.ok)
    throw new Error(
      `PUT /products/${PRODUCT_ID} on ${instances[0].name} failed: ${put.error ?? `${put.status} ${JSON.stringify(put.body)}`}`,
    );
  const { changeId } = put.body.event;
  const receipt = put.body.receipt;
  say(
    `  ${instances[0].name}  PUT /products/${PRODUCT_ID} ${JSON.stringify(changes)} → published product.changed ${dim(changeId)}`,
  );
  const confirmed =
    receipt.ok.length === instances.length && receipt.expected.length === instances.length;
  say(
    `  ${instances[0].name}  receipt: ${(confirmed ? green : red)(receipt.summary)} (${receipt.ok.join(', ')}) ${receipt.elapsedMs} ms after the publish`,
  );

  const results = await Promise.all(instances.map((inst) => awaitEviction(inst, changeId)));
  for (const r of results) {
    if (!r.eviction) {
      say(
        red(
          `  ${r.inst.name}  did NOT evict product ${PRODUCT_ID} within ${EVICTION_DEADLINE_MS / 1000} s`,
        ),
      );
      for (const line of problemLines(r.inst)) say(dim(`      ${line}`));
      continue;
    }
    const after = r.after
      ? `next GET → ${r.after.cache}, name "${r.after.product.name}"`
      : 'next GET failed';
    say(
      `  ${r.inst.name}  evicted product ${PRODUCT_ID} ${green(`${r.eviction.latencyMs} ms`)} after the change (${r.eviction.hadEntry ? 'was cached' : 'was not cached'}); ${after}`,
    );
  }
  const evicted = results.filter((r) => r.eviction);
  const ok = evicted.length === instances.length && confirmed;
  const latencies = evicted.map((r) => r.eviction.latencyMs);
  const summary = ok
    ? `All ${instances.length} instances evicted product ${PRODUCT_ID}: fan-out latency ${Math.min(...latencies)}–${Math.max(...latencies)} ms`
    : `FAILED: only ${evicted.length} of ${instances.length} instances evicted product ${PRODUCT_ID}`;
  say(ok ? green(summary) : red(summary));
  return { ok, summary, results };
}

/** Polls /broadcast/status until this change's eviction shows up, then reads the product once more. */
async function awaitEviction(inst, changeId) {
  const deadline = Date.now() + EVICTION_DEADLINE_MS;
  while (Date.now() < deadline) {
    run.abort.signal.throwIfAborted();
    const status = await getJson(inst, '/broadcast/status');
    const eviction = status.body?.evictions?.recent?.find((e) => e.changeId === changeId);
    if (eviction) {
      const after = await getJson(inst, `/products/${PRODUCT_ID}`);
      return { inst, eviction, after: after.ok ? after.body : undefined };
    }
    await sleep(20);
  }
  return { inst, eviction: undefined };
}

// ---------------------------------------------------------------- status table

async function snapshot(instances) {
  return Promise.all(
    instances.map(async (inst) => {
      if (inst.exit)
        return { inst, status: undefined, health: `exited (${describeExit(inst.exit)})` };
      const [status, health] = await Promise.all([
        getJson(inst, '/broadcast/status'),
        getJson(inst, '/health'),
      ]);
      const healthText = health.error
        ? `unreachable (${health.error})`
        : health.body?.status === 'ok'
          ? 'up'
          : `down: ${healthReason(health.body)}`;
      return { inst, status: status.ok ? status.body : undefined, health: healthText };
    }),
  );
}

function renderTable(rows) {
  const header = ['instance', 'port', 'pid', 'group', 'lock', 'received', 'last latency', 'health'];
  const lines = rows.map(({ inst, status: s, health }) => [
    inst.name,
    String(inst.port),
    String(inst.child.pid),
    s?.group ?? '-',
    !s ? '-' : s.lockMode === 'none' ? 'none (lock-free)' : `${s.lockMode} #${s.lockId}`,
    s ? String(s.received) : '-',
    s ? formatMs(s.lastLatencyMs) : '-',
    health,
  ]);
  const widths = header.map((h, i) => Math.max(h.length, ...lines.map((l) => l[i].length)));
  const format = (cells) =>
    cells
      .map((c, i) => c.padEnd(widths[i]))
      .join(' │ ')
      .trimEnd();
  const colour = (line, health) =>
    health === 'up' ? line : health.startsWith('down') ? yellow(line) : red(line);
  return [
    bold(format(header)),
    widths.map((w) => '─'.repeat(w)).join('─┼─'),
    ...lines.map((l) => colour(format(l), l[7])),
  ].join('\n');
}

/** Redraws every second on a terminal; prints every 5 s otherwise. Until a signal. */
async function live(scenario) {
  const example = `curl -X PUT -H 'content-type: application/json' -d '{"name":"Tamper","price":19.9}' ${run.instances[0].base}/products/2`;
  const period = tty ? 1_000 : 5_000;
  if (!tty) say(`\nLive status every ${period / 1000} s; Ctrl-C stops everything. Try: ${example}`);
  while (!run.abort.signal.aborted) {
    const table = renderTable(await snapshot(run.instances));
    if (run.abort.signal.aborted) break;
    if (tty) {
      const scenarioLines = scenario.results.map(
        (r) =>
          `  ${r.inst.name}  ${r.eviction ? `evicted in ${r.eviction.latencyMs} ms` : red('no eviction')}`,
      );
      process.stdout.write('\x1b[2J\x1b[H');
      say(
        bold(
          `Kafka broadcast demo: ${run.instances.length} instances, Kafka ${run.broker.brokers} (${run.broker.source})`,
        ),
      );
      note(`Logs: ${run.instances[0].logFile.replace(/[^/]+$/, '')}`);
      say();
      say(scenario.ok ? green(scenario.summary) : red(scenario.summary));
      for (const line of scenarioLines) say(line);
      say();
      say(table);
      say();
      note(`${new Date().toLocaleTimeString()} · Ctrl-C stops everything · try: ${example}`);
    } else {
      say(`\n${new Date().toISOString()}`);
      say(table);
    }
    await sleep(period).catch(() => {});
  }
}

// ---------------------------------------------------------------- cleanup

function cleanup() {
  run.cleaning ??= (async () => {
    if (!run.abort.signal.aborted) run.abort.abort(new Error('cleanup'));
    const alive = run.instances.filter((inst) => !inst.exit);
    if (alive.length > 0)
      say(`\nStopping ${alive.length} instance(s) (SIGTERM: leave group, free lock)…`);
    await Promise.all(run.instances.map(stopInstance));
    if (run.instances.length > 0)
      say(
        `Stopped: ${run.instances.map((i) => `${i.name} (pid ${i.child.pid}) ${describeExit(i.exit)}`).join(', ')}`,
      );
    for (const child of run.helpers) if (child.exitCode === null) child.kill('SIGTERM');
    if (run.broker.started && !opts['keep-broker']) {
      say('Stopping the Kafka broker the demo started…');
      await helper(
        'kafka broker stop',
        process.execPath,
        [join(REPO_ROOT, 'scripts/kafka.mjs'), 'stop'],
        {
          detached: true,
          interruptible: false,
        },
      ).catch((error) =>
        say(red(`Could not stop the broker: ${error.message} (try: npm run kafka:stop)`)),
      );
    } else if (run.broker.started) {
      say(`Leaving the broker running (--keep-broker); stop it with: npm run kafka:stop`);
    }
  })();
  return run.cleaning;
}

/** SIGTERM, then SIGKILL after STOP_GRACE_MS; resolves once the process is gone. */
async function stopInstance(inst) {
  if (inst.exit) return;
  inst.child.kill('SIGTERM');
  const timer = sleepUnaborted(STOP_GRACE_MS);
  const outcome = await Promise.race([inst.exited, timer.then(() => 'timeout')]);
  timer.cancel();
  if (outcome === 'timeout') {
    say(red(`${inst.name} did not stop within ${STOP_GRACE_MS / 1000} s; killing it`));
    inst.child.kill('SIGKILL');
    await inst.exited;
  }
}

// ---------------------------------------------------------------- helpers

async function request(inst, path, init = {}) {
  try {
    const response = await fetch(inst.base + path, {
      ...init,
      headers: { 'content-type': 'application/json', ...init.headers },
      signal: AbortSignal.timeout(3_000),
    });
    const text = await response.text();
    let body;
    try {
      body = JSON.parse(text);
    } catch {
      body = text;
    }
    return { ok: response.ok, status: response.status, body };
  } catch (error) {
    return { ok: false, status: 0, error: error.cause?.code ?? error.name ?? String(error) };
  }
}

function getJson(inst, path) {
  return request(inst, path);
}

function healthReason(body) {
  if (!body || typeof body !== 'object') return String(body);
  const bad = Object.entries(body.error ?? body.details ?? {}).filter(
    ([, v]) => v?.status !== 'up',
  );
  return (
    bad.map(([key, v]) => `${key}: ${v.reason ?? v.message ?? v.status}`).join('; ') ||
    String(body.status)
  );
}

function describeExit(exit) {
  if (!exit) return 'still running';
  if (exit.error) return `failed to start: ${exit.error.message}`;
  if (exit.signal === 'SIGTERM' || exit.code === 0) return 'stopped cleanly';
  return exit.signal ? `killed by ${exit.signal}` : `exit code ${exit.code}`;
}

function logTail(inst, lines = 30) {
  let text;
  try {
    text = readFileSync(inst.logFile, 'utf8');
  } catch {
    text = '(no log)';
  }
  const tail = text.trimEnd().split('\n').slice(-lines).join('\n');
  return `--- ${inst.logFile} (last ${lines} lines) ---\n${tail}`;
}

/** The instance's last few ERROR / WARN log lines, to explain a failed step. */
function problemLines(inst, max = 5) {
  try {
    return readFileSync(inst.logFile, 'utf8')
      .split('\n')
      .filter((l) => / (ERROR|WARN) /.test(l))
      .slice(-max);
  } catch {
    return [];
  }
}

function formatMs(ms) {
  if (ms === null || ms === undefined) return '-';
  return ms < 1_000 ? `${ms} ms` : `${(ms / 1_000).toFixed(1)} s`;
}

function randomPrice() {
  return Math.round((200 + Math.random() * 100) * 100) / 100;
}

/** Resolves after `ms`, or rejects as soon as the demo is interrupted. */
function sleep(ms) {
  const signal = run.abort.signal;
  return new Promise((resolve, reject) => {
    if (signal.aborted) return reject(signal.reason);
    const timer = setTimeout(() => (signal.removeEventListener('abort', onAbort), resolve()), ms);
    const onAbort = () => (clearTimeout(timer), reject(signal.reason));
    signal.addEventListener('abort', onAbort, { once: true });
  });
}

/** A plain timer for cleanup (which runs after the abort); cancel() lets the process exit early. */
function sleepUnaborted(ms) {
  let timer;
  const promise = new Promise((resolve) => (timer = setTimeout(resolve, ms)));
  promise.cancel = () => clearTimeout(timer);
  return promise;
}

/** Asks the OS for `n` distinct free ports on 127.0.0.1 (all held open until every one is known). */
async function freePorts(n) {
  const servers = [];
  try {
    for (let i = 0; i < n; i++) {
      const server = createServer();
      servers.push(server);
      await new Promise((resolve, reject) =>
        server.once('error', reject).listen(0, '127.0.0.1', resolve),
      );
    }
    return servers.map((s) => s.address().port);
  } finally {
    await Promise.all(servers.map((s) => new Promise((resolve) => s.close(() => resolve()))));
  }
}

function fail(message) {
  console.error(message);
  process.exit(2);
}
