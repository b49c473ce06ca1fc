import type { BroadcastHeartbeat as HeartbeatCore } from '../core/heartbeat/broadcast.heartbeat.js';
import type { HeartbeatRole } from '../core/heartbeat/heartbeat-timing.js';

/**
 * What the heartbeat shows: this instance's role among the senders and how fresh its view of
 * the topics is. Injectable (`BroadcastModule` provides it). A view only: heartbeats start once
 * the reader is ready and stop with the engine.
 */
export abstract class BroadcastHeartbeat {
  /** False with `heartbeat: false`: nothing is sent, and freshness is not measured. */
  abstract get enabled(): boolean;

  /** Heartbeats this instance sent. */
  abstract get sent(): number;

  /**
   * `incumbent` while this instance's heartbeat is the latest, `backup` while it listens to
   * another's (or stepped down after a collision), `newcomer` while it has heard and sent none.
   */
  abstract role(): HeartbeatRole;

  /** Now minus the newest broadcast seen (heartbeats included); undefined before the first. */
  abstract get lastLatencyMs(): number | undefined;

  /** True while heartbeats are on and the newest broadcast is no older than `maxStalenessMs`. */
  abstract get fresh(): boolean;
}

/** @internal What the heartbeat view reads beside the heartbeat itself. */
export interface HeartbeatViewSource {
  enabled: boolean;
  maxStalenessMs: number;
  lastLatencyMs(): number | undefined;
}

/** Before its first send the role is judged against nothing heard yet (see BroadcastHeartbeat). */
const FROM_THE_START = { newest: undefined, received: 0 };

/** The view the Nest module injects: it reaches the heartbeat through these reads only. */
class HeartbeatView extends BroadcastHeartbeat {
  readonly #heartbeat: HeartbeatCore;
  readonly #source: HeartbeatViewSource;

  constructor(heartbeat: HeartbeatCore, source: HeartbeatViewSource) {
    super();
    this.#heartbeat = heartbeat;
    this.#source = source;
  }

  get enabled(): boolean {
    return this.#source.enabled;
  }

  get sent(): number {
    return this.#heartbeat.sent;
  }

  role(): HeartbeatRole {
    return this.#heartbeat.role(FROM_THE_START);
  }

  get lastLatencyMs(): number | undefined {
    return this.#source.lastLatencyMs();
  }

  get fresh(): boolean {
    const latency = this.lastLatencyMs;
    return this.enabled && latency !== undefined && latency <= this.#source.maxStalenessMs;
  }
}

/** @internal The read-only view of the engine's heartbeat. */
export function heartbeatView(
  heartbeat: HeartbeatCore,
  source: HeartbeatViewSource,
): BroadcastHeartbeat {
  return Object.freeze(new HeartbeatView(heartbeat, { ...source }));
}
