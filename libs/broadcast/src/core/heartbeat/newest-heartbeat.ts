import type { BroadcastLogger } from '../../interfaces/broadcast-logger.interface.js';
import type { KafkaAdminPort, TopicOffsets } from '../../interfaces/kafka-port.interface.js';
import { errorMessage } from '../../shared/async.utils.js';
import { logStartOffsets } from '../../shared/log-start-offsets.js';

/**
 * Freshness known at start. An instance starts reading at the high watermarks, so on an idle
 * cluster it would learn how fresh its view is only from the next heartbeat, up to
 * interval × (1 + jitter) after it is ready, and health would say "no broadcast received yet"
 * meanwhile. Instead the start snapshot of the heartbeat topic is moved back one record per
 * partition: the newest heartbeat already in the log is read right after the join. Its timestamp
 * bounds the view's age (everything up to the snapshot is behind us), and it counts as heard when
 * it was sent, so the heartbeat roles see the sender that is alive (or long gone). Only heartbeat
 * records are read again, and heartbeats reach no handler: no broadcast is replayed.
 */
export class NewestHeartbeat {
  /** `partition@offset` of the records read from before the start, each recognised once. */
  private readonly fromBefore = new Set<string>();
  /** The heartbeat topic's high watermarks in the start snapshot, before include() moved them. */
  private startHighs: ReadonlyMap<number, string> | undefined;

  constructor(
    /** The full heartbeat topic, or undefined when heartbeats are off. */
    private readonly topic: string | undefined,
    private readonly admin: KafkaAdminPort,
    private readonly logger: BroadcastLogger,
  ) {}

  /** The start snapshot, each heartbeat partition that holds a record moved back to its newest. */
  async include(snapshot: TopicOffsets): Promise<TopicOffsets> {
    const highs = this.topic === undefined ? undefined : snapshot.get(this.topic);
    if (!highs || this.topic === undefined) return snapshot;
    this.startHighs = new Map(highs);
    // An empty log (high 0) holds no heartbeat to go back to: no request.
    if ([...highs.values()].every((high) => BigInt(high) <= 0n)) return snapshot;
    let lows;
    try {
      // The highs are the snapshot's: only the log starts are read (one ListOffsets where the
      // client can; offsetBounds read both, after a Metadata on kafkajs).
      lows = await logStartOffsets(this.admin, this.topic);
    } catch (error) {
      // Freshness then comes with the next heartbeat, as without this.
      this.logger.debug?.(`Could not read the heartbeat topic's bounds: ${errorMessage(error)}`);
      return snapshot;
    }
    for (const [partition, high] of highs) {
      const low = lows.get(partition);
      if (low === undefined || BigInt(high) <= BigInt(low)) continue;
      const newest = String(BigInt(high) - 1n);
      highs.set(partition, newest);
      this.fromBefore.add(`${partition}@${newest}`);
    }
    return snapshot;
  }

  /**
   * Whether a heartbeat was appended after the start snapshot (one ListOffsets): another
   * instance heartbeats now, though its record may not have been handed over here yet. Asked by
   * a newcomer just before its first send (see BroadcastHeartbeat): where records take longer
   * to arrive than a newcomer's window (a loaded host), every newcomer of a fleet starting
   * together sent one (54 to 107 in a fleet of 200 starting on an empty heartbeat topic).
   * False before a snapshot, with heartbeats off, or when the topic is not in the snapshot.
   */
  async sentSinceStart(): Promise<boolean> {
    const start = this.startHighs;
    if (this.topic === undefined || start === undefined) return false;
    const latest = (await this.admin.latestOffsets([this.topic])).get(this.topic);
    for (const [partition, high] of latest ?? [])
      if (BigInt(high) > BigInt(start.get(partition) ?? '0')) return true;
    return false;
  }

  /** Whether this heartbeat record is one that include() reached back for (true once). */
  fromBeforeStart(partition: number, offset: string): boolean {
    return this.fromBefore.delete(`${partition}@${offset}`);
  }
}
