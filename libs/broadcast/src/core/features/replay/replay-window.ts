import type { BroadcastLogger } from '../../../interfaces/broadcast-logger.interface.js';
import type { KafkaAdminPort, TopicOffsets } from '../../../interfaces/kafka-port.interface.js';
import { pause } from '../../../shared/async.utils.js';
import type { ReadPositions } from '../../positions/read-positions.js';

/** How often start() looks whether the replayed records have been handed over. */
const CATCH_UP_POLL_MS = 10;

/**
 * The opt-in replay window at start: for the configured topics, the start snapshot is the
 * first offset at or after `now − window` (offsets by timestamp) instead of the high
 * watermark. Everything else is the engine's usual start: the snapshot is taken before the
 * join and every assignment seeks there, so nothing after it can be skipped either.
 */
export class ReplayWindow {
  /** Full topic → partition → high watermark at the snapshot, where something is replayed. */
  private targets: TopicOffsets = new Map();

  constructor(
    /** Full topic → window in ms. */
    private readonly windows: ReadonlyMap<string, number>,
    private readonly admin: KafkaAdminPort,
    private readonly logger: BroadcastLogger,
  ) {}

  /** The start snapshot: the high watermarks, moved back to `now − window` on replayed topics. */
  async startOffsets(topics: readonly string[]): Promise<TopicOffsets> {
    const latest = await this.admin.latestOffsets(topics);
    if (this.windows.size === 0) return latest;
    const now = Date.now();
    const targets: TopicOffsets = new Map();
    for (const [topic, windowMs] of this.windows) {
      const highs = latest.get(topic);
      if (!highs) continue;
      const fromTime = await this.admin.offsetsForTimestamp(topic, now - windowMs);
      for (const [partition, high] of highs) {
        const from = fromTime.get(partition);
        if (from === undefined || BigInt(from) >= BigInt(high)) continue;
        highs.set(partition, from);
        let partitions = targets.get(topic);
        if (!partitions) targets.set(topic, (partitions = new Map()));
        partitions.set(partition, high);
      }
    }
    this.targets = targets;
    return latest;
  }

  /**
   * Resolves once every replayed partition has been read up to the snapshot's high watermark,
   * every record there handed to the handlers (records published later keep coming as usual), or
   * at `deadline`.
   */
  async caughtUp(positions: ReadPositions, deadline: number, signal: AbortSignal): Promise<void> {
    while (!signal.aborted && !this.isCaughtUp(positions)) {
      if (Date.now() >= deadline) {
        this.logger.warn('The replay window was not read through before the startup deadline.', {
          reason: 'replay window not read through',
        });
        return;
      }
      await pause(CATCH_UP_POLL_MS, signal);
    }
  }

  /**
   * Judged by how far the consumer read, not by the last record handed over: a window that ends
   * in a transaction marker or an aborted transaction has nothing to hand over there, and the
   * client never shows those records (see ReadPositions.reached).
   */
  private isCaughtUp(positions: ReadPositions): boolean {
    for (const [topic, partitions] of this.targets) {
      for (const [partition, high] of partitions) {
        const read = positions.readThrough(topic, partition);
        if (read === undefined || read < BigInt(high)) return false;
      }
    }
    return true;
  }
}
