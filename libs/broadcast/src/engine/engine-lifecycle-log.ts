import type { BroadcastLogger } from '../interfaces/broadcast-logger.interface.js';
import type { BroadcastStatus } from '../interfaces/broadcast-status.interface.js';
import type { KafkaPortAbout } from '../interfaces/kafka-port.interface.js';

type Claimed = Pick<BroadcastStatus, 'groupId' | 'lockId' | 'lockMode'>;

/**
 * The engine's two lifecycle lines, with their facts as fields: one when it first became ready
 * (group, lock, client, group protocol, how long start-up took) and one when stop() finished
 * (the group left, the lock released, how long stopping took). The ready line keeps the
 * "Reading broadcasts through consumer group <id>" wording the reader uses after a recovery.
 */
export class EngineLifecycleLog {
  constructor(
    private readonly logger: BroadcastLogger,
    private readonly about: () => KafkaPortAbout | undefined,
  ) {}

  ready(status: Claimed, startedAt: number): void {
    const startMs = Date.now() - startedAt;
    const { client, groupProtocol } = this.about() ?? {};
    const via = client
      ? `; client ${client}${groupProtocol ? `, ${groupProtocol} protocol` : ''}`
      : '';
    this.logger.log(
      `Reading broadcasts through consumer group ${status.groupId} (ready in ${startMs} ms; ${lockText(status)}${via})`,
      { ...claimedFields(status), client, groupProtocol, startMs },
    );
  }

  stopped(before: Claimed, stoppingAt: number): void {
    const stopMs = Date.now() - stoppingAt;
    const what =
      before.groupId === undefined
        ? 'no consumer group was held'
        : `left consumer group ${before.groupId}, ${before.lockMode === 'none' ? 'lock-free' : `released advisory lock ${before.lockId} (${before.lockMode})`}`;
    this.logger.log(`Broadcast engine stopped in ${stopMs} ms: ${what}`, {
      ...claimedFields(before),
      stopMs,
    });
  }
}

function lockText({ lockMode, lockId }: Claimed): string {
  return lockMode === 'none' ? 'lock-free' : `advisory lock ${lockId} (${lockMode})`;
}

function claimedFields({ groupId, lockId, lockMode }: Claimed) {
  return { group: groupId, lockId, lockMode };
}
