// Runs many seeded seam trials per moment against one proxied broker and sums them up.
import type { Admin, Producer } from 'kafkajs';
import { connectedAdmin, connectedProducer } from './faults.js';
import type { ProxiedBroker } from './proxied-broker.mjs';
import { runTrial, violation, type TrialResult, type TrialSpec } from './seams.js';

/** Seeds for `count` trials: env SEAMS_SEED replays one trial, else a base from the clock. */
export function trialSeeds(count: number): number[] {
  const fixed = process.env.SEAMS_SEED;
  if (fixed) return [Number(fixed)];
  const base = Number(process.env.SEAMS_BASE_SEED ?? Date.now() % 1_000_000_000);
  return Array.from(
    { length: Number(process.env.SEAMS_TRIALS ?? count) },
    (_, i) => base + i * 7919,
  );
}

export async function seamClients(
  broker: ProxiedBroker,
): Promise<{ admin: Admin; producer: Producer }> {
  return {
    admin: await connectedAdmin(broker.direct),
    producer: await connectedProducer(broker.direct),
  };
}

export interface SeamMoment {
  name: string;
  lock?: TrialSpec['lock'];
  arm: TrialSpec['arm'];
}

/**
 * Runs `trials` seeded trials of each moment against one proxied broker and returns every
 * result; prints one line per trial, and the seed and logs of every violation.
 */
export async function runMoments(
  broker: ProxiedBroker,
  moments: readonly SeamMoment[],
  trials: number,
): Promise<{ results: TrialResult[]; violations: string[] }> {
  const { admin, producer } = await seamClients(broker);
  const results: TrialResult[] = [];
  const violations: string[] = [];
  try {
    for (const moment of moments) {
      for (const seed of trialSeeds(trials)) {
        const r = await runTrial({
          broker,
          admin,
          producer,
          moment: moment.name,
          seed,
          lock: moment.lock ?? 'none',
          arm: moment.arm,
        });
        results.push(r);
        const bad = violation(r);
        console.log(
          `SEAM ${r.moment} seed=${r.seed} fault=${r.fault} fired=${r.fired} sent=${r.lastSent + 1} ` +
            `missing=${r.missing.length} replayed=${r.replayed} duplicates=${r.duplicates} stopMs=${r.stopMs}` +
            (bad ? ` VIOLATION ${bad}` : ''),
        );
        if (bad) {
          violations.push(`${r.moment} seed=${r.seed} (${r.fault}): ${bad}`);
          console.log(
            `--- logs of ${r.moment} seed=${r.seed} (replay: SEAMS_SEED=${r.seed})\n${r.logs}`,
          );
        }
      }
    }
  } finally {
    await producer.disconnect();
    await admin.disconnect();
  }
  return { results, violations };
}

/** One line of figures per moment, for docs/RELIABILITY.md. */
export function summarize(results: readonly TrialResult[]): Record<string, unknown> {
  const byMoment = new Map<string, TrialResult[]>();
  for (const r of results) byMoment.set(r.moment, [...(byMoment.get(r.moment) ?? []), r]);
  return Object.fromEntries(
    [...byMoment].map(([moment, rs]) => [
      moment,
      {
        trials: rs.length,
        fired: rs.filter((r) => r.fired).length,
        violations: rs.filter((r) => violation(r)).length,
        missing: rs.reduce((n, r) => n + r.missing.length, 0),
        replayed: rs.reduce((n, r) => n + r.replayed, 0),
        maxDuplicates: Math.max(0, ...rs.map((r) => r.duplicates)),
      },
    ]),
  );
}
