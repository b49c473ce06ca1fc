// A real Prometheus server (Debian's `prometheus` package; .ci/run installs it) for one test:
// 127.0.0.1 on a free port, its own temporary data dir, file-based service discovery (targets
// can come and go), short scrape and evaluation intervals, and the given rules files.
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { waitFor } from '../broker/kafka.js';

/** One alert as /api/v1/alerts lists it (pending or firing; resolved ones are not listed). */
export interface PrometheusAlert {
  labels: Record<string, string>;
  annotations: Record<string, string>;
  state: 'pending' | 'firing';
  activeAt: string;
  value: string;
}

export interface PrometheusSample {
  metric: Record<string, string>;
  value: [number, string];
}

/** The alerts named `alertname` (with `label` = value, if given) that are firing. */
export function firing(alerts: PrometheusAlert[], alertname: string, label?: [string, string]) {
  return listed(alerts, alertname, label).filter((a) => a.state === 'firing');
}

/** The alerts named `alertname` (with `label` = value, if given), pending or firing. */
export function listed(alerts: PrometheusAlert[], alertname: string, label?: [string, string]) {
  return alerts.filter(
    (a) => a.labels.alertname === alertname && (!label || a.labels[label[0]] === label[1]),
  );
}

/** The alerts named `alertname` whose labels include `labels`, pending or firing. */
export function matching(
  alerts: PrometheusAlert[],
  alertname: string,
  labels: Record<string, string> = {},
): PrometheusAlert[] {
  return alerts.filter(
    (a) =>
      a.labels.alertname === alertname &&
      Object.entries(labels).every(([k, v]) => a.labels[k] === v),
  );
}

/** An alert's identity: its name and labels. */
function alertKey(alert: PrometheusAlert): string {
  return JSON.stringify(Object.entries(alert.labels).sort(([a], [b]) => a.localeCompare(b)));
}

async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  await new Promise((resolve) => server.close(resolve));
  return port;
}

export class Prometheus {
  private output = '';
  /** The last answer of /api/v1/alerts, shared by callers polling at once. */
  private latest: { at: number; alerts: PrometheusAlert[] } | undefined;
  private polling: Promise<PrometheusAlert[]> | undefined;
  private watchTimer: NodeJS.Timeout | undefined;
  /** Every alert seen firing since the start, by identity (see watch()). */
  private readonly seenFiring = new Map<string, PrometheusAlert>();
  /** The alerts firing at the last poll, by identity, and since when they were seen firing. */
  private readonly firingSince = new Map<string, number>();

  private constructor(
    readonly url: string,
    private readonly dir: string,
    private readonly child: ChildProcess,
  ) {
    child.stdout!.setEncoding('utf8').on('data', (c: string) => this.keep(c));
    child.stderr!.setEncoding('utf8').on('data', (c: string) => this.keep(c));
  }

  /**
   * Starts Prometheus with `rules` (file name → YAML text) and no targets yet; it evaluates every
   * `intervalSeconds` and scrapes every `scrapeSeconds` (default the same).
   */
  static async start(
    rules: Record<string, string>,
    {
      intervalSeconds = 1,
      scrapeSeconds = intervalSeconds,
      job = 'broadcast',
    }: { intervalSeconds?: number; scrapeSeconds?: number; job?: string } = {},
  ): Promise<Prometheus> {
    const dir = mkdtempSync(join(tmpdir(), 'prometheus-'));
    for (const [name, text] of Object.entries(rules)) writeFileSync(join(dir, name), text);
    writeFileSync(join(dir, 'targets.json'), '[]');
    writeFileSync(
      join(dir, 'prometheus.yml'),
      [
        'global:',
        `  scrape_interval: ${scrapeSeconds}s`,
        `  scrape_timeout: ${Math.round(scrapeSeconds * 800)}ms`,
        `  evaluation_interval: ${intervalSeconds}s`,
        'rule_files:',
        ...Object.keys(rules).map((name) => `  - ${join(dir, name)}`),
        'scrape_configs:',
        `  - job_name: ${job}`,
        '    file_sd_configs:',
        `      - files: [${join(dir, 'targets.json')}]`,
        `        refresh_interval: ${intervalSeconds}s`,
        '',
      ].join('\n'),
    );
    const port = await freePort();
    const child = spawn(
      'prometheus',
      [
        `--config.file=${join(dir, 'prometheus.yml')}`,
        `--storage.tsdb.path=${join(dir, 'data')}`,
        `--web.listen-address=127.0.0.1:${port}`,
        '--log.level=warn',
      ],
      { stdio: ['ignore', 'pipe', 'pipe'] },
    );
    const prometheus = new Prometheus(`http://127.0.0.1:${port}`, dir, child);
    await waitFor(
      async () => {
        if (child.exitCode !== null) throw new Error(`prometheus exited: ${prometheus.output}`);
        return (await fetch(`${prometheus.url}/-/ready`)).ok;
      },
      { timeoutMs: 30_000, intervalMs: 200, message: 'Prometheus /-/ready' },
    );
    return prometheus;
  }

  /** Replaces the scrape targets (host:port); written atomically, read on the next refresh. */
  setTargets(targets: string[]): void {
    const file = join(this.dir, 'targets.json');
    writeFileSync(`${file}.tmp`, JSON.stringify([{ targets }]));
    renameSync(`${file}.tmp`, file);
  }

  /** An instant query; throws on a Prometheus error. */
  async query(expr: string): Promise<PrometheusSample[]> {
    const response = await fetch(`${this.url}/api/v1/query?query=${encodeURIComponent(expr)}`);
    const body = (await response.json()) as {
      status: string;
      error?: string;
      data: { resultType: string; result: PrometheusSample[] | [number, string] };
    };
    if (body.status !== 'success') throw new Error(`${expr}: ${body.error}`);
    const { resultType, result } = body.data;
    if (resultType === 'scalar') return [{ metric: {}, value: result as [number, string] }];
    return result as PrometheusSample[];
  }

  /** The alerts pending or firing now (one request per 200 ms, whoever asks). */
  async alerts(): Promise<PrometheusAlert[]> {
    if (this.latest && Date.now() - this.latest.at < 200) return this.latest.alerts;
    this.polling ??= (async () => {
      try {
        const response = await fetch(`${this.url}/api/v1/alerts`);
        const body = (await response.json()) as { data: { alerts: PrometheusAlert[] } };
        const alerts = body.data.alerts;
        const at = Date.now();
        this.latest = { at, alerts };
        const firing = new Set<string>();
        for (const alert of alerts.filter((a) => a.state === 'firing')) {
          const key = alertKey(alert);
          firing.add(key);
          this.seenFiring.set(key, alert);
          if (!this.firingSince.has(key)) this.firingSince.set(key, at);
        }
        for (const key of this.firingSince.keys())
          if (!firing.has(key)) this.firingSince.delete(key);
        return alerts;
      } finally {
        this.polling = undefined;
      }
    })();
    return this.polling;
  }

  /**
   * Polls the alerts every `intervalMs` until stop(), so that seenFiring holds every alert that
   * fired, also between the checks of a test (an alert that must never fire).
   */
  watch(intervalMs = 500): void {
    this.watchTimer ??= setInterval(() => void this.alerts().catch(() => undefined), intervalMs);
  }

  /** The alerts named `alertname` seen firing since watch() (with these labels, if given). */
  everFiring(alertname: string, labels: Record<string, string> = {}): PrometheusAlert[] {
    return matching([...this.seenFiring.values()], alertname, labels);
  }

  /** Since when this alert (by its labels) has been seen firing without a break, if it is. */
  firstFiring(alert: PrometheusAlert): number | undefined {
    return this.firingSince.get(alertKey(alert));
  }

  /**
   * Polls /api/v1/alerts until `done` holds and returns the ms from `since`; at the deadline,
   * throws with the alerts it last saw.
   */
  async alertsUntil(
    done: (alerts: PrometheusAlert[]) => boolean,
    since: number,
    message: string,
    timeoutMs = 60_000,
  ): Promise<number> {
    let last: PrometheusAlert[] = [];
    try {
      await waitFor(async () => done((last = await this.alerts())), {
        timeoutMs,
        intervalMs: 200,
        message,
      });
    } catch (error) {
      const seen = last.map((a) => `${JSON.stringify(a.labels)} ${a.state}`).join('\n  ');
      throw new Error(`${(error as Error).message}\nlast alerts:\n  ${seen}`);
    }
    return Date.now() - since;
  }

  /** The last lines Prometheus logged, for failure messages. */
  diagnostics(): string {
    return `--- prometheus ${this.url} ---\n${this.output.slice(-3_000)}`;
  }

  async stop(): Promise<void> {
    clearInterval(this.watchTimer);
    if (this.child.exitCode === null && this.child.signalCode === null) {
      const exited = new Promise((resolve) => this.child.once('exit', resolve));
      this.child.kill('SIGTERM');
      const timer = setTimeout(() => this.child.kill('SIGKILL'), 10_000);
      await exited;
      clearTimeout(timer);
    }
    rmSync(this.dir, { recursive: true, force: true });
  }

  private keep(chunk: string): void {
    this.output = (this.output + chunk).slice(-8_000);
  }
}
