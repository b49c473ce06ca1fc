// The frame of every faults-seams-*.spec.ts: one broker for the file (a private proxied one, or the
// run's shared one), and per client adapter one test that runs seeded trials of each of the file's
// moments (runMoments) and sums them up.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { kafkaClients } from '../broker/kafka-clients.js';
import { kafkaBrokers } from '../broker/kafka.js';
import { startProxiedBroker, type ProxiedBroker } from '../broker/proxied-broker.mjs';
import { runMoments, summarize, type SeamMoment } from './seam-moments.js';
import type { SeamBroker } from './seams.js';

/**
 * Seeded trials per moment (SEAMS_TRIALS=<n> runs more, SEAMS_SEED=<seed> replays one). Each run
 * draws new seeds (the fault kind, the frame), so runs add up; 3 a run, from 5, for the suite's
 * time budget (the three seam files were about 480 s of 3,600 s of tests).
 */
export const SEAM_TRIALS = 3;

/**
 * Declares a seam spec whose moments break Kafka frames: a private proxied broker is started
 * before the file's tests and stopped after (one for both adapters: starting one takes tens of
 * seconds on a loaded machine); per client adapter, SEAM_TRIALS trials of each moment that
 * `moments(broker)` lists. The test fails when no fault fired at all or any trial broke a rule; a
 * SEAMS-SUMMARY line gives the figures.
 */
export function describeSeams(
  title: string,
  /** What the trials are counted per in the test's name. */
  per: 'moment' | 'database',
  moments: (broker: ProxiedBroker) => SeamMoment[],
): void {
  let proxied: ProxiedBroker | undefined;
  describeTrials(title, per, {
    start: async () => {
      proxied = await startProxiedBroker();
      return { broker: proxied, moments: moments(proxied) };
    },
    stop: async () => proxied?.stop(),
  });
}

/**
 * Declares a seam spec whose moments break no Kafka frame (e.g. the lock's database connection):
 * the run's shared broker serves, and every trial's topics and groups are deleted at the end.
 */
export function describeSharedBrokerSeams(
  title: string,
  per: 'moment' | 'database',
  moments: SeamMoment[],
): void {
  describeTrials(title, per, {
    start: async () => ({ broker: { direct: kafkaBrokers(), proxied: kafkaBrokers() }, moments }),
    shared: true,
  });
}

function describeTrials(
  title: string,
  per: 'moment' | 'database',
  setup: {
    start: () => Promise<{ broker: SeamBroker; moments: SeamMoment[] }>;
    stop?: () => Promise<unknown>;
    shared?: boolean;
  },
): void {
  describe(title, () => {
    let trials: { broker: SeamBroker; moments: SeamMoment[] };

    beforeAll(async () => {
      trials = await setup.start();
    });

    afterAll(async () => {
      await setup.stop?.();
    });

    it.each(kafkaClients())(
      `%s client: keeps every record published after ready, without replay (${SEAM_TRIALS} trials per ${per})`,
      async (client) => {
        const { results, violations } = await runMoments(
          trials.broker,
          trials.moments,
          SEAM_TRIALS,
          client,
          setup.shared,
        );
        console.log(`SEAMS-SUMMARY ${client} ${JSON.stringify(summarize(results))}`);
        expect(results.some((r) => r.fired)).toBe(true);
        expect(violations).toEqual([]);
      },
      600_000,
    );
  });
}
