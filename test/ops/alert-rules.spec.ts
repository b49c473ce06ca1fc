/**
 * The shipped Prometheus rules (libs/broadcast/ops/prometheus/broadcast.rules.yml) checked and
 * unit-tested by the real promtool (Debian's prometheus package, which .ci/run installs):
 * `promtool check rules`, then `promtool test rules` on test/ops/broadcast.rules.test.yml, which
 * has, for every alert, a case where it fires and one where it does not. The series the rules
 * read are the ones the library's instruments export (names taken from the telemetry sources).
 * Every alert links its section of docs/OPERATIONS.md as `runbook_url`, and that page counts and
 * describes exactly the alerts of the file.
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { REPO_ROOT } from '../../scripts/kafka-cluster.mjs';

const RULES = join(REPO_ROOT, 'libs/broadcast/ops/prometheus/broadcast.rules.yml');
const RULE_TESTS = join(REPO_ROOT, 'test/ops/broadcast.rules.test.yml');
const OPERATIONS = join(REPO_ROOT, 'libs/broadcast/docs/OPERATIONS.md');
/** Where the package's OPERATIONS.md is published (the repository of package.json). */
const RUNBOOKS =
  'https://github.com/nestjs-kafka-broadcast/nestjs-kafka-broadcast/blob/main/libs/broadcast/docs/OPERATIONS.md';
const TELEMETRY = ['broadcast-metrics.ts', 'fleet-metrics.ts'].map((f) =>
  join(REPO_ROOT, 'libs/broadcast/src/telemetry', f),
);

function promtool(...args: string[]): { status: number | null; output: string } {
  const run = spawnSync('promtool', args, { cwd: REPO_ROOT, encoding: 'utf8' });
  if (run.error)
    throw new Error(`promtool is not installed (apt-get install prometheus): ${run.error.message}`);
  return { status: run.status, output: `${run.stdout}${run.stderr}` };
}

/** Every alert name of the rules file. */
function alertNames(rules: string): string[] {
  return [...rules.matchAll(/^\s+- alert: (\w+)$/gm)].map((m) => m[1]!);
}

/** The series names Prometheus gets from the instruments: dots to `_`, counters with `_total`. */
function exportedSeries(): Set<string> {
  const names = new Set<string>();
  for (const file of TELEMETRY) {
    const text = readFileSync(file, 'utf8');
    for (const m of text.matchAll(/(\w+)\(\s*'(broadcast\.[\w.]+)'/g)) {
      const [, kind, name] = m as unknown as [string, string, string];
      const base = name.replaceAll('.', '_');
      if (/counter/i.test(kind)) names.add(`${base}_total`);
      else if (kind === 'histogram')
        for (const suffix of ['_bucket', '_sum', '_count']) names.add(base + suffix);
      else names.add(base);
    }
  }
  return names;
}

describe('Prometheus alert rules shipped in the package', () => {
  const rules = readFileSync(RULES, 'utf8');
  const alerts = alertNames(rules);

  it('pass promtool check rules', () => {
    const { status, output } = promtool('check', 'rules', RULES);
    expect(output).toContain('SUCCESS');
    expect(status, output).toBe(0);
  });

  it('cover what the issue asks for', () => {
    expect(alerts).toEqual(
      expect.arrayContaining([
        'BroadcastInstanceStale',
        'BroadcastInstanceNotReady',
        'BroadcastInstanceDown',
        'BroadcastReaderProblem',
        'BroadcastPoolExhausted',
        'BroadcastPoolNearlyExhausted',
        'BroadcastGroupMoves',
        'BroadcastReaderRecovering',
        'BroadcastHandlerFailing',
        'BroadcastHandlerRetriesExhausted',
        'BroadcastDeadLetters',
        'BroadcastDeadLetterFailed',
        'BroadcastInternalErrors',
        'BroadcastRecordsPassedOver',
        'BroadcastRewound',
      ]),
    );
  });

  it('read only series the library exports (or the rules record, or up)', () => {
    const exported = exportedSeries();
    expect(exported).toContain('broadcast_staleness');
    expect(exported).toContain('broadcast_messages_failed_total');
    const recorded = new Set([...rules.matchAll(/- record: ([\w:]+)/g)].map((m) => m[1]!));
    const expressions = [...rules.matchAll(/expr: (>-\n(?:\s{10}.*\n)+|.*\n)/g)]
      .map((m) => m[1]!)
      .join('\n');
    const used = new Set(expressions.match(/\bbroadcast_[a-z_]+\b/g));
    expect(used.size).toBeGreaterThan(15);
    // Label names (broadcast_state="...", by (broadcast_pool)) are not series.
    const labels = new Set([
      'broadcast_state',
      'broadcast_pool',
      'broadcast_instance',
      'broadcast_handler',
      'broadcast_waiting_for',
    ]);
    for (const name of used) if (!labels.has(name)) expect(exported, name).toContain(name);
    for (const name of expressions.match(/\bbroadcast:[\w:]+/g) ?? [])
      if (!name.startsWith('broadcast:threshold:')) expect(recorded, name).toContain(name);
  });

  it('every alert links its runbook as runbook_url, and OPERATIONS.md counts and describes exactly these alerts', () => {
    const blocks = rules.split(/^\s+- alert: /m).slice(1);
    expect(blocks).toHaveLength(alerts.length);
    for (const [i, block] of blocks.entries()) {
      const anchor = alerts[i]!.toLowerCase();
      expect(block, alerts[i]).toContain(`runbook_url: ${RUNBOOKS}#${anchor}\n`);
      expect(block, alerts[i]).not.toMatch(/^\s+runbook:/m);
    }
    const doc = readFileSync(OPERATIONS, 'utf8');
    expect(doc).toContain(`Prometheus alert rules (${alerts.length} alerts)`);
    const sections = [...doc.matchAll(/^### (Broadcast\w+)$/gm)].map((m) => m[1]);
    expect(sections).toEqual(alerts);
    const published = JSON.parse(
      readFileSync(join(REPO_ROOT, 'libs/broadcast/package.json'), 'utf8'),
    ) as { repository: { url: string } };
    expect(RUNBOOKS).toContain(published.repository.url.replace(/^git\+|\.git$/g, ''));
  });

  it('every alert has a firing and a not-firing promtool case, and they pass', () => {
    const tests = readFileSync(RULE_TESTS, 'utf8');
    const cases = [...tests.matchAll(/alertname: (\w+)\n\s+exp_alerts:( \[\])?/g)].map((m) => ({
      alert: m[1]!,
      fires: m[2] === undefined,
    }));
    for (const alert of alerts) {
      expect(cases, `${alert} firing`).toContainEqual({ alert, fires: true });
      expect(cases, `${alert} not firing`).toContainEqual({ alert, fires: false });
    }
    const { status, output } = promtool('test', 'rules', RULE_TESTS);
    expect(output).toContain('SUCCESS');
    expect(status, output).toBe(0);
  });

  it('a rule that reads the wrong series fails its promtool case (the cases can fail)', () => {
    // The rules with one metric name misspelt, tested by the same cases from a temporary copy.
    const dir = mkdtempSync(join(tmpdir(), 'broadcast-rules-'));
    try {
      const broken = join(dir, 'broadcast.rules.yml');
      const text = rules.replace(
        'expr: broadcast_pool_exhausted == 1',
        'expr: broadcast_pool_exhaustd == 1',
      );
      expect(text).not.toBe(rules);
      writeFileSync(broken, text);
      const testCopy = join(dir, 'tests.yml');
      const tests = readFileSync(RULE_TESTS, 'utf8');
      writeFileSync(testCopy, tests.replace(/^ {2}- \.\.\/.*rules\.yml$/m, `  - ${broken}`));
      const { status, output } = promtool('test', 'rules', testCopy);
      expect(status).not.toBe(0);
      expect(output).toContain('BroadcastPoolExhausted');
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
