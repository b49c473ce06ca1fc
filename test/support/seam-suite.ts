// The frame of every faults-seams-*.spec.ts: one proxied broker for the file, and one test that
// runs seeded trials of each of the file's moments (runMoments) and sums them up.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { kafkaClients } from './kafka-clients.js';
import { startProxiedBroker, type ProxiedBroker } from './proxied-broker.mjs';
import { runMoments, summarize, type SeamMoment } from './seam-moments.js';

/** Seeded trials per moment (SEAMS_TRIALS=<n> runs more, SEAMS_SEED=<seed> replays one). */
export const SEAM_TRIALS = 5;

/**
 * Declares a seam spec: starts a proxied broker before the file's tests and stops it after (one
 * broker for both client adapters: starting one takes seconds), and per adapter runs SEAM_TRIALS
 * trials of each moment that `moments(broker)` lists. The test fails when no
 * fault fired at all or any trial broke a rule; a SEAMS-SUMMARY line gives the figures.
 */
export function describeSeams(
  title: string,
  /** What the trials are counted per in the test's name. */
  per: 'moment' | 'database',
  moments: (broker: ProxiedBroker) => SeamMoment[],
): void {
  describe(title, () => {
    let broker: ProxiedBroker;

    beforeAll(async () => {
      broker = await startProxiedBroker();
    });

    afterAll(async () => {
      await broker?.stop();
    });

    it.each(kafkaClients())(
      `%s client: keeps every record published after ready, without replay (${SEAM_TRIALS} trials per ${per})`,
      async (client) => {
        const { results, violations } = await runMoments(
          broker,
          moments(broker),
          SEAM_TRIALS,
          client,
        );
        console.log(`SEAMS-SUMMARY ${client} ${JSON.stringify(summarize(results))}`);
        expect(results.some((r) => r.fired)).toBe(true);
        expect(violations).toEqual([]);
      },
      600_000,
    );
  });
}
