// Real demo instances (apps/demo, built by demo-build.ts) as child processes, each serving its
// probes and /metrics through its own Nest HTTP server, as it does in production. The port is
// whatever the demo prints in its `Listening on <url>` line (PORT=0). Nothing is mocked: each
// has its own Kafka client and its own PostgreSQL pool.
//
//   const fleet = new DemoFleet(ensureDemoBuilt());
//   const a = fleet.spawn({ name: 'a', brokers, prefix, env: { BROADCAST_MAX_GROUPS: '3' } });
//   await a.listening();            // the port answers (before the group: waitForReady false)
//   await a.freeze(); a.resume();   // SIGSTOP / SIGCONT
//   await fleet.stopAll();
import { spawn, type ChildProcess } from 'node:child_process';
import { REPO_ROOT } from '../../../scripts/kafka-cluster.mjs';
import { waitFor } from '../broker/kafka.js';

/** The local PostgreSQL, for products and advisory locks. */
export const DEMO_DATABASE = 'postgres://postgres@127.0.0.1:5432/test';

export interface DemoSpec {
  /** INSTANCE_NAME: the broadcast instance id, and the label `broadcast_instance`. */
  name: string;
  brokers: string[];
  /** BROADCAST_TOPIC_PREFIX. */
  prefix: string;
  /** More environment (BROADCAST_MAX_GROUPS, KAFKA_SASL_*, DEMO_FAILURE_WEBHOOK, ...). */
  env?: Record<string, string>;
  /** Node options before main.js, e.g. ['--import', <preload>]. */
  nodeArgs?: string[];
}

/** What `GET /broadcast/status` answers (the fields the ops tests read). */
export interface DemoStatus {
  instance: string;
  state: string;
  group: string | null;
  lockId: number | null;
  waitingFor: string | null;
  poolExhausted: boolean;
  problem: string | null;
  received: number;
}

export class DemoInstance {
  readonly name: string;
  private readonly child: ChildProcess;
  private output = '';
  private urlSeen: string | undefined;
  /** When the demo printed its `Listening on` line (0 before). */
  listeningAt = 0;
  exit: { code: number | null; signal: NodeJS.Signals | null } | undefined;
  readonly exited: Promise<void>;

  constructor(
    main: string,
    readonly spec: DemoSpec,
  ) {
    this.name = spec.name;
    this.child = spawn(process.execPath, [...(spec.nodeArgs ?? []), main], {
      cwd: REPO_ROOT,
      env: {
        ...process.env,
        KAFKA_BROKERS: spec.brokers.join(','),
        PORT: '0',
        HOST: '127.0.0.1',
        INSTANCE_NAME: spec.name,
        BROADCAST_TOPIC_PREFIX: spec.prefix,
        DATABASE_URL: DEMO_DATABASE,
        ...spec.env,
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    const keep = (chunk: string) => {
      this.output = (this.output + chunk).slice(-20_000);
      if (this.urlSeen) return;
      this.urlSeen = /Listening on (http:\/\/\S+) /.exec(this.output)?.[1];
      if (this.urlSeen) this.listeningAt = Date.now();
    };
    this.child.stdout!.setEncoding('utf8').on('data', keep);
    this.child.stderr!.setEncoding('utf8').on('data', keep);
    this.exited = new Promise((resolve) =>
      this.child.once('exit', (code, signal) => {
        this.exit = { code, signal };
        resolve();
      }),
    );
  }

  get pid(): number {
    return this.child.pid!;
  }

  get alive(): boolean {
    return this.exit === undefined;
  }

  /** The HTTP address, once the demo printed it; throws before. */
  get url(): string {
    if (!this.urlSeen) throw new Error(`${this.name} is not listening yet`);
    return this.urlSeen;
  }

  /** host:port, as a Prometheus target. */
  get target(): string {
    return new URL(this.url).host;
  }

  /** Resolves once the HTTP server listens (with waitForReady false: before the group). */
  async listening(timeoutMs = 90_000): Promise<this> {
    await waitFor(
      () => {
        if (this.exit) throw new Error(`${this.name} exited (${JSON.stringify(this.exit)})`);
        return this.urlSeen;
      },
      { timeoutMs, intervalMs: 100, message: `${this.name} listening\n${this.diagnostics()}` },
    );
    return this;
  }

  /** GET a path; the status code and the parsed JSON body. */
  async get<T = unknown>(path: string): Promise<{ code: number; body: T }> {
    const response = await fetch(`${this.url}${path}`, { signal: AbortSignal.timeout(5_000) });
    return { code: response.status, body: (await response.json()) as T };
  }

  async status(): Promise<DemoStatus> {
    return (await this.get<DemoStatus>('/broadcast/status')).body;
  }

  /** Resolves once /health/ready answers 200 (the group held and a fresh heartbeat seen). */
  async ready(timeoutMs = 90_000): Promise<this> {
    await this.listening(timeoutMs);
    await waitFor(
      async () => (await this.get('/health/ready').catch(() => undefined))?.code === 200,
      {
        timeoutMs,
        intervalMs: 250,
        message: `${this.name} ready\n${this.diagnostics()}`,
      },
    );
    return this;
  }

  /** SIGSTOP: no timer fires, no socket is read, no scrape answered (a paused VM). */
  freeze(): void {
    if (this.alive) this.child.kill('SIGSTOP');
  }

  resume(): void {
    if (this.alive) this.child.kill('SIGCONT');
  }

  /** SIGTERM (the demo leaves its group and frees its lock), then SIGKILL after `graceMs`. */
  async stop(graceMs = 20_000): Promise<void> {
    if (!this.alive) return;
    this.child.kill('SIGCONT');
    this.child.kill('SIGTERM');
    const timer = setTimeout(() => this.child.kill('SIGKILL'), graceMs);
    await this.exited;
    clearTimeout(timer);
  }

  /** The last lines the demo printed. */
  diagnostics(): string {
    return `--- demo ${this.name} (pid ${this.child.pid}, exit ${JSON.stringify(this.exit)}) ---\n${this.output.slice(-4_000)}`;
  }
}

export class DemoFleet {
  readonly instances: DemoInstance[] = [];

  constructor(private readonly main: string) {}

  spawn(spec: DemoSpec): DemoInstance {
    const instance = new DemoInstance(this.main, spec);
    this.instances.push(instance);
    return instance;
  }

  get alive(): DemoInstance[] {
    return this.instances.filter((i) => i.alive);
  }

  diagnostics(): string {
    return this.instances.map((i) => i.diagnostics()).join('\n');
  }

  async stopAll(graceMs = 20_000): Promise<void> {
    await Promise.all(this.instances.map((i) => i.stop(graceMs)));
  }
}
