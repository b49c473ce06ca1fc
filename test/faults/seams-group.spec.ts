// Faults at the group-protocol seams: the proxy between the engine and the broker resets,
// stalls or drops traffic right after JoinGroup / SyncGroup, during DescribeGroups (the
// verification) and DeleteGroups (the claim), and on KIP-848 right after the first
// ConsumerGroupHeartbeat (the join) and during ConsumerGroupDescribe (the verification).
// Sequence-numbered records are published throughout; nothing published after ready may be
// skipped, nothing published before start() may arrive, duplicates stay within one fetch.
// SEAMS_SEED=<seed> replays one trial, SEAMS_TRIALS=<n> runs more.
// A row sends the frames of its group protocol only: on the other protocol's moments it runs one
// trial, which must not fire (sentBy), instead of SEAM_TRIALS trials that could prove nothing more.
import { KAFKA_CLIENT_NAMES } from '../../libs/broadcast/src/adapters/registry.js';
import { kip848Clients } from '../support/broker/kafka-clients.js';
import { ApiKey } from '../support/broker/tcp-proxy.js';
import { Faults, frameMoment } from '../support/faults/seam-faults.js';
import type { SeamMoment } from '../support/faults/seam-moments.js';
import { describeSeams } from '../support/faults/seam-suite.js';
import type { ProxiedBroker } from '../support/broker/proxied-broker.mjs';

const KIP848 = kip848Clients();
const CLASSIC = KAFKA_CLIENT_NAMES.filter((client) => !KIP848.includes(client));
// @confluentinc/kafka-javascript deletes on either protocol, and its describe asks
// ConsumerGroupDescribe first on classic groups too (then DescribeGroups): start-requests.spec.
const DELETES = [...new Set([...CLASSIC, 'confluent' as const])];
const DESCRIBES_KIP848 = [...new Set([...KIP848, 'confluent' as const])];

const moments = (broker: ProxiedBroker): SeamMoment[] => [
  {
    name: 'after-join-group',
    sentBy: CLASSIC,
    arm: ({ rnd }) =>
      frameMoment(
        'response',
        [ApiKey.JoinGroup],
        [Faults.resetAfterFrame, Faults.reset, Faults.stall],
      )(broker.proxy, rnd),
  },
  {
    name: 'after-sync-group',
    sentBy: CLASSIC,
    arm: ({ rnd }) =>
      frameMoment(
        'response',
        [ApiKey.SyncGroup],
        [Faults.resetAfterFrame, Faults.reset, Faults.stall],
        { maxNth: 1 },
      )(broker.proxy, rnd),
  },
  {
    name: 'describe-groups',
    sentBy: CLASSIC,
    arm: ({ rnd }) =>
      frameMoment('request', [ApiKey.DescribeGroups], [Faults.reset, Faults.drop, Faults.stall], {
        maxNth: 1,
      })(broker.proxy, rnd),
  },
  {
    name: 'delete-groups',
    sentBy: DELETES,
    arm: ({ rnd }) =>
      frameMoment(
        'response',
        [ApiKey.DeleteGroups],
        [Faults.resetAfterFrame, Faults.drop, Faults.stall],
        {
          maxNth: 1,
        },
      )(broker.proxy, rnd),
  },
  // KIP-848 (@platformatic/kafka's default on this broker) sends none of the classic requests
  // above, and since a lock-free start joins a free id without the delete (the join is the claim)
  // none of them at all: its join is a ConsumerGroupHeartbeat and its verification a
  // ConsumerGroupDescribe (CI failed 'expected false to be true': no moment fired on that row).
  {
    name: 'after-consumer-group-heartbeat',
    sentBy: KIP848,
    arm: ({ rnd }) =>
      frameMoment(
        'response',
        [ApiKey.ConsumerGroupHeartbeat],
        [Faults.resetAfterFrame, Faults.reset, Faults.stall],
        { maxNth: 1 },
      )(broker.proxy, rnd),
  },
  {
    name: 'consumer-group-describe',
    sentBy: DESCRIBES_KIP848,
    arm: ({ rnd }) =>
      frameMoment(
        'request',
        [ApiKey.ConsumerGroupDescribe],
        [Faults.reset, Faults.drop, Faults.stall],
        { maxNth: 1 },
      )(broker.proxy, rnd),
  },
];

describeSeams('faults at the group-protocol seams', 'moment', moments);
