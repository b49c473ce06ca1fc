import type { BroadcastLogger } from '../../../interfaces/broadcast-logger.interface.js';
import type {
  LiveGroupMember,
  RosterEvent,
  RosterInstance,
} from '../../../interfaces/broadcast-roster.interface.js';
import type { KafkaAdminPort } from '../../../interfaces/kafka-port.interface.js';
import { errorMessage, pause } from '../../../shared/async.utils.js';
import { DuplicateInstanceIds } from './duplicate-instances.js';
import { decodeMemberInfo } from './member-info.js';

export interface RosterSettings {
  topicPrefix: string;
  /** Poll period while running, in ms; 0: refreshed only on demand (refresh()). */
  intervalMs: number;
  /**
   * Look once at start for another live instance with this instance's id. Only a chosen id can
   * be shared (the default one is random), and every look describes every pool group: a fleet
   * of N starting together would describe N² groups for nothing.
   */
  lookAtStart?: boolean;
}

/** Called with the instance that joined or left. */
export type RosterListener = (instance: RosterInstance) => void;

/**
 * The instances live now, read from the broker: every live instance is the only member of one
 * pool group, and writes its instance id into its membership's user data. One refresh is one
 * ListGroups and one DescribeGroups, whatever the number of instances; nothing is published.
 * A new instance appears as soon as it joined its group (before it is ready); a crashed one
 * disappears when its member expires (consumer.sessionTimeoutMs).
 */
export class BroadcastRoster {
  private current = new Map<string, RosterInstance>();
  private refreshedAt: number | undefined;
  private inFlight: Promise<readonly RosterInstance[]> | undefined;
  private readonly listeners = {
    join: new Set<RosterListener>(),
    leave: new Set<RosterListener>(),
  };
  private running: Promise<void> | undefined;
  /** start() was called: the engine is up. */
  private started = false;
  /** Someone read the roster, listened to it or refreshed it: worth polling from then on. */
  private demanded = false;
  private readonly abort = new AbortController();
  private readonly duplicates: DuplicateInstanceIds;
  /** The latest look of recent() or look(), which does not count as a refresh. */
  private looked: { at: number; instances: RosterInstance[] } | undefined;
  /** The look begun in this turn of the event loop (see look()). */
  private turnLook: Promise<readonly RosterInstance[]> | undefined;

  /** @internal Built by BroadcastEngine; inject the instance (Nest) or read it from the engine. */
  constructor(
    private readonly settings: RosterSettings,
    private readonly admin: KafkaAdminPort,
    private readonly logger: BroadcastLogger,
  ) {
    this.duplicates = new DuplicateInstanceIds(logger);
  }

  /** Whether the Kafka client can list group members (the bundled kafkajs adapter can). */
  get supported(): boolean {
    return typeof this.admin.liveMembers === 'function';
  }

  /** The instances seen by the latest refresh, by instance id. */
  instances(): RosterInstance[] {
    this.demand();
    return [...this.current.values()].sort((a, b) => a.instanceId.localeCompare(b.instanceId));
  }

  /** When the latest refresh completed (epoch ms), or undefined before the first. */
  get lastRefreshAt(): number | undefined {
    return this.refreshedAt;
  }

  /** Calls `listener` for every instance that appears (`join`) or disappears (`leave`). */
  on(event: RosterEvent, listener: RosterListener): () => void {
    this.listeners[event].add(listener);
    this.demand();
    return () => this.listeners[event].delete(listener);
  }

  /**
   * The live instances as of at most `maxAgeMs` ago, without starting the roster's polling: the
   * latest refresh when recent enough, else one look at the broker (kept for the next caller).
   */
  async recent(maxAgeMs: number): Promise<readonly RosterInstance[]> {
    const now = Date.now();
    if (this.refreshedAt !== undefined && now - this.refreshedAt <= maxAgeMs)
      return [...this.current.values()];
    if (this.looked && now - this.looked.at <= maxAgeMs) return this.looked.instances;
    const { next, seenAt } = await this.read();
    this.looked = { at: seenAt, instances: [...next.values()] };
    return this.looked.instances;
  }

  /**
   * A look at the broker begun now, for a receipt: the instances live as the broker answers it.
   * Never one begun earlier (a refresh under way may have listed the groups before an instance
   * that is ready by now had joined); the looks asked for in one turn of the event loop share
   * one. It does not start the polling, nor change instances() or fire join and leave; recent()
   * reuses it.
   */
  look(): Promise<readonly RosterInstance[]> {
    if (this.turnLook) return this.turnLook;
    const look = this.read().then(({ next, seenAt }) => {
      const instances = [...next.values()];
      if (!this.looked || this.looked.at <= seenAt) this.looked = { at: seenAt, instances };
      return instances;
    });
    this.turnLook = look;
    setImmediate(() => {
      if (this.turnLook === look) this.turnLook = undefined;
    });
    return look;
  }

  /**
   * The live instances for a receipt with `expected: 'roster'`: the latest refresh (or look)
   * when at most two poll periods old, else a look begun now (look()). Starts the polling, so
   * later calls find a recent refresh; with polling off (intervalMs 0) it is always a look.
   */
  view(): Promise<readonly RosterInstance[]> {
    this.demand();
    const maxAgeMs = 2 * this.settings.intervalMs;
    const now = Date.now();
    if (maxAgeMs > 0 && this.refreshedAt !== undefined && now - this.refreshedAt <= maxAgeMs)
      return Promise.resolve([...this.current.values()]);
    if (maxAgeMs > 0 && this.looked && now - this.looked.at <= maxAgeMs)
      return Promise.resolve(this.looked.instances);
    return this.look();
  }

  /** Asks the broker now; concurrent callers share one request. */
  refresh(): Promise<readonly RosterInstance[]> {
    this.demand();
    this.inFlight ??= this.query().finally(() => (this.inFlight = undefined));
    return this.inFlight;
  }

  /**
   * Polls every intervalMs until stop(), from the first use of the roster on: every refresh
   * describes every pool group, so N instances that all polled unasked would cost the broker
   * N² member descriptions per period.
   */
  start(): void {
    this.started = true;
    this.pollIfWanted();
    // One look once ready, polling or not, when the instance id was chosen: another live
    // instance with it is warned about at once (see DuplicateInstanceIds). One ListGroups and
    // DescribeGroups per start; the roster itself (and its join events) is left to the first use.
    if (this.settings.lookAtStart !== false && this.supported && !this.running)
      void this.read().catch(() => undefined);
  }

  private demand(): void {
    if (this.demanded) return;
    this.demanded = true;
    this.pollIfWanted();
  }

  private pollIfWanted(): void {
    if (
      this.started &&
      this.demanded &&
      this.settings.intervalMs > 0 &&
      this.supported &&
      !this.running &&
      !this.abort.signal.aborted
    )
      this.running = this.poll();
  }

  /** Stops polling. A refresh in flight is not awaited (it may hang while the broker is away). */
  stop(): Promise<void> {
    this.abort.abort();
    return Promise.resolve();
  }

  private async poll(): Promise<void> {
    for (let failures = 0; !this.abort.signal.aborted;) {
      try {
        await this.refresh();
        failures = 0;
      } catch (error) {
        if (this.abort.signal.aborted) return;
        if (failures++ === 0)
          this.logger.warn(`Could not refresh the broadcast roster: ${errorMessage(error)}`, {
            reason: errorMessage(error),
          });
      }
      await pause(this.settings.intervalMs, this.abort.signal);
    }
  }

  private async query(): Promise<readonly RosterInstance[]> {
    const { next, seenAt } = await this.read();
    const previous = this.current;
    this.current = next;
    this.refreshedAt = seenAt;
    for (const [id, instance] of next) if (!previous.has(id)) this.emit('join', instance);
    for (const [id, instance] of previous) if (!next.has(id)) this.emit('leave', instance);
    return this.instances();
  }

  /** The live instances by id, from one ListGroups and DescribeGroups. */
  private async read(): Promise<{ next: Map<string, RosterInstance>; seenAt: number }> {
    if (!this.admin.liveMembers) throw new Error('this Kafka client cannot list group members');
    const members = await this.admin.liveMembers(this.settings.topicPrefix);
    const seenAt = Date.now();
    const next = new Map<string, RosterInstance>();
    for (const member of members) {
      const instance = this.toInstance(member, seenAt);
      if (!instance) continue;
      // An instance moving between groups, or rejoining after a crash, can briefly have two
      // members: it is still one instance. Two instances given one id are warned about.
      const seen = next.get(instance.instanceId);
      if (!seen) next.set(instance.instanceId, instance);
      else this.duplicates.check(seen, instance);
    }
    return { next, seenAt };
  }

  private toInstance(member: LiveGroupMember, seenAt: number): RosterInstance | undefined {
    const info = decodeMemberInfo(member.userData);
    if (!info) return undefined;
    const { topicPrefix } = this.settings;
    const name = member.groupId.slice(topicPrefix.length);
    const dash = name.lastIndexOf('-');
    return {
      instanceId: info.id,
      service: name.slice(0, dash),
      groupId: member.groupId,
      lockId: Number(name.slice(dash + 1)),
      libraryVersion: info.v,
      topics: member.topics
        .filter((t) => t.startsWith(topicPrefix))
        .map((t) => t.slice(topicPrefix.length)),
      since: info.since,
      receipts: info.r !== 0,
      lastSeen: seenAt,
    };
  }

  private emit(event: RosterEvent, instance: RosterInstance): void {
    for (const listener of this.listeners[event]) {
      try {
        listener(instance);
      } catch (error) {
        this.logger.error(
          `Broadcast roster ${event} listener failed: ${errorMessage(error)}`,
          undefined,
          { reason: errorMessage(error) },
        );
      }
    }
  }
}
