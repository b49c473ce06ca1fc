// Runs many seeded seam trials per moment against one proxied broker and sums them up.
import type { Admin, Producer } from 'kafkajs';
import { connectedAdmin, connectedProducer, deletePrefix } from './faults.js';
import type { BroadcastKafkaClient } from '../broker/kafka-clients.js';
import { runTrial, violation, type SeamBroker, type TrialResult, type TrialSpec } from './seams.js';

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
  broker: SeamBroker,
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
  /**
   * The adapters that send the frame this moment breaks (all when omitted). Any other adapter
   * runs one trial, which must not fire: it shows that the adapter never sends that frame.
   */
  sentBy?: readonly BroadcastKafkaClient[];
}

/**
 * Runs `trials` seeded trials of each moment against one proxied broker and returns every
 * result; prints one line per trial, and the seed and logs of every violation.
 */
export async function runMoments(
  broker: SeamBroker,
  moments: readonly SeamMoment[],
  trials: number,
  client: BroadcastKafkaClient,
  /** the broker is shared: delete every trial's topics and groups at the end */
  cleanUp = false,
): Promise<{ results: TrialResult[]; violations: string[] }> {
  const { admin, producer } = await seamClients(broker);
  const results: TrialResult[] = [];
  const violations: string[] = [];
  try {
    for (const moment of moments) {
      const sends = !moment.sentBy || moment.sentBy.includes(client);
      for (const seed of trialSeeds(trials).slice(0, sends ? undefined : 1)) {
        const r = await runTrial({
          broker,
          admin,
          producer,
          moment: moment.name,
          seed,
          lock: moment.lock ?? 'none',
          client,
          arm: moment.arm,
        });
        results.push(r);
        const bad =
          violation(r) ??
          (!sends && r.fired ? `the ${client} adapter sent the frame it never sends` : undefined);
        console.log(
          `SEAM ${client} ${r.moment} seed=${r.seed} fault=${r.fault} fired=${r.fired} sent=${r.lastSent + 1} ` +
            `missing=${r.missing.length} replayed=${r.replayed} duplicates=${r.duplicates} stopMs=${r.stopMs}` +
            (bad ? ` VIOLATION ${bad}` : ''),
        );
        if (bad) {
          violations.push(`${client} ${r.moment} seed=${r.seed} (${r.fault}): ${bad}`);
          console.log(
            `--- logs of ${client} ${r.moment} seed=${r.seed} (replay: BROADCAST_KAFKA_CLIENTS=${client} SEAMS_SEED=${r.seed})\n${r.logs}`,
          );
        }
      }
    }
  } finally {
    await producer.disconnect();
    if (cleanUp) {
      for (const r of results) {
        const problems = await deletePrefix(admin, r.prefix);
        if (problems.length > 0) violations.push(`cleanup of ${r.prefix}: ${problems.join('; ')}`);
      }
    }
    await admin.disconnect();
  }
  return { results, violations };
}

/** One line of figures per moment, for libs/broadcast/docs/RELIABILITY.md. */
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
