import type { BroadcastLogger } from '../interfaces/broadcast-logger.interface.js';
import { backoffDelay, errorMessage, pause } from '../shared/async.utils.js';

export interface HeartbeatSettings {
  intervalMs: number;
  jitter: number;
  /** Full topic name, prefix included. */
  topic: string;
  instanceId: string;
}

export interface HeartbeatSource {
  /** Newest message timestamp received on any broadcast topic (heartbeats included). */
  newestTimestamp(): number | undefined;
  groupId(): string | undefined;
}

/** The heartbeat record, as JSON on the heartbeat topic. */
export interface HeartbeatPayload {
  groupId: string | undefined;
  instanceId: string;
  sentAt: number;
}

/**
 * Milliseconds to wait before the next heartbeat, 0 meaning "send now". The quiet gap is
 * the shorter of "since anything was received" and "since we sent", so one heartbeat from
 * any instance silences the others: about one per interval for the whole cluster.
 */
export function heartbeatDelay(
  now: number,
  newest: number | undefined,
  lastSent: number | undefined,
  wantMs: number,
) {
  // A timestamp from the future (clock skew between hosts) counts as just now, not later.
  const sinceReceived = newest === undefined ? Infinity : Math.max(0, now - newest);
  const sinceSent = lastSent === undefined ? Infinity : now - lastSent;
  return Math.max(0, wantMs - Math.min(sinceReceived, sinceSent));
}

/** Keeps broadcast traffic flowing so every instance can tell how fresh its view is. */
export class BroadcastHeartbeat {
  sent = 0;
  private lastSent: number | undefined;
  private running: Promise<void> | undefined;
  private readonly abort = new AbortController();

  /** @internal Built by BroadcastEngine; inject the instance (Nest) or read it from the engine. */
  constructor(
    private readonly settings: HeartbeatSettings | false,
    private readonly source: HeartbeatSource,
    private readonly send: (topic: string, payload: HeartbeatPayload) => Promise<void>,
    private readonly logger: BroadcastLogger,
    private readonly random: () => number = Math.random,
  ) {}

  start(): void {
    if (this.settings && !this.running && !this.abort.signal.aborted)
      this.running = this.loop(this.settings);
  }

  async stop(): Promise<void> {
    this.abort.abort();
    await this.running;
  }

  /**
   * The random wait is drawn once per quiet period (redrawn only when something is sent or
   * received): redrawing on every wake-up would drift every instance towards the full
   * interval, bunching their sends together.
   */
  private async loop(settings: HeartbeatSettings): Promise<void> {
    const { signal } = this.abort;
    const draw = () => settings.intervalMs * (1 - this.random() * settings.jitter);
    let anchor = this.lastActivity();
    let want = draw();
    for (let failures = 0; !signal.aborted;) {
      const activity = this.lastActivity();
      if (activity !== anchor) [anchor, want] = [activity, draw()];
      const delay = heartbeatDelay(Date.now(), this.source.newestTimestamp(), this.lastSent, want);
      if (delay > 0) {
        await pause(delay, signal);
        continue;
      }
      try {
        await this.send(settings.topic, {
          groupId: this.source.groupId(),
          instanceId: settings.instanceId,
          sentAt: Date.now(),
        });
        this.lastSent = Date.now();
        this.sent++;
        failures = 0;
      } catch (error) {
        if (failures++ === 0)
          this.logger.warn(`Could not send a broadcast heartbeat: ${errorMessage(error)}`);
        await pause(backoffDelay(failures, 500, settings.intervalMs), signal);
      }
    }
  }

  private lastActivity(): number {
    return Math.max(this.source.newestTimestamp() ?? -Infinity, this.lastSent ?? -Infinity);
  }
}
