import { randomUUID } from 'node:crypto';
import { consumerGroupHeartbeatV1, type Connection } from '@platformatic/kafka';
import { backoffDelay, errorMessage, pause } from '../../shared/async.utils.js';
import { hasProtocolError } from './platformatic-errors.js';
import { heartbeatFailure, heartbeatRetryDelay } from './platformatic-heartbeat-retry.js';
import { HeartbeatTiming } from './platformatic-heartbeat-timing.js';
import { instanceIdHeld, UNRELEASED_INSTANCE_ID } from './platformatic-instance-id.js';

type HeartbeatResponse = consumerGroupHeartbeatV1.ConsumerGroupHeartbeatResponse;
type OwnedPartitions = consumerGroupHeartbeatV1.ConsumerGroupHeartbeatRequestTopicPartition[];

/** The broker may still hold the member under another epoch: it is removed at once. */
const FENCED = 'FENCED_MEMBER_EPOCH';
const LEAVE_EPOCH = -1;

export interface HeartbeatSpec {
  groupId: string;
  topics: readonly string[];
  rebalanceTimeoutMs: number;
  /**
   * How long the first heartbeat (the join) may fail in a row before the join fails. Once joined,
   * failed heartbeats never end the membership (see beat).
   */
  sessionTimeoutMs: number;
  /**
   * The static group instance id sent with every heartbeat but the leave, or null (a dynamic
   * member). Under KIP-848 the broker refuses a join with an instance id that an active member
   * holds (UNRELEASED_INSTANCE_ID), so the first holder keeps the group; see join.
   */
  instanceId: string | null;
  /** Sent as the member's rack id, the only free text ConsumerGroupDescribe shows (the roster's member info). */
  rackId: string | null;
  /** A connection to the group's coordinator; `fresh` after the coordinator moved. */
  coordinator(fresh: boolean): Promise<Connection>;
  /** The assignment the broker gave, as topic ids and partitions (the full set, each time). */
  assigned(memberId: string, owned: OwnedPartitions): void;
  /** The member is out of the group (fenced, expired, or refused); it left if it was fenced. */
  lost(error: Error): void;
  /**
   * The session the broker gives this group's members (platformatic-group-session.ts): null when
   * the broker will not tell; rejects when it could not be asked. Without it, or until it
   * answers, the member counts as surely held for one heartbeat interval (HeartbeatTiming).
   */
  readSessionMs?(): Promise<number | null>;
}

/**
 * One KIP-848 group member: the ConsumerGroupHeartbeat loop, written here rather than taken from
 * @platformatic/kafka (1.35, and 2.12.1 still: consumer.js:404-407, 1320-1321, 1066-1084), whose
 * consumer joins only through its MessagesStream (which keeps its own positions) and retries
 * forever with a stale epoch after UNKNOWN_MEMBER_ID (a member the coordinator expired or removed
 * never rejoins; only FENCED_MEMBER_EPOCH resets it). Here a lost membership is reported, and the
 * engine rejoins with a new member; partitions are acknowledged at once (nothing is committed).
 */
export class ConsumerProtocolHeartbeat {
  /** KIP-848 v1: the member makes its own id and keeps it for its whole life. */
  readonly memberId = randomUUID();
  private epoch = 0;
  /** A join went out (answered or not): the broker may hold this member, so stop must leave. */
  private joinSent = false;
  private left = false;
  private owned: OwnedPartitions = [];
  private timer: NodeJS.Timeout | undefined;
  private beating: Promise<void> | undefined;
  private stopped = false;
  private lastSuccess = Date.now();
  private failures = 0;
  private freshCoordinator = false;
  private readonly timing: HeartbeatTiming;
  private waiters: ((inGroup: boolean) => void)[] = [];

  constructor(private readonly spec: HeartbeatSpec) {
    this.timing = new HeartbeatTiming(spec.readSessionMs && (() => spec.readSessionMs!()));
  }

  /**
   * The first heartbeat (epoch 0): resolves once the coordinator took the member in. A join
   * refused because another member holds the instance id fails at once with InstanceIdHeldError:
   * the holder is not touched (the refused member never existed on the broker).
   */
  async join(): Promise<void> {
    for (;;) {
      if (this.stopped) return;
      try {
        return this.handle(await this.send(0, []));
      } catch (error) {
        if (hasProtocolError(error, UNRELEASED_INSTANCE_ID) && this.spec.instanceId !== null) {
          // Refused at the first join sent: the broker never held this member, so stop sends no
          // leave (a lock-free fleet's losers each spent a round trip on it). After an earlier
          // join that went unanswered it may hold one, so the leave stays.
          if (this.failures === 0) this.joinSent = false;
          throw instanceIdHeld(this.spec.groupId, this.spec.instanceId, error);
        }
        if (this.stopped || !this.transient(error)) throw error;
        if (Date.now() - this.lastSuccess >= this.spec.sessionTimeoutMs) throw error;
        await pause(backoffDelay(++this.failures, 50, 1_000));
      }
    }
  }

  /**
   * Stops heartbeating and leaves (epoch -1), a join in flight included: the broker removes a
   * member that leaves whatever its epoch, and it reads a connection's requests in order, so the
   * leave sent behind an unanswered join still removes the member that join creates. Errors are
   * ignored (the broker expires the member anyway). The leave names the member id alone, no
   * instance id: the broker then removes that member, a static one included, and its instance id
   * is free at once (epoch -2, a static member's temporary leave, would keep the member and its
   * partitions in the group for its session). Sent after a refused join too: it names our member
   * id, which only an earlier unanswered join of ours can hold, never the holder's.
   */
  async leave(): Promise<void> {
    this.stop();
    await this.beating?.catch(() => undefined);
    await this.leaveOnce();
  }

  /** The leave (epoch -1), sent once, and only if the broker may hold the member. */
  private async leaveOnce(): Promise<void> {
    if (!this.joinSent || this.left) return;
    this.left = true;
    await this.send(LEAVE_EPOCH, []).catch(() => undefined);
  }

  /** Stops heartbeating without leaving (the membership is lost already). */
  stop(): void {
    this.stopped = true;
    clearTimeout(this.timer);
    this.settle(false);
  }

  /**
   * The broker surely still holds the member (HeartbeatTiming.surelyHeld: the last answered
   * heartbeat was sent less than the broker's session ago, less a margin); past it, the member
   * may have expired and its group been taken by another instance.
   */
  surelyInGroup(): boolean {
    return !this.stopped && this.timing.surelyHeld();
  }

  /** Resolves true at the next answered heartbeat, false once the member is out or stopped. */
  nextAnswer(): Promise<boolean> {
    if (this.stopped) return Promise.resolve(false);
    return new Promise((resolve) => this.waiters.push(resolve));
  }

  private settle(inGroup: boolean): void {
    const waiters = this.waiters;
    this.waiters = [];
    for (const resolve of waiters) resolve(inGroup);
  }

  private send(epoch: number, owned: OwnedPartitions): Promise<HeartbeatResponse> {
    const { groupId, topics, rebalanceTimeoutMs, rackId } = this.spec;
    const fresh = this.freshCoordinator;
    this.freshCoordinator = false;
    return this.spec.coordinator(fresh).then(async (connection) => {
      if (epoch === 0) this.joinSent = true;
      const sentAt = Date.now();
      const response = await consumerGroupHeartbeatV1.api.async(
        connection,
        groupId,
        this.memberId,
        epoch,
        epoch === LEAVE_EPOCH ? null : this.spec.instanceId,
        rackId,
        epoch === LEAVE_EPOCH ? 0 : rebalanceTimeoutMs,
        epoch === LEAVE_EPOCH ? [] : [...topics],
        null,
        null,
        owned,
      );
      if (epoch !== LEAVE_EPOCH) this.timing.answered(sentAt, response.heartbeatIntervalMs);
      return response;
    });
  }

  /** The first answer: its assignment (perhaps none yet) is reported whatever it is. */
  private handle(response: HeartbeatResponse): void {
    if (this.stopped) return;
    this.lastSuccess = Date.now();
    this.failures = 0;
    this.epoch = response.memberEpoch;
    const next = response.assignment?.topicPartitions ?? [];
    this.owned = next.map((t) => ({ topicId: t.topicId, partitions: [...t.partitions] }));
    this.spec.assigned(this.memberId, this.owned);
    this.settle(true);
    // An assignment is acknowledged at once: the fetcher already reads exactly these.
    this.schedule(next.length > 0 ? 0 : this.timing.untilNextBeat());
  }

  private schedule(delayMs: number): void {
    if (this.stopped) return;
    clearTimeout(this.timer);
    this.timer = setTimeout(() => {
      this.beating = this.beat();
    }, delayMs);
  }

  /**
   * One heartbeat with the member's id and epoch. As Kafka's Java consumer does, a coordinator
   * that moved, loads or cannot be reached (a broker restart, an outage of any length) never ends
   * the membership: the coordinator keeps the group and its members in __consumer_offsets, and a
   * member that heartbeats again with the same id and epoch keeps its assignment. Giving it up
   * after a session of our own made a new member wait out the old one's session on the broker
   * (45 s by default): about 50 s back to ready after a 20 s outage. Records are held once the
   * broker may have expired the member (surelyInGroup). The retries wait as Java's do
   * (heartbeatRetryDelay). Only UNKNOWN_MEMBER_ID, FENCED_MEMBER_EPOCH or a refusal end it; a fenced
   * member, which the broker still holds, leaves at once so that the next one waits for nothing.
   */
  private async beat(): Promise<void> {
    if (this.stopped) return;
    try {
      const response = await this.send(this.epoch, this.owned);
      if (!this.stopped) this.handleAgain(response);
    } catch (error) {
      if (this.stopped) return;
      if (this.transient(error)) {
        this.schedule(heartbeatRetryDelay(heartbeatFailure(error), ++this.failures));
        return;
      }
      this.stop();
      if (hasProtocolError(error, FENCED)) await this.leaveOnce();
      const cause = error instanceof Error ? error : new Error(errorMessage(error));
      this.spec.lost(cause);
    }
  }

  /**
   * Later answers report every membership change: new partitions, or a new member epoch with the
   * same ones (another member joined or left; the engine verifies the group again on it).
   */
  private handleAgain(response: HeartbeatResponse): void {
    const before = this.owned;
    const epochMoved = response.memberEpoch !== this.epoch;
    this.epoch = response.memberEpoch;
    this.lastSuccess = Date.now();
    this.failures = 0;
    const next = response.assignment?.topicPartitions;
    const moved = next !== undefined && next !== null && !samePartitions(next, before);
    if (moved)
      this.owned = next.map((t) => ({ topicId: t.topicId, partitions: [...t.partitions] }));
    if (moved || epochMoved) this.spec.assigned(this.memberId, this.owned);
    this.settle(true);
    this.schedule(moved ? 0 : this.timing.untilNextBeat());
  }

  /**
   * A coordinator that moved or a connection that failed (found again, then retried), one still
   * loading the group, or an error the broker calls retriable. A lost membership or a refusal (an
   * ACL) is not.
   */
  private transient(error: unknown): boolean {
    const failure = heartbeatFailure(error);
    if (failure === 'moved' || failure === 'unreachable') this.freshCoordinator = true;
    return failure !== 'lost' && failure !== 'refused';
  }
}

function samePartitions(a: OwnedPartitions, b: OwnedPartitions): boolean {
  const key = (list: OwnedPartitions) =>
    list
      .flatMap((t) => t.partitions.map((p) => `${t.topicId}:${p}`))
      .sort()
      .join(',');
  return key(a) === key(b);
}
