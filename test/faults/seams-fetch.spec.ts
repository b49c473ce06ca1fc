// Faults at the fetch seams: the proxy between the engine and the broker resets, stalls or drops
// the first Fetch after a join (where the engine's seek lands), cuts a Fetch response in the
// middle of a batch of records, and would break OffsetCommit (which kafkajs sent for a seek
// while auto-commit was on; neither adapter sends it now). Sequence-numbered records are published throughout; nothing published
// after ready may be skipped, nothing published before start() may arrive, duplicates stay
// within one fetch. SEAMS_SEED=<seed> replays one trial, SEAMS_TRIALS=<n> runs more.
import { ApiKey } from '../support/broker/tcp-proxy.js';
import { Faults, frameMoment } from '../support/faults/seam-faults.js';
import type { SeamMoment } from '../support/faults/seam-moments.js';
import { describeSeams } from '../support/faults/seam-suite.js';
import type { ProxiedBroker } from '../support/broker/proxied-broker.mjs';

const moments = (broker: ProxiedBroker): SeamMoment[] => [
  {
    name: 'first-fetch-request',
    arm: ({ rnd }) =>
      frameMoment(
        'request',
        [ApiKey.Fetch],
        [Faults.reset, Faults.drop, Faults.stall],
      )(broker.proxy, rnd),
  },
  {
    name: 'first-fetch-response',
    arm: ({ rnd }) =>
      frameMoment(
        'response',
        [ApiKey.Fetch],
        [Faults.reset, Faults.resetMidFrame, Faults.stall],
      )(broker.proxy, rnd),
  },
  {
    // A Fetch response that carries records, cut half-way through them.
    name: 'mid-batch',
    arm: ({ rnd }) =>
      frameMoment('response', [ApiKey.Fetch], [Faults.resetMidFrame], {
        maxNth: 4,
        withRecords: true,
      })(broker.proxy, rnd),
  },
  {
    // The seek's own commit: kafkajs turns seek() into an OffsetCommit while auto-commit is on.
    // Reset or dropped, the seek was lost and the fresh group (no commit) read from the
    // beginning: 4/4 trials each replayed the whole topic on the engine before the fix. Since
    // positions belong to the engine, neither adapter commits (kafkajs runs with autoCommit off,
    // the @platformatic/kafka adapter fetches by itself): one trial per client shows that no
    // OffsetCommit is sent, and fails if one comes back.
    name: 'offset-commit',
    sentBy: [],
    arm: ({ rnd }) =>
      frameMoment('request', [ApiKey.OffsetCommit], [Faults.reset, Faults.drop], { maxNth: 1 })(
        broker.proxy,
        rnd,
      ),
  },
];

describeSeams('faults at the fetch seams', 'moment', moments);
