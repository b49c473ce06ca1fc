import { Controller, Get, Inject } from '@nestjs/common';
import {
  BroadcastEngine,
  BroadcastHeartbeat,
  BroadcastReader,
  BroadcastRoster,
} from 'nestjs-kafka-broadcast';
import { EvictionLog } from '../cache/eviction-log.js';
import { ProductCache } from '../cache/product-cache.js';
import { DEMO_CONFIG, type DemoConfig } from '../config.js';
import { ProductsStore } from '../products/products.store.js';

/** `GET /broadcast/status`: this instance's consumer group, lock, counters and recent evictions. */
@Controller('broadcast')
export class BroadcastStatusController {
  constructor(
    @Inject(BroadcastEngine) private readonly engine: BroadcastEngine,
    private readonly reader: BroadcastReader,
    private readonly heartbeat: BroadcastHeartbeat,
    private readonly rosterView: BroadcastRoster,
    private readonly evictions: EvictionLog,
    private readonly cache: ProductCache,
    private readonly store: ProductsStore,
    @Inject(DEMO_CONFIG) private readonly config: DemoConfig,
  ) {}

  @Get('status')
  status() {
    const status = this.reader.status();
    return {
      instance: this.config.instanceName,
      pid: process.pid,
      state: status.state,
      group: status.groupId ?? null,
      lockId: status.lockId ?? null,
      lockMode: status.lockMode,
      /** While not ready: 'kafka', 'pool' (every id of maxGroups held) or 'group'; else null. */
      waitingFor: status.waitingFor ?? (status.poolExhausted ? 'pool' : null),
      poolExhausted: status.poolExhausted,
      /** Why the reader cannot read although retrying (e.g. a missing ACL), or null. */
      problem: status.problem ?? null,
      store: this.store.kind,
      /** Now − the newest message timestamp seen (heartbeats included), in ms. */
      lastLatencyMs: status.lastLatencyMs ?? null,
      maxStalenessMs: this.engine.options.maxStalenessMs,
      received: status.received,
      failed: status.failed,
      skipped: status.skipped,
      heartbeats: {
        received: status.heartbeats,
        sent: this.heartbeat.sent,
        /** incumbent (sending), backup (listening) or newcomer (nothing heard or sent yet). */
        role: this.heartbeat.role(),
      },
      cacheSize: this.cache.size,
      evictions: {
        total: this.evictions.total,
        lastLatencyMs: this.evictions.lastLatencyMs ?? null,
        recent: this.evictions.list(),
      },
    };
  }

  /**
   * `GET /broadcast/roster`: the instances reading now, as a publisher asking for receipts sees
   * them (a group in the middle of a rebalance lists no instance until it settles).
   */
  @Get('roster')
  async roster() {
    const instances = await this.rosterView.refresh();
    return { instances: instances.map((i) => i.instanceId).sort() };
  }
}
