import {
  DEFAULT_LOCK_FREE_GROUP_BASE,
  DEFAULT_LOCKED_GROUP_BASE,
} from '../core/options/broadcast.defaults.js';
import type { BroadcastDispatcher } from '../core/dispatch/broadcast.dispatcher.js';
import type { BroadcastHeartbeat } from '../core/heartbeat/broadcast.heartbeat.js';
import type { ResolvedBroadcastOptions } from '../core/options/broadcast-options.resolver.js';
import type { EngineReader } from './engine-reader.js';
import type { BroadcastInstrumentation } from '../interfaces/broadcast-instrumentation.interface.js';
import type { BroadcastLogger } from '../interfaces/broadcast-logger.interface.js';
import { loadInstrumentation } from '../telemetry/load-instrumentation.js';

/** The parts of an engine its telemetry reads from. */
export interface InstrumentedParts {
  reader: EngineReader;
  heartbeat: BroadcastHeartbeat;
  dispatcher: BroadcastDispatcher;
}

/**
 * Loads the engine's instrumentation (a dynamic import, so the constructor starts it in the
 * background and start() waits for it); the publisher and the dispatcher read it from the engine.
 */
export async function instrumentEngine(
  given: BroadcastInstrumentation | false | undefined,
  o: ResolvedBroadcastOptions,
  parts: InstrumentedParts,
  logger: BroadcastLogger,
): Promise<BroadcastInstrumentation> {
  const { reader, heartbeat, dispatcher } = parts;
  return loadInstrumentation(
    given,
    {
      instanceId: o.instanceId,
      topicPrefix: o.topicPrefix,
      groupId: () => reader.groupId,
      status: () => reader.status(),
      heartbeats: () => ({ sent: heartbeat.sent, received: dispatcher.counters().heartbeats }),
      // The allocator's base: it depends on the lock mode, known once the locks are bound.
      pool: () => ({
        name:
          o.topicPrefix +
          (o.groupBaseName ??
            (reader.status().lockMode === 'none'
              ? DEFAULT_LOCK_FREE_GROUP_BASE
              : DEFAULT_LOCKED_GROUP_BASE)),
        maxGroups: o.maxGroups,
      }),
      maxStalenessMs: o.heartbeat ? o.maxStalenessMs : undefined,
    },
    logger,
    o.telemetry,
  );
}
