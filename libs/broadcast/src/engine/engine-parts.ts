import { BroadcastGroupAllocator } from '../core/allocation/broadcast-group.allocator.js';
import { FailureOutlets } from '../core/dispatch/failure-outlets.js';
import {
  DEFAULT_LOCK_FREE_GROUP_BASE,
  DEFAULT_LOCKED_GROUP_BASE,
} from '../core/options/broadcast.defaults.js';
import type { AdvisoryLockProvider } from '../interfaces/advisory-lock.interface.js';
import type { BroadcastEngineDeps } from './broadcast-engine.deps.js';
import type { BroadcastDispatcher } from '../core/dispatch/broadcast.dispatcher.js';
import { BroadcastHeartbeat } from '../core/heartbeat/broadcast.heartbeat.js';
import type { NewestHeartbeat } from '../core/heartbeat/newest-heartbeat.js';
import type { ResolvedBroadcastOptions } from '../core/options/broadcast-options.resolver.js';
import type { ReaderSettings } from '../core/reading/broadcast.reader.js';
import type { BroadcastLogger } from '../interfaces/broadcast-logger.interface.js';
import type { KafkaPort } from '../interfaces/kafka-port.interface.js';

// Parts of BroadcastEngine that are pure wiring of the options, kept out of its constructor.

/** The reader's settings, from the resolved options. */
export function readerSettings(o: ResolvedBroadcastOptions): ReaderSettings {
  return {
    topicPrefix: o.topicPrefix,
    heartbeatTopic: o.heartbeatTopic,
    startupTimeoutMs: o.startupTimeoutMs,
    failOnStartupTimeout: o.waitForReady,
    lockCheckIntervalMs: o.lock === false ? 0 : o.lock.checkIntervalMs,
    joinTimeoutMs: Math.max(15_000, 2 * o.consumer.sessionTimeoutMs),
    contestGraceMs: o.consumer.sessionTimeoutMs,
    // A rejoin waits out an earlier member of ours for its whole session: the client's in a
    // classic group, the broker's in a KIP-848 one (45 s by default, at most 60 s unless the
    // broker's group.consumer.max.session.timeout.ms is raised), with a margin.
    predecessorWaitMs: Math.max(75_000, 2 * o.consumer.sessionTimeoutMs),
  };
}

/** The heartbeat sender (idle with `heartbeat: false`), reading what the dispatcher received. */
export function engineHeartbeat(
  o: ResolvedBroadcastOptions,
  dispatcher: BroadcastDispatcher,
  reader: { readonly groupId: string | undefined },
  kafka: KafkaPort,
  logger: BroadcastLogger,
  features: { readonly newestHeartbeat: Pick<NewestHeartbeat, 'sentSinceStart'> },
): BroadcastHeartbeat {
  return new BroadcastHeartbeat(
    o.heartbeat && {
      ...o.heartbeat,
      topic: o.topicPrefix + o.heartbeat.topic,
      instanceId: o.instanceId,
      maxStalenessMs: o.maxStalenessMs,
    },
    {
      newestTimestamp: () => dispatcher.counters().newestTimestamp,
      heartbeatsReceived: () => dispatcher.counters().heartbeats,
      lastHeartbeatAt: () => dispatcher.counters().lastHeartbeatAt,
      lastHeartbeatTimestamp: () => dispatcher.counters().lastHeartbeatTimestamp,
      groupId: () => reader.groupId,
      sentSinceStart: () => features.newestHeartbeat.sentSinceStart(),
    },
    (topic, payload) => kafka.send(topic, [{ key: o.instanceId, value: JSON.stringify(payload) }]),
    logger,
  );
}

/** Where a handler's final failure goes: `onHandlerError` and the dead-letter topic. */
export function engineOutlets(
  o: ResolvedBroadcastOptions,
  kafka: KafkaPort,
  logger: BroadcastLogger,
): FailureOutlets {
  return new FailureOutlets(
    {
      instanceId: o.instanceId,
      topicPrefix: o.topicPrefix,
      hook: o.onHandlerError,
      deadLetterTopic: o.deadLetter ? o.topicPrefix + o.deadLetter.topic : undefined,
      timeoutMs: o.handlerTimeoutMs,
    },
    (topic, records) => kafka.send(topic, records),
    logger,
  );
}

/** The group-id allocator over the pool `<prefix><base>-<n>` of the options. */
export function engineAllocator(
  o: ResolvedBroadcastOptions,
  locks: AdvisoryLockProvider,
  kafka: KafkaPort,
  logger: BroadcastLogger,
  probe: BroadcastEngineDeps['probe'],
): BroadcastGroupAllocator {
  return new BroadcastGroupAllocator(
    {
      topicPrefix: o.topicPrefix,
      lockedBase: o.groupBaseName ?? DEFAULT_LOCKED_GROUP_BASE,
      lockFreeBase: o.groupBaseName ?? DEFAULT_LOCK_FREE_GROUP_BASE,
      maxGroups: o.maxGroups,
    },
    locks,
    kafka.admin,
    logger,
    probe,
    kafka.claimsByInstanceId && ((groupId) => kafka.claimsByInstanceId!(groupId)),
  );
}
