import type { AdvisoryLockProvider } from '../../interfaces/advisory-lock.interface.js';
import type { BroadcastLogger } from '../../interfaces/broadcast-logger.interface.js';
import type { KafkaPort, TopicOffsets } from '../../interfaces/kafka-port.interface.js';
import type { BroadcastDispatcher } from '../dispatch/broadcast.dispatcher.js';
import type {
  BroadcastGroupAllocator,
  GroupClaim,
} from '../allocation/broadcast-group.allocator.js';
import type { BroadcastHandlerRegistry } from '../dispatch/broadcast-handler.registry.js';
import type { ActiveGroup } from './group-joins.js';
import type { StepProbe } from '../allocation/group-membership.js';
import type { ReadPositions } from '../positions/read-positions.js';

export interface ReaderSettings {
  topicPrefix: string;
  heartbeatTopic: string;
  startupTimeoutMs: number;
  /** When false, a failed startup keeps allocating in the background instead of failing. */
  failOnStartupTimeout: boolean;
  /** 0 disables lock checks (lock-free mode). */
  lockCheckIntervalMs: number;
  /** Longest one join attempt may take before the candidate is given up. */
  joinTimeoutMs: number;
  /** How long an established member waits for a newcomer to leave its group. */
  contestGraceMs: number;
}

export interface ReaderDeps {
  kafka: KafkaPort;
  allocator: BroadcastGroupAllocator;
  registry: BroadcastHandlerRegistry;
  dispatcher: BroadcastDispatcher;
  /** Where every partition is read from; shared with the dispatcher, which advances it. */
  positions: ReadPositions;
  locks: AdvisoryLockProvider;
  /** The start snapshot (default: the high watermarks); the replay window moves it back. */
  startOffsets?: (topics: readonly string[]) => Promise<TopicOffsets>;
  logger: BroadcastLogger;
  /** Internal test hook, not an option: called as each startup/recovery step begins. */
  probe?: StepProbe;
}

export type Claim = GroupClaim<ActiveGroup>;
