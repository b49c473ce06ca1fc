// The soak's engines: one child process per incarnation (test/support/instance.mjs, which
// imports the BUILT library), restarted in the same slot after a kill. Each incarnation
// records when it became ready and every record it handed to its handlers.
import { spawn } from 'node:child_process';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const RUNNER = join(dirname(fileURLToPath(import.meta.url)), '../../test/support/instance.mjs');

export class Incarnation {
  events = 0;
  readyAt = undefined;
  failed = undefined;
  /** { seq, offset, at } per delivered record, in order */
  deliveries = [];
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
      for (let i = pending.indexOf('\n'); i >= 0; i = pending.indexOf('\n')) {
        this.#line(pending.slice(0, i));
        pending = pending.slice(i + 1);
      }
    });
    this.child.stderr.on('data', (chunk) => this.errors.push(String(chunk).slice(0, 500)));
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
      this.states.push({ state: e.state, groupId: e.groupId, at: e.at });
    else if (e.event === 'message')
      this.deliveries.push({ seq: e.payload?.seq, offset: e.offset, at: e.at });
    else if (e.event === 'log' && e.level === 'error')
      this.errors.push(String(e.message).slice(0, 300));
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

/** A named place in the fleet (lock mode fixed), holding its current incarnation. */
export class Slot {
  incarnations = [];

  constructor(name, lock, baseConfig) {
    this.name = name;
    this.lock = lock;
    this.baseConfig = baseConfig;
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
    return inc;
  }
}
