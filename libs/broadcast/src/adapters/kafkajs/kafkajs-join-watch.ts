import { withTimeout } from '../../shared/async.utils.js';
import { cutRequests, notRetriable } from './kafkajs-own-cluster.js';
import {
  type KafkajsEarlierMembers,
  type LeavingBroker,
  leaveEarlierMembers,
} from './kafkajs-earlier-members.js';

/** kafkajs 2.2.4's private request method of a Broker (broker/index.js `PRIVATE.SEND_REQUEST`). */
const SEND_REQUEST = 'private:Broker:sendRequest';
const JOIN_GROUP = 11;
const SYNC_GROUP = 14;
/** How long a stop waits for the LeaveGroups of members whose join did not complete. */
const LEAVE_BOUND_MS = 5_000;
/** Member ids kept for a stop to leave: a join sequence hands out one or two. */
const KEPT_IDS = 4;

type SendRequest = (protocolRequest: { request?: { apiKey?: number } }) => Promise<unknown>;

/** What the watch tells its consumer and asks of it. */
export interface JoinWatchHooks {
  /** The broker handed this member id out (reported at once, before the join completes). */
  joining(memberId: string): void;
  /** True once the consumer's stop was asked (its lifecycle decides): no join is sent then. */
  stopped(): boolean;
  /** A member an earlier consumer of the group left behind was removed before this join. */
  leftEarlier?(memberId: string): void;
}

/**
 * Watches one kafkajs consumer's joins on its group coordinator, so that a stop leaves every
 * member the broker may hold for it, whenever it comes.
 *
 * Why: kafkajs leaves the group on disconnect() only once a join completed (Runner.stop returns
 * early while `running` is false, runner.js 173-176), yet the broker holds the member from its
 * JoinGroup answer on. Between that answer and the end of the join kafkajs waits for more: the
 * leader refreshes the cluster's metadata before its SyncGroup (consumerGroup.js 219), every member
 * waits for the SyncGroup answer, and the second JoinGroup (after MEMBER_ID_REQUIRED, whose id
 * kafkajs keeps inside `broker.joinGroup`) may be unanswered. A stop there used to let the
 * join fail (the watch refused the SyncGroup, or the answer was lost), the runner crash and
 * disconnect without a LeaveGroup: the member stayed until its session ended, and the stop-time
 * delete got NON_EMPTY_GROUP. Here each JoinGroup and SyncGroup of the consumer's own Cluster
 * passes through `watched`, which learns every id the broker hands out (reported at once, so the
 * engine counts that member as its own); `joined()` says a join completed (kafkajs then leaves that
 * member itself). `abandon()`, called at once when a stop comes, leaves every other member id with
 * the coordinator and, while a join is not complete, ends every request of the consumer's Cluster,
 * so the start in flight ends now instead of at its request timeout.
 *
 * With a ledger (kafkajs-earlier-members.ts), every id handed out is recorded there, and the
 * members earlier consumers of the group left behind are removed before this consumer's first
 * JoinGroup (and before each later one, until the broker confirmed it holds them no more).
 */
export class KafkajsJoinWatch {
  /** Member ids the broker handed out, oldest first (at most KEPT_IDS). */
  private readonly handedOut: string[] = [];
  /** The member of the last completed join, while no other join began (kafkajs leaves it). */
  private completed: string | undefined;
  private coordinator: LeavingBroker | undefined;
  private cluster: unknown;
  private readonly watchedBrokers = new WeakSet<object>();
  /** Members of earlier consumers of the group the broker may still hold (from the ledger). */
  private earlier: string[];

  constructor(
    private readonly groupId: string,
    private readonly hooks: JoinWatchHooks,
    private readonly ledger?: KafkajsEarlierMembers,
  ) {
    this.earlier = ledger?.of(groupId) ?? [];
  }

  /** Hooks the consumer's own Cluster; false (nothing hooked) on a kafkajs without these internals. */
  watch(cluster: unknown): boolean {
    const target = cluster as {
      findGroupCoordinator?: (args: { groupId: string }) => Promise<object>;
    };
    const find = target?.findGroupCoordinator;
    if (typeof find !== 'function') return false;
    this.cluster = cluster;
    target.findGroupCoordinator = async (args) => {
      const broker = await find.call(cluster, args);
      if (args.groupId === this.groupId) this.watchBroker(broker);
      return broker;
    };
    return true;
  }

  /** The consumer's join completed (kafkajs's GROUP_JOIN) with this member. */
  joined(memberId: string): void {
    this.completed = memberId;
  }

  /**
   * For stop(): no JoinGroup or SyncGroup is sent from now on; every member the broker may hold
   * and kafkajs will not leave leaves now, and a join that is not complete ends at once.
   */
  async abandon(): Promise<void> {
    const coordinator = this.coordinator;
    const left = this.handedOut.filter((id) => id !== this.completed);
    if (coordinator && left.length > 0)
      await withTimeout(
        Promise.all(
          left.map((memberId) =>
            coordinator.leaveGroup({ groupId: this.groupId, memberId }).then(
              () => this.ledger?.gone(this.groupId, memberId),
              // A member the broker no longer holds (UNKNOWN_MEMBER_ID): nothing to leave.
              () => undefined,
            ),
          ),
        ),
        LEAVE_BOUND_MS,
        `leave of ${this.groupId}`,
      ).catch(() => undefined);
    if (this.completed === undefined)
      cutRequests(this.cluster, notRetriable(stoppedError(this.groupId)));
  }

  private watchBroker(broker: object): void {
    if (this.watchedBrokers.has(broker)) return;
    this.watchedBrokers.add(broker);
    const holder = broker as Record<symbol, unknown>;
    const key = symbolNamed(broker, SEND_REQUEST);
    const send = key && holder[key];
    if (!key || typeof send !== 'function') return;
    holder[key] = (protocolRequest: Parameters<SendRequest>[0]) => {
      const apiKey = protocolRequest?.request?.apiKey;
      if (apiKey !== JOIN_GROUP && apiKey !== SYNC_GROUP)
        return (send as SendRequest).call(broker, protocolRequest);
      return this.watched(broker as LeavingBroker, apiKey, () =>
        (send as SendRequest).call(broker, protocolRequest),
      );
    };
  }

  private async watched(
    broker: LeavingBroker,
    apiKey: number,
    send: () => Promise<unknown>,
  ): Promise<unknown> {
    // After a stop, a join would make a member no one leaves (kafkajs issue #1639).
    if (this.hooks.stopped()) throw notRetriable(stoppedError(this.groupId));
    this.coordinator = broker;
    if (apiKey === JOIN_GROUP) {
      this.completed = undefined;
      if (this.earlier.length > 0) await this.leaveEarlier(broker);
    }
    try {
      const answer = await send();
      const memberId = (answer as { memberId?: unknown } | undefined)?.memberId;
      if (apiKey === JOIN_GROUP && typeof memberId === 'string') this.own(memberId);
      return answer;
    } catch (error) {
      // kafkajs's answer "here is your id, join again with it" (broker.joinGroup retries with it).
      const handedOut = (error as { name?: string; memberId?: unknown } | undefined) ?? {};
      if (handedOut.name === 'KafkaJSMemberIdRequired' && typeof handedOut.memberId === 'string')
        this.own(handedOut.memberId);
      throw error;
    }
  }

  /**
   * Removes the members earlier consumers left behind before joining: the coordinator would
   * otherwise wait for them to join again until their sessions end. Ids whose leave failed for
   * another reason than UNKNOWN_MEMBER_ID are tried again before the next JoinGroup.
   */
  private async leaveEarlier(broker: LeavingBroker): Promise<void> {
    const gone = await leaveEarlierMembers(broker, this.groupId, this.earlier);
    this.earlier = this.earlier.filter((id) => !gone.includes(id));
    for (const memberId of gone) {
      this.ledger?.gone(this.groupId, memberId);
      this.hooks.leftEarlier?.(memberId);
    }
  }

  private own(memberId: string): void {
    if (memberId === '' || this.handedOut.includes(memberId)) return;
    this.ledger?.handedOut(this.groupId, memberId);
    this.handedOut.push(memberId);
    if (this.handedOut.length > KEPT_IDS) this.handedOut.shift();
    this.hooks.joining(memberId);
  }
}

function symbolNamed(object: object, description: string): symbol | undefined {
  for (let o: object | null = object; o; o = Object.getPrototypeOf(o) as object | null) {
    const found = Object.getOwnPropertySymbols(o).find((s) => s.description === description);
    if (found) return found;
  }
  return undefined;
}

/** What a request of a consumer that stopped fails with (kafkajs does not retry it). */
export function stoppedError(groupId: string): Error {
  const error = new Error(`the broadcast consumer of ${groupId} stopped during its join`);
  error.name = 'KafkaJSBroadcastStopped';
  return error;
}
