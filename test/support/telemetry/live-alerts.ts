// The shipped alert rules as test/ops/prometheus.spec.ts loads them into a real Prometheus, and
// the checks it makes of each alert: that it fires with the labels and annotations
// docs/OPERATIONS.md documents, that it resolves, and how long each took.
//
// The live rules are the shipped file with two mechanical changes, nothing else: every `for:`
// becomes FOR and every range window of a counter or a change count ([10m], [30m], [1h]) becomes
// WINDOW, so that an alert fires and resolves in test time. The thresholds are the shipped ones
// except where a `broadcast:threshold:<name>` series, the documented tuning mechanism, lowers
// them (THRESHOLDS). What the shipped `for:` and windows do is proven by promtool
// (test/ops/broadcast.rules.test.yml), on the unchanged file.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { REPO_ROOT } from '../../../scripts/kafka-cluster.mjs';
import { matching, type Prometheus, type PrometheusAlert } from './prometheus.js';

export const RULES_FILE = join(REPO_ROOT, 'libs/broadcast/ops/prometheus/broadcast.rules.yml');
export const FOR = '5s';
export const FOR_MS = 5_000;
export const WINDOW = '20s';

/**
 * Each change liveRules makes: `shipped` matches the shipped value (group 2) after its context
 * (group 1); `back` matches the live value after the same context.
 */
const CHANGES: { shipped: RegExp; back: RegExp; live: string }[] = [
  { shipped: /^(\s+for: )(\d+[smh])$/gm, back: new RegExp(`^(\\s+for: )${FOR}$`, 'gm'), live: FOR },
  // The range of a counter or a change count: [10m], [30m], [1h].
  {
    shipped: /(\[)(10m|30m|1h)(?=\])/g,
    back: new RegExp(`(\\[)${WINDOW}(?=\\])`, 'g'),
    live: WINDOW,
  },
];

/**
 * The shipped rules with every `for:` at FOR and every window (the range of a counter or a change
 * count) at WINDOW. Nothing else changes: putting the shipped values back gives the shipped file
 * (checked).
 */
export function liveRules(shipped = readFileSync(RULES_FILE, 'utf8')): string {
  let live = shipped;
  const originals = CHANGES.map(({ shipped: pattern, live: value }) => {
    const found: string[] = [];
    live = live.replace(pattern, (_m, head: string, original: string) => {
      found.push(original);
      return head + value;
    });
    return found;
  });
  if (originals[0]!.length < 5 || originals[1]!.length < 15)
    throw new Error('the rules have no for: or windows');
  let restored = live;
  for (let i = CHANGES.length - 1; i >= 0; i--)
    restored = restored.replace(
      CHANGES[i]!.back,
      (_m, head: string) => head + originals[i]!.shift(),
    );
  if (restored !== shipped) throw new Error('liveRules changed more than for: and windows');
  return live;
}

/**
 * Thresholds lowered through `broadcast:threshold:<name>` series: not ready for 15 s instead of
 * 2 min, and a single group move or recovery instead of more than two in the window.
 */
export const THRESHOLDS = `groups:
  - name: ops-test-thresholds
    rules:
      - record: broadcast:threshold:unready_ms
        expr: vector(15000)
      - record: broadcast:threshold:group_moves
        expr: vector(0)
      - record: broadcast:threshold:recoveries
        expr: vector(0)
`;

const INSTANCE = ['broadcast_instance', 'instance', 'job', 'severity'];
const COUNTER = INSTANCE;
/** The labels of each alert (besides alertname), as docs/OPERATIONS.md lists them. */
export const ALERT_LABELS: Record<string, string[]> = {
  BroadcastInstanceStale: INSTANCE,
  BroadcastInstanceNotReady: INSTANCE,
  BroadcastInstanceDown: ['instance', 'job', 'severity'],
  BroadcastReaderProblem: INSTANCE,
  BroadcastPoolExhausted: [...INSTANCE, 'broadcast_pool'],
  BroadcastPoolNearlyExhausted: ['broadcast_pool', 'severity'],
  BroadcastGroupMoves: INSTANCE,
  BroadcastReaderRecovering: [...INSTANCE, 'broadcast_state'],
  BroadcastHandlerFailing: [
    'broadcast_handler',
    'broadcast_instance',
    'job',
    'messaging_destination_name',
    'severity',
  ],
  BroadcastHandlerRetriesExhausted: COUNTER,
  BroadcastDeadLetters: COUNTER,
  BroadcastDeadLetterFailed: COUNTER,
  BroadcastFailureHookFailed: COUNTER,
  BroadcastInternalErrors: COUNTER,
  BroadcastRecordsPassedOver: COUNTER,
  BroadcastRewound: COUNTER,
};

/**
 * Labels the OpenTelemetry Prometheus exporter puts on every series (not the rules): they ride
 * along on the alerts whose expression keeps the series' labels.
 */
export const EXPORTER_LABELS = ['otel_scope_name'];

const RUNBOOKS =
  'https://github.com/nestjs-kafka-broadcast/nestjs-kafka-broadcast/blob/main/libs/broadcast/docs/OPERATIONS.md';

export interface Figure {
  alert: string;
  /** The labels the alert was waited for with, as JSON. */
  labels: string;
  cause: string;
  fireMs?: number;
  cure?: string;
  resolveMs?: number;
}

/** Waits for alerts to fire and resolve on a real Prometheus, and keeps how long each took. */
export class AlertChecks {
  readonly figures: Figure[] = [];

  constructor(
    private readonly prometheus: Prometheus,
    private readonly log: (line: string) => void = console.log,
  ) {}

  /**
   * Waits until `alert` fires for `labels`; checks its label names and its runbook_url;
   * records the ms from `since` (the cause). Returns the alert.
   */
  async fired(
    alert: string,
    labels: Record<string, string>,
    since: number,
    cause: string,
    timeoutMs = 90_000,
  ): Promise<PrometheusAlert> {
    let found: PrometheusAlert | undefined;
    const waited = await this.prometheus.alertsUntil(
      (alerts) =>
        (found = matching(alerts, alert, labels).find((a) => a.state === 'firing')) !== undefined,
      since,
      `${alert} ${JSON.stringify(labels)} firing (${cause})`,
      timeoutMs,
    );
    // The documented labels, and no other but the exporter's scope (see EXPORTER_LABELS).
    const names = Object.keys(found!.labels).filter(
      (k) => k !== 'alertname' && !EXPORTER_LABELS.includes(k),
    );
    if (names.sort().join() !== [...ALERT_LABELS[alert]!].sort().join())
      throw new Error(
        `${alert} has labels ${names.join(', ')}, documented: ${ALERT_LABELS[alert]}`,
      );
    const runbook = `${RUNBOOKS}#${alert.toLowerCase()}`;
    if (found!.annotations.runbook_url !== runbook)
      throw new Error(`${alert} runbook_url ${found!.annotations.runbook_url}, not ${runbook}`);
    // Seen firing earlier (the watch polls all along): the cause came before the test looked.
    const ms = Math.min(waited, (this.prometheus.firstFiring(found!) ?? Infinity) - since);
    this.figures.push({ alert, labels: JSON.stringify(labels), cause, fireMs: ms });
    this.log(`[ops] ${alert} ${JSON.stringify(labels)} fired ${ms} ms after: ${cause}`);
    return found!;
  }

  /** Waits until `alert` for `labels` is no longer listed; records the ms from `since`. */
  async resolved(
    alert: string,
    labels: Record<string, string>,
    since: number,
    cure: string,
    timeoutMs = 120_000,
  ): Promise<number> {
    const ms = await this.prometheus.alertsUntil(
      (alerts) => matching(alerts, alert, labels).length === 0,
      since,
      `${alert} ${JSON.stringify(labels)} resolved (${cure})`,
      timeoutMs,
    );
    const key = JSON.stringify(labels);
    const open = this.figures.find(
      (f) => f.alert === alert && f.labels === key && f.resolveMs === undefined,
    );
    if (open) Object.assign(open, { cure, resolveMs: ms });
    else this.figures.push({ alert, labels: key, cause: '', cure, resolveMs: ms });
    this.log(`[ops] ${alert} ${JSON.stringify(labels)} resolved ${ms} ms after: ${cure}`);
    return ms;
  }

  /** The figures as a table, one line per alert. */
  table(): string {
    return this.figures
      .map(
        (f) =>
          `${f.alert.padEnd(34)} ${f.labels.padEnd(36)} fire ${String(f.fireMs ?? '-').padStart(6)} ms (${f.cause}); resolve ${String(f.resolveMs ?? '-').padStart(6)} ms (${f.cure ?? '-'})`,
      )
      .join('\n');
  }
}
