// The soak's engines: one child process per incarnation (test/support/faults/instance.mjs, which
// imports the BUILT library), restarted in the same slot after a kill. Each incarnation
// records when it became ready, every record it handed to its handlers (per topic), what it
// published on command, and the warnings the shapes' verdicts look at.
import { spawn } from 'node:child_process';
import { appendFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const RUNNER = join(
  dirname(fileURLToPath(import.meta.url)),
  '../../test/support/faults/instance.mjs',
);
/**
 * SOAK_TRACE_DIR=<dir>: every incarnation runs with debug logs, and every line it prints goes
 * to `<dir>/<slot>.<n>.log` (for finding out why a soak failed; off by default, it is a lot).
 */
const TRACE_DIR = process.env.SOAK_TRACE_DIR;

export class Incarnation {
  events = 0;
  readyAt = undefined;
  failed = undefined;
  /** { seq, offset, at } per delivered `seq` record, in order */
  deliveries = [];
  /** { id, tx, offset, at } per delivered `txn` record (transactional producer) */
  txn = [];
  /** { tid, offset, at } per delivered `targeted` record */
  targeted = [];
  /** Handler calls after a group join, before the reader was ready again: { topic, offset, state } */
  unproven = [];
  /** Its own publishes: id -> { startedAt, at, receipt } or { startedAt, at, failed } */
  published = new Map();
  /** When the consumer crashed and rejoined (its warning 'Broadcast consumer of … stopped') */
  rejoins = [];
  /** The replay window was not read through before the startup deadline (its warning). */
  replayNotReadThrough = false;
  /** Set when it started on a quiet transactional topic (TxnProducer.quietStart). */
  quietStart = undefined;
  states = [];
  errors = [];
  exit = undefined;
  killedAt = undefined;
  spawnedAt = Date.now();

  constructor(slot, number, config) {
    this.slot = slot;
    this.number = number;
    this.name = slot.name;
    /** the process's own name: client id and PostgreSQL application_name `bcast-<slot>.<n>` */
    this.processName = config.name;
    const trace = TRACE_DIR && join(TRACE_DIR, `${config.name}.log`);
    if (trace) config = { ...config, debug: true };
    this.child = spawn(process.execPath, [RUNNER], {
      env: { ...process.env, BROADCAST_INSTANCE_CONFIG: JSON.stringify(config) },
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    this.exited = new Promise((resolve) =>
      this.child.on('exit', (code, signal) => {
        this.exit = { code, signal, at: Date.now() };
        resolve(this.exit);
      }),
    );
    let pending = '';
    this.child.stdout.setEncoding('utf8');
    this.child.stdout.on('data', (chunk) => {
      pending += chunk;
      if (trace) appendFileSync(trace, chunk);
      for (let i = pending.indexOf('\n'); i >= 0; i = pending.indexOf('\n')) {
        this.#line(pending.slice(0, i));
        pending = pending.slice(i + 1);
      }
    });
    this.child.stderr.on('data', (chunk) => {
      if (trace) appendFileSync(trace, `STDERR ${chunk}`);
      this.errors.push(String(chunk).slice(0, 500));
    });
    this.child.stdin.on('error', () => undefined); // writes to a process that just died
  }

  #line(text) {
    let e;
    try {
      e = JSON.parse(text);
    } catch {
      return;
    }
    this.events++;
    if (e.event === 'ready') this.readyAt = e.at;
    else if (e.event === 'failed') this.failed = e.message;
    else if (e.event === 'state')
      this.states.push({ state: e.state, groupId: e.groupId, lockId: e.lockId, at: e.at });
    else if (e.event === 'message') this.#message(e);
    else if (e.event === 'published')
      this.published.set(e.id, { startedAt: e.startedAt, at: e.at, receipt: e.receipt });
    else if (e.event === 'publish-failed')
      this.published.set(e.id, { startedAt: e.startedAt, at: e.at, failed: e.message });
    else if (e.event === 'log' && e.level === 'error')
      this.errors.push(String(e.message).slice(0, 300));
    else if (e.event === 'log' && e.level === 'warn') this.#warning(String(e.message), e.at);
  }

  #message(e) {
    if (e.unproven) this.unproven.push({ topic: e.topic, offset: e.offset, state: e.state });
    if (e.topic === 'txn')
      this.txn.push({
        id: `${e.payload?.tx}.${e.payload?.i}`,
        tx: e.payload?.tx,
        offset: e.offset,
        at: e.at,
      });
    else if (e.topic === 'targeted')
      this.targeted.push({ tid: e.payload?.tid, offset: e.offset, at: e.at });
    else this.deliveries.push({ seq: e.payload?.seq, offset: e.offset, at: e.at });
  }

  #warning(message, at) {
    if (message.startsWith('Broadcast consumer of '))
      this.rejoins.push({ at, message: message.slice(0, 300) });
    if (message.includes('replay window was not read through')) this.replayNotReadThrough = true;
  }

  /** Publishes through this process's engine (see instance.mjs, command `publish`). */
  publish(request) {
    if (this.alive) this.child.stdin.write(`publish ${JSON.stringify(request)}\n`);
  }

  /** When it last handed a record (any topic) to its handlers. */
  get lastDeliveryAt() {
    return Math.max(
      this.deliveries.at(-1)?.at ?? -Infinity,
      this.txn.at(-1)?.at ?? -Infinity,
      this.targeted.at(-1)?.at ?? -Infinity,
    );
  }

  get alive() {
    return this.exit === undefined;
  }

  get state() {
    return this.states.at(-1)?.state;
  }

  kill9() {
    this.killedAt = Date.now();
    this.child.kill('SIGKILL');
    return this.exited;
  }

  /** Graceful stop (like SIGTERM); SIGKILL after `timeoutMs`. */
  async stop(timeoutMs = 40_000) {
    if (!this.alive) return this.exit;
    this.child.stdin.write('stop\n');
    const timer = setTimeout(() => this.child.kill('SIGKILL'), timeoutMs);
    const exit = await this.exited;
    clearTimeout(timer);
    return exit;
  }
}

/**
 * A named place in the fleet (lock mode, service and replay window fixed), holding its current
 * incarnation. The service is the engine's groupBaseName, what `to: { services }` targets.
 */
export class Slot {
  incarnations = [];
  /** Called with every new incarnation, as soon as its process is spawned. */
  onSpawn = undefined;

  constructor(name, lock, baseConfig) {
    this.name = name;
    this.lock = lock;
    this.baseConfig = baseConfig;
  }

  get service() {
    return this.baseConfig.groupBaseName;
  }

  get prefix() {
    return this.baseConfig.prefix;
  }

  /** Replay window (ms) on the `txn` topic that every incarnation starts with, if any. */
  get replayMs() {
    return this.baseConfig.replay?.txn;
  }

  get current() {
    return this.incarnations.at(-1);
  }

  spawn() {
    const inc = new Incarnation(this, this.incarnations.length, {
      ...this.baseConfig,
      // One name per process, so that describeGroups tells a process from its predecessor.
      name: `${this.name}.${this.incarnations.length}`,
      lock: this.lock,
    });
    this.incarnations.push(inc);
    this.onSpawn?.(inc);
    return inc;
  }
}
