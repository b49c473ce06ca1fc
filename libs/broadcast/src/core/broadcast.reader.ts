import { BroadcastMessages } from '../errors/broadcast.messages.js';
import type {
  AdvisoryLockProvider,
  HeldLock,
} from '../interfaces/advisory-lock.interface.js';
import type { BroadcastLogger } from '../interfaces/broadcast-logger.interface.js';
import type {
  BroadcastState,
  BroadcastStatus,
} from '../interfaces/broadcast-status.interface.js';
import type {
  KafkaPort,
  TopicOffsets,
} from '../interfaces/kafka-port.interface.js';
import { backoffDelay, deferred, errorMessage, pause } from './async.utils.js';
import type { BroadcastDispatcher } from './broadcast.dispatcher.js';
import type {
  BroadcastGroupAllocator,
  GroupClaim,
} from './broadcast-group.allocator.js';
import type { BroadcastHandlerRegistry } from './broadcast-handler.registry.js';
import {
  GroupMembership,
  type MembershipContext,
  type MembershipVerdict,
} from './group-membership.js';

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
  locks: AdvisoryLockProvider;
  logger: BroadcastLogger;
}

interface ActiveGroup {
  membership: GroupMembership;
  /** Where this group started reading. */
  startOffsets: TopicOffsets;
  /** Our members of this group across memberships, which may linger after a crash. */
  ownMemberIds: Set<string>;
}

type Claim = GroupClaim<ActiveGroup>;

/**
 * Reads every broadcast topic through one exclusively held consumer group, and keeps it so:
 * it rejoins the same group after a crash, and moves to another group when the lock is
 * lost or another member shows up. Every transition runs one at a time.
 */
export class BroadcastReader {
  private state: BroadcastState = 'starting';
  private claim: Claim | undefined;
  private started = false;
  private readonly abort = new AbortController();
  private readonly ready = deferred<void>();
  private transitions: Promise<void> = Promise.resolve();
  private lockTimer: NodeJS.Timeout | undefined;
  private topics: string[] = [];
  /** Start offsets of the group read last; with the dispatcher's positions, where a move resumes. */
  private readFrom: TopicOffsets | undefined;

  constructor(
    private readonly settings: ReaderSettings,
    private readonly deps: ReaderDeps,
  ) {
    this.ready.promise.catch(() => {});
  }

  /** The consumer group in use; undefined until one is allocated. */
  get groupId(): string | undefined {
    return this.claim?.groupId;
  }

  /** Resolves once a group is held exclusively and positioned; rejects if startup fails. */
  whenReady(): Promise<void> {
    return this.ready.promise;
  }

  status(): BroadcastStatus {
    const { dispatcher } = this.deps;
    const newest = dispatcher.newestTimestamp;
    return {
      state: this.state,
      groupId: this.claim?.groupId,
      lockId: this.claim?.id,
      lockMode: this.deps.locks.mode,
      lastLatencyMs:
        newest === undefined ? undefined : Math.max(0, Date.now() - newest),
      received: dispatcher.received,
      failed: dispatcher.failed,
      skipped: dispatcher.skipped,
    };
  }

  /** Creates missing topics, allocates a group and resolves when ready. */
  async start(): Promise<void> {
    if (this.started) return this.whenReady();
    this.started = true;
    this.deps.registry.freeze();
    const { topicPrefix, heartbeatTopic } = this.settings;
    this.topics = [
      ...new Set([...this.deps.registry.topics(), heartbeatTopic]),
    ].map((t) => topicPrefix + t);
    // Part of the transition chain, so stop() waits for an allocation in flight and then
    // releases whatever it produced: a group claimed during shutdown is never leaked.
    const startup = this.allocateOnce(
      Date.now() + this.settings.startupTimeoutMs,
    );
    this.transitions = startup.then(
      () => undefined,
      () => undefined,
    );
    try {
      await startup;
      this.startLockChecks();
    } catch (error) {
      if (!this.settings.failOnStartupTimeout && !this.abort.signal.aborted) {
        this.deps.logger.error(
          `Broadcast startup failed, retrying in the background: ${errorMessage(error)}`,
        );
        this.startLockChecks();
        return this.schedule(() => this.allocateUntilStopped());
      }
      this.ready.reject(
        this.abort.signal.aborted
          ? new Error(BroadcastMessages.stopped())
          : error,
      );
      throw error;
    }
  }

  private async allocateOnce(deadline: number): Promise<void> {
    await this.deps.kafka.admin.ensureTopics(this.topics);
    this.adopt(
      await this.deps.allocator.allocate(
        this.joiner(),
        deadline,
        this.abort.signal,
      ),
    );
  }

  /** Leaves the group, then frees the lock. Idempotent. */
  async stop(): Promise<void> {
    if (this.abort.signal.aborted) return this.transitions;
    this.abort.abort();
    clearInterval(this.lockTimer);
    this.ready.reject(new Error(BroadcastMessages.stopped()));
    this.transitions = this.transitions.then(() => this.abandon());
    await this.transitions;
    this.state = 'stopped';
  }

  private joiner() {
    return async (groupId: string, deadline: number) => {
      const startOffsets = this.resumeOffsets(
        await this.deps.kafka.admin.latestOffsets(this.topics),
      );
      const group: ActiveGroup = {
        membership: new GroupMembership(
          groupId,
          this.membershipContext(),
          new Set(),
          startOffsets,
        ),
        startOffsets,
        ownMemberIds: new Set(),
      };
      const verdict = await this.join(group.membership, deadline);
      if (verdict.kind === 'ready')
        return { accepted: true as const, value: group };
      await group.membership.stop();
      return { accepted: false as const, reason: describeRefusal(verdict) };
    };
  }

  /**
   * Where a new group starts reading: the latest offsets on the first allocation; after a move
   * (lock lost, foreign member), right after the last record delivered, or where the previous
   * group started for partitions that delivered nothing, so that what was published while this
   * instance moved is not skipped.
   */
  private resumeOffsets(latest: TopicOffsets): TopicOffsets {
    const previous = this.readFrom;
    if (!previous) return latest;
    const delivered = this.deps.dispatcher.delivered;
    const result: TopicOffsets = new Map();
    for (const [topic, partitions] of latest) {
      const merged = new Map(partitions);
      for (const [partition, high] of partitions) {
        const from =
          nextOffset(delivered.get(topic)?.get(partition)) ??
          previous.get(topic)?.get(partition);
        if (from !== undefined && BigInt(from) < BigInt(high))
          merged.set(partition, from);
      }
      result.set(topic, merged);
    }
    return result;
  }

  private join(
    membership: GroupMembership,
    deadline: number,
  ): Promise<MembershipVerdict> {
    const timeoutMs = Math.max(
      1,
      Math.min(this.settings.joinTimeoutMs, deadline - Date.now()),
    );
    return membership.join(timeoutMs, this.abort.signal);
  }

  private membershipContext(): MembershipContext {
    const { kafka, dispatcher, logger } = this.deps;
    return {
      kafka,
      topics: this.topics,
      sink: dispatcher.sink,
      logger,
      resumeFrom: (topic, partition) =>
        nextOffset(dispatcher.delivered.get(topic)?.get(partition)),
      contestGraceMs: this.settings.contestGraceMs,
    };
  }

  /** Takes over a freshly verified group and watches what happens to it next. */
  private adopt(claim: Claim): void {
    this.claim = claim;
    this.readFrom = claim.value.startOffsets;
    // When stopping, stop() releases this claim right after the chain reaches it.
    if (this.abort.signal.aborted) return;
    this.watch(claim, claim.value.membership);
    this.becomeReady(claim);
  }

  private watch(claim: Claim, membership: GroupMembership): void {
    membership.observe((verdict) => {
      if (this.claim !== claim || claim.value.membership !== membership) return;
      if (verdict.kind === 'ready') return this.becomeReady(claim);
      this.state = 'recovering';
      if (verdict.kind === 'foreign') {
        this.schedule(() =>
          this.moveAway(
            claim,
            `member(s) ${verdict.memberIds.join(', ')} of another instance joined`,
          ),
        );
      } else {
        this.schedule(() => this.rejoin(claim, verdict.error));
      }
    });
  }

  private becomeReady(claim: Claim): void {
    if (this.claim !== claim || this.abort.signal.aborted) return;
    if (this.state !== 'ready')
      this.deps.logger.log(
        `Reading broadcasts through consumer group ${claim.groupId}`,
      );
    this.state = 'ready';
    this.ready.resolve();
  }

  /** After a crash or an outage: the same group, a new member, positions kept. */
  private async rejoin(claim: Claim, cause: Error): Promise<void> {
    this.deps.logger.warn(
      `Broadcast consumer of ${claim.groupId} stopped (${cause.message}); rejoining`,
    );
    for (
      let attempt = 0;
      this.claim === claim && !this.abort.signal.aborted;
      attempt++
    ) {
      await claim.value.membership.stop();
      if (!(await claim.lock.isHeld()))
        return this.moveAway(claim, 'the advisory lock was lost');
      const membership = new GroupMembership(
        claim.groupId,
        this.membershipContext(),
        claim.value.ownMemberIds,
      );
      claim.value.membership = membership;
      const verdict = await this.join(membership, Infinity);
      if (this.abort.signal.aborted) return;
      if (verdict.kind === 'ready') {
        this.watch(claim, membership);
        return this.becomeReady(claim);
      }
      if (verdict.kind === 'foreign')
        return this.moveAway(claim, describeRefusal(verdict));
      this.deps.logger.warn(
        `Rejoining ${claim.groupId} failed: ${verdict.error.message}`,
      );
      await pause(backoffDelay(attempt, 500, 5_000), this.abort.signal);
    }
  }

  /** Gives up the group (leave first, then unlock) and allocates another, retrying until stopped. */
  private async moveAway(claim: Claim, reason: string): Promise<void> {
    if (this.claim !== claim) return;
    this.deps.logger.warn(
      `Giving up broadcast group ${claim.groupId}: ${reason}`,
    );
    this.state = 'recovering';
    await this.abandon();
    await this.allocateUntilStopped();
  }

  private async allocateUntilStopped(): Promise<void> {
    for (let attempt = 0; !this.abort.signal.aborted; attempt++) {
      try {
        return await this.allocateOnce(
          Date.now() + this.settings.startupTimeoutMs,
        );
      } catch (error) {
        if (this.abort.signal.aborted) return;
        this.deps.logger.error(
          `Could not allocate a new broadcast group: ${errorMessage(error)}`,
        );
        await pause(backoffDelay(attempt, 1_000, 10_000), this.abort.signal);
      }
    }
  }

  private async abandon(): Promise<void> {
    const claim = this.claim;
    this.claim = undefined;
    if (!claim) return;
    await claim.value.membership.stop();
    await claim.lock.release();
  }

  private schedule(transition: () => Promise<void>): void {
    this.transitions = this.transitions
      .then(transition)
      .catch((error: unknown) => {
        this.deps.logger.error(
          `Broadcast reader transition failed: ${errorMessage(error)}`,
        );
      });
  }

  /** A lock whose connection died may already belong to someone else: stop using its group. */
  private startLockChecks(): void {
    if (
      this.settings.lockCheckIntervalMs <= 0 ||
      this.deps.locks.mode === 'none'
    )
      return;
    let checking = false;
    this.lockTimer = setInterval(() => {
      const claim = this.claim;
      if (!claim || checking) return;
      checking = true;
      void checkLock(claim.lock)
        .then((held) => {
          if (!held && this.claim === claim) {
            this.state = 'recovering';
            void claim.value.membership.stop();
            this.schedule(() =>
              this.moveAway(claim, 'the advisory lock was lost'),
            );
          }
        })
        .finally(() => (checking = false));
    }, this.settings.lockCheckIntervalMs);
    this.lockTimer.unref();
  }
}

function nextOffset(offset: string | undefined): string | undefined {
  return offset === undefined ? undefined : (BigInt(offset) + 1n).toString();
}

function checkLock(lock: HeldLock): Promise<boolean> {
  return lock.isHeld().catch(() => false);
}

function describeRefusal(verdict: MembershipVerdict): string {
  if (verdict.kind === 'foreign')
    return `shared with member(s) ${verdict.memberIds.join(', ')}`;
  if (verdict.kind === 'failed') return `join failed: ${verdict.error.message}`;
  return 'ready';
}
