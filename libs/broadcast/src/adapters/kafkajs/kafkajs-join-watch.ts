import { withTimeout } from '../../shared/async.utils.js';

/** kafkajs 2.2.4's private request method of a Broker (broker/index.js `PRIVATE.SEND_REQUEST`). */
const SEND_REQUEST = 'private:Broker:sendRequest';
const JOIN_GROUP = 11;
const SYNC_GROUP = 14;
/** How long a stop waits for the LeaveGroup of a member whose join is unanswered. */
const LEAVE_BOUND_MS = 5_000;

type SendRequest = (protocolRequest: { request?: { apiKey?: number } }) => Promise<unknown>;

interface CoordinatorBroker {
  leaveGroup(request: { groupId: string; memberId: string }): Promise<unknown>;
  connectionPool?: { pool?: { rejectRequests?(error: Error): void }[] };
}

/**
 * Watches one kafkajs consumer's joins on its group coordinator, so that a stop can leave a
 * member whose join the broker took in but never answered.
 *
 * Why: kafkajs keeps the member id of its first JoinGroup answer (MEMBER_ID_REQUIRED) inside
 * `broker.joinGroup` and sends the second JoinGroup with it; if that answer is lost, `run()`
 * waits for it (up to the rebalance timeout + 5 s), `disconnect()` waits for the request in
 * flight, and no one sends a LeaveGroup: the member stays until the broker drops it. Here each
 * JoinGroup and SyncGroup of the consumer's own Cluster passes through `watched`, which learns
 * the id the broker holds (reported at once, so the engine counts that member as its own), and
 * `abandon()` leaves with it and fails the unanswered request, so the stop ends now.
 */
export class KafkajsJoinWatch {
  private memberId: string | undefined;
  private unanswered: CoordinatorBroker | undefined;
  private abandoned = false;
  private readonly watchedBrokers = new WeakSet<object>();

  constructor(
    private readonly groupId: string,
    private readonly onMemberId: (memberId: string) => void,
  ) {}

  /** Hooks the consumer's own Cluster; false (nothing hooked) on a kafkajs without these internals. */
  watch(cluster: unknown): boolean {
    const target = cluster as {
      findGroupCoordinator?: (args: { groupId: string }) => Promise<object>;
    };
    const find = target?.findGroupCoordinator;
    if (typeof find !== 'function') return false;
    target.findGroupCoordinator = async (args) => {
      const broker = await find.call(cluster, args);
      if (args.groupId === this.groupId) this.watchBroker(broker);
      return broker;
    };
    return true;
  }

  /**
   * For stop(): no JoinGroup or SyncGroup is sent from now on; if one is unanswered, the member
   * the broker may hold leaves, and the request fails at once instead of at its timeout.
   */
  async abandon(): Promise<void> {
    this.abandoned = true;
    const broker = this.unanswered;
    if (!broker) return;
    const memberId = this.memberId;
    if (memberId !== undefined)
      await withTimeout(
        broker.leaveGroup({ groupId: this.groupId, memberId }),
        LEAVE_BOUND_MS,
        `leave of ${this.groupId}`,
      ).catch(() => undefined); // a member the broker no longer holds: nothing to leave
    // Group requests go on the Broker's first connection (the second carries fetches only).
    broker.connectionPool?.pool?.[0]?.rejectRequests?.(stoppedError(this.groupId));
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
      return this.watched(broker as CoordinatorBroker, apiKey, () =>
        (send as SendRequest).call(broker, protocolRequest),
      );
    };
  }

  private async watched(
    broker: CoordinatorBroker,
    apiKey: number,
    send: () => Promise<unknown>,
  ): Promise<unknown> {
    // After a stop, a join would make a member no one leaves (kafkajs issue #1639).
    if (this.abandoned) throw stoppedError(this.groupId);
    this.unanswered = broker;
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
    } finally {
      if (this.unanswered === broker) this.unanswered = undefined;
    }
  }

  private own(memberId: string): void {
    if (memberId === '' || memberId === this.memberId) return;
    this.memberId = memberId;
    this.onMemberId(memberId);
  }
}

function symbolNamed(object: object, description: string): symbol | undefined {
  for (let o: object | null = object; o; o = Object.getPrototypeOf(o) as object | null) {
    const found = Object.getOwnPropertySymbols(o).find((s) => s.description === description);
    if (found) return found;
  }
  return undefined;
}

function stoppedError(groupId: string): Error {
  const error = new Error(`the broadcast consumer of ${groupId} stopped during its join`);
  error.name = 'KafkaJSBroadcastStopped';
  return error;
}
