// Spawns broadcast instances as child Node processes (test/support/faults/instance.mjs), one engine
// each, and gives tests what they need to crash, stop and observe them. Nothing is mocked: each
// child has its own kafkajs clients and its own DataSource (its own database sessions).
//
//   const fleet = new Instances();                    afterEach(() => fleet.killAll());
//   const a = fleet.spawn({ name: 'a', brokers, prefix, lock: 'postgres', topics: ['news'] });
//   const { groupId } = await a.ready();
//   await a.kill9();                                   // a crash: no LeaveGroup, no unlock
//   await waitFor(() => b.payloads('news').length === 3);
import { spawn, type ChildProcess } from 'node:child_process';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { REPO_ROOT } from '../../../scripts/kafka-cluster.mjs';

const RUNNER = join(dirname(fileURLToPath(import.meta.url)), 'instance.mjs');

export type LockKind = 'postgres' | 'mariadb' | 'none';

/** What instance.mjs reads (see its header). */
export interface InstanceConfig {
  name: string;
  brokers: string[];
  prefix: string;
  lock: LockKind;
  /** Logical topics; a handler that reports every message is registered for each. */
  topics: string[];
  consumer?: {
    sessionTimeoutMs?: number;
    heartbeatIntervalMs?: number;
    maxWaitTimeMs?: number;
    metadataMaxAgeMs?: number;
  };
  heartbeat?: { intervalMs?: number; jitter?: number } | false;
  maxStalenessMs?: number;
  lockCheckIntervalMs?: number;
  handlerTimeoutMs?: number;
  startupTimeoutMs?: number;
  maxGroups?: number;
  topicOptions?: { numPartitions?: number; replicationFactor?: number };
  /** Extra kafkajs client options (retry, connectionTimeout, requestTimeout, ...). */
  kafka?: Record<string, unknown>;
  /** Load everything, then wait for the 'start' command. */
  deferStart?: boolean;
  statePollMs?: number;
  debug?: boolean;
  /** This process's clock is off by this much (negative: behind), record timestamps included. */
  clockOffsetMs?: number;
  /** The engine's groupBaseName: its service, for targeting. */
  groupBaseName?: string;
  /** The engine's replay option: a window in ms per logical topic. */
  replay?: Record<string, number>;
  /** Node options before the runner, e.g. ['--import', <preload>] (metrics-preload.mjs). */
  nodeArgs?: string[];
  /**
   * The child script (default: instance.mjs), e.g. outage-child.mjs: a worker whose only work is
   * its engine. It reads this config from env BROADCAST_INSTANCE_CONFIG as instance.mjs does.
   */
  runner?: string;
  /** test/support/nest/outage-nest-child.mjs: the Nest app to build (see its header). */
  nestApp?: 'context' | 'transport';
}

export interface InstanceEvent {
  event: string;
  at: number;
  [key: string]: unknown;
}

export interface ReadyEvent extends InstanceEvent {
  groupId: string;
  lockId: number;
  lockMode: string;
  startMs: number;
}

export interface StatusEvent extends InstanceEvent {
  state: 'starting' | 'ready' | 'recovering' | 'stopped';
  groupId: string | undefined;
  lockId: number | undefined;
  lockMode: string;
  lastLatencyMs: number | undefined;
  received: number;
  heartbeats: number;
  failed: number;
  skipped: number;
  healthy: boolean;
  maxStalenessMs: number;
  /** Heartbeats this instance sent. */
  heartbeatsSent: number;
}

export interface MessageEvent extends InstanceEvent {
  topic: string;
  payload: unknown;
  partition: number;
  offset: string;
  key: string | null;
}

export interface ExitInfo {
  code: number | null;
  signal: NodeJS.Signals | null;
  at: number;
}

interface Waiter {
  match: (e: InstanceEvent) => boolean;
  resolve: (e: InstanceEvent) => void;
}

/** One child process running one BroadcastEngine. */
export class Instance {
  readonly events: InstanceEvent[] = [];
  readonly spawnedAt = Date.now();
  readonly exited: Promise<ExitInfo>;
  exit: ExitInfo | undefined;
  private readonly child: ChildProcess;
  private readonly waiters = new Set<Waiter>();
  private readonly exitWaiters = new Set<(exit: ExitInfo) => void>();
  private stderrTail = '';
  private statusSeq = 0;

  constructor(readonly config: InstanceConfig) {
    this.child = spawn(process.execPath, [...(config.nodeArgs ?? []), config.runner ?? RUNNER], {
      cwd: REPO_ROOT,
      env: {
        ...process.env,
        BROADCAST_INSTANCE_CONFIG: JSON.stringify(config),
      },
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    this.child.stdin!.on('error', () => undefined); // writes to a dead child
    let pending = '';
    this.child.stdout!.setEncoding('utf8').on('data', (chunk: string) => {
      pending += chunk;
      for (let i = pending.indexOf('\n'); i >= 0; i = pending.indexOf('\n')) {
        this.line(pending.slice(0, i));
        pending = pending.slice(i + 1);
      }
    });
    this.child.stderr!.setEncoding('utf8').on('data', (chunk: string) => {
      this.stderrTail = (this.stderrTail + chunk).slice(-8_000);
    });
    this.exited = new Promise((resolve) => {
      this.child.once('exit', (code, signal) => {
        this.exit = { code, signal, at: Date.now() };
        for (const waiter of this.exitWaiters) waiter(this.exit);
        resolve(this.exit);
      });
    });
  }

  get name(): string {
    return this.config.name;
  }

  get pid(): number | undefined {
    return this.child.pid;
  }

  get alive(): boolean {
    return this.exit === undefined;
  }

  /** Every received broadcast of `topic`, in arrival order. */
  messages(topic?: string): MessageEvent[] {
    return this.events.filter(
      (e): e is MessageEvent => e.event === 'message' && (topic === undefined || e.topic === topic),
    );
  }

  payloads(topic: string): unknown[] {
    return this.messages(topic).map((m) => m.payload);
  }

  logs(level?: string): string[] {
    return this.events
      .filter((e) => e.event === 'log' && (level === undefined || e.level === level))
      .map((e) => String(e.message));
  }

  /** The latest 'state' event (state, groupId, lockId as the child last saw them). */
  get lastState(): InstanceEvent | undefined {
    for (let i = this.events.length - 1; i >= 0; i--)
      if (this.events[i]!.event === 'state') return this.events[i];
    return undefined;
  }

  send(command: string): void {
    if (this.alive) this.child.stdin!.write(`${command}\n`);
  }

  /**
   * Resolves with the first event (already received, from index `since` on, or still to come)
   * that matches; rejects at the deadline or when the process exits first.
   */
  waitFor<E extends InstanceEvent = InstanceEvent>(
    match: (e: InstanceEvent) => boolean,
    {
      timeoutMs = 30_000,
      since = 0,
      message = 'event',
    }: { timeoutMs?: number; since?: number; message?: string } = {},
  ): Promise<E> {
    const seen = this.events.slice(since).find(match);
    if (seen) return Promise.resolve(seen as E);
    return new Promise<E>((resolve, reject) => {
      const cleanup = () => {
        clearTimeout(timer);
        this.waiters.delete(waiter);
        this.exitWaiters.delete(onExit);
      };
      const waiter: Waiter = {
        match,
        resolve: (e) => {
          cleanup();
          resolve(e as E);
        },
      };
      const onExit = (exit: ExitInfo) => {
        cleanup();
        reject(
          new Error(
            `${this.name} exited (code ${exit.code}, signal ${exit.signal}) while waiting for ${message}\n${this.diagnostics()}`,
          ),
        );
      };
      const timer = setTimeout(() => {
        cleanup();
        reject(
          new Error(`${this.name}: no ${message} within ${timeoutMs} ms\n${this.diagnostics()}`),
        );
      }, timeoutMs);
      if (this.exit) return onExit(this.exit);
      this.waiters.add(waiter);
      this.exitWaiters.add(onExit);
    });
  }

  /** The first 'ready' event: start() resolved. */
  ready(timeoutMs = 60_000): Promise<ReadyEvent> {
    return this.waitFor<ReadyEvent>((e) => e.event === 'ready' || e.event === 'failed', {
      timeoutMs,
      message: "'ready'",
    }).then((e) => {
      if (e.event === 'failed')
        throw new Error(
          `${this.name} failed to start: ${String(e.message)}\n${this.diagnostics()}`,
        );
      return e;
    });
  }

  /** Asks for one status line and waits for it. */
  async status(timeoutMs = 10_000): Promise<StatusEvent> {
    const id = `${this.name}-${++this.statusSeq}`;
    const since = this.events.length;
    this.send(`status ${id}`);
    return this.waitFor<StatusEvent>((e) => e.event === 'status' && e.id === id, {
      timeoutMs,
      since,
      message: `status ${id}`,
    });
  }

  /** Freezes the process (SIGSTOP): no timer fires, no socket is read, as in a paused VM. */
  freeze(): void {
    if (this.alive) this.child.kill('SIGSTOP');
  }

  /** Lets a frozen process run again (SIGCONT). */
  thaw(): void {
    if (this.alive) this.child.kill('SIGCONT');
  }

  /** A crash: SIGKILL, resolves once the process is gone. No LeaveGroup, no unlock. */
  async kill9(): Promise<ExitInfo> {
    if (this.alive) this.child.kill('SIGKILL');
    return this.exited;
  }

  /** A graceful stop: SIGTERM, resolves with the exit once the process is gone. */
  async terminate(timeoutMs = 40_000): Promise<ExitInfo> {
    if (this.alive) this.child.kill('SIGTERM');
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<'timeout'>(
      (resolve) => (timer = setTimeout(resolve, timeoutMs, 'timeout')),
    );
    const result = await Promise.race([this.exited, timeout]);
    clearTimeout(timer);
    if (result === 'timeout') {
      await this.kill9();
      throw new Error(
        `${this.name} did not exit within ${timeoutMs} ms of SIGTERM\n${this.diagnostics()}`,
      );
    }
    return result;
  }

  /** The last log lines and stderr, for failure messages. */
  diagnostics(lines = 30): string {
    const log = this.events
      .filter((e) => e.event !== 'message' && e.event !== 'status')
      .slice(-lines)
      .map(
        (e) => `  ${new Date(e.at).toISOString().slice(11, 23)} ${JSON.stringify(e).slice(0, 400)}`,
      )
      .join('\n');
    const stderr = this.stderrTail.trim()
      ? `\n  stderr: ${this.stderrTail.trim().slice(-2_000)}`
      : '';
    return `--- ${this.name} (pid ${this.pid}) ---\n${log}${stderr}`;
  }

  private line(text: string): void {
    let event: InstanceEvent;
    try {
      event = JSON.parse(text) as InstanceEvent;
    } catch {
      this.stderrTail = (this.stderrTail + `[stdout] ${text}\n`).slice(-8_000);
      return;
    }
    if (typeof event !== 'object' || event === null || typeof event.event !== 'string') return;
    this.events.push(event);
    for (const waiter of this.waiters) if (waiter.match(event)) waiter.resolve(event);
  }
}

/** A set of instances that is always cleaned up: `killAll()` in afterEach / afterAll. */
export class Instances {
  readonly all: Instance[] = [];

  spawn(config: InstanceConfig): Instance {
    const instance = new Instance(config);
    this.all.push(instance);
    return instance;
  }

  get alive(): Instance[] {
    return this.all.filter((i) => i.alive);
  }

  /** SIGTERM every live instance (graceful), SIGKILL those that do not exit in time. */
  async stopAll(timeoutMs = 40_000): Promise<ExitInfo[]> {
    return Promise.all(this.alive.map((i) => i.terminate(timeoutMs).catch(() => i.exited)));
  }

  /** SIGKILL every live instance and waits until each is gone. */
  async killAll(): Promise<void> {
    await Promise.all(this.alive.map((i) => i.kill9()));
  }

  /** Diagnostics of every instance, for failure messages. */
  diagnostics(): string {
    return this.all.map((i) => i.diagnostics()).join('\n');
  }
}
