import type { BroadcastLogger } from '../../interfaces/broadcast-logger.interface.js';
import {
  ABORTED,
  backoffDelay,
  errorMessage,
  pause,
  settleUnlessAborted,
} from '../../shared/async.utils.js';
import { ArrivalLateness } from './arrival-lateness.js';
import {
  BACKUP_GUARD,
  heartbeatDelay,
  type HeartbeatRole,
  heartbeatWait,
  spreadPosition,
} from './heartbeat-timing.js';
import { StaleSender } from './stale-sender.js';

export interface HeartbeatSettings {
  intervalMs: number;
  jitter: number;
  /** Full topic name, prefix included. */
  topic: string;
  instanceId: string;
  /** Health's bound (health.maxStalenessMs): backups replace a sender whose records look older. */
  maxStalenessMs: number;
}

export interface HeartbeatSource {
  /**
   * When the newest message on any broadcast topic (heartbeats included) counts as received,
   * in this host's clock: the engine's notion of freshness, passed in so that it is defined
   * in one place.
   */
  newestTimestamp(): number | undefined;
  /** Heartbeats received so far, this instance's own included. */
  heartbeatsReceived(): number;
  /** When the latest heartbeat (anyone's) was handed over here, in this host's clock. */
  lastHeartbeatAt(): number | undefined;
  /** The latest heartbeat's own record timestamp, in its sender's clock: not clamped. */
  lastHeartbeatTimestamp(): number | undefined;
  groupId(): string | undefined;
  /**
   * Whether another instance's heartbeat reached the topic after this instance's start, read or
   * not (see NewestHeartbeat.sentSinceStart); asked by a newcomer each time it is about to send.
   */
  sentSinceStart?(): Promise<boolean>;
}

/** Longest a newcomer waits for the topic to say whether a heartbeat came since its start. */
const ASK_TIMEOUT_MS = 2_000;

/** The heartbeat record, as JSON on the heartbeat topic. */
export interface HeartbeatPayload {
  groupId: string | undefined;
  instanceId: string;
  sentAt: number;
}

/**
 * Keeps broadcast traffic flowing so every instance can tell how fresh its view is, with
 * about one heartbeat per interval for the whole cluster whatever its size: the incumbent
 * sends, the others listen and only take over when it falls silent (see HeartbeatRole).
 */
export class BroadcastHeartbeat {
  sent = 0;
  private lastSent: number | undefined;
  /** heartbeatsReceived() when our last heartbeat left: at most one more (our echo) = incumbent. */
  private receivedAtSend: number | undefined;
  private staysAfterCollision: boolean | undefined;
  /** A sender whose clock is well ahead of ours was heard since our last send (see StaleSender). */
  private outpaced = false;
  private running: Promise<void> | undefined;
  private readonly abort = new AbortController();
  /**
   * When the oldest heartbeat send not acknowledged since the last acknowledged one began:
   * a send in flight, or the first of a run of failed ones. Undefined while Kafka answers.
   */
  private unansweredSince: number | undefined;

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

  /** Stops at once: a send in flight is abandoned (its retries are the producer's business). */
  async stop(): Promise<void> {
    this.abort.abort();
    await this.running;
  }

  /**
   * How long this instance's heartbeats have gone unacknowledged by Kafka, in ms (a send in
   * flight counts from its start); undefined while the last send was acknowledged or none is
   * under way. Readiness tells from it a Kafka that cannot be reached from here (it cannot take
   * the heartbeat either) from an instance that falls behind while Kafka serves the others.
   */
  kafkaUnansweredMs(now = Date.now()): number | undefined {
    return this.unansweredSince === undefined ? undefined : Math.max(0, now - this.unansweredSince);
  }

  /** Incumbent, backup or newcomer, from what was sent and received (see HeartbeatRole). */
  role(started: {
    newest: number | undefined;
    received: number;
    knewLiveSender?: boolean;
  }): HeartbeatRole {
    const received = this.source.heartbeatsReceived();
    if (this.receivedAtSend !== undefined) {
      // Our records look stale next to that sender's, which is why it took over: it stays.
      if (this.outpaced) return 'backup';
      // Our own echo may still be on its way (0) or back (1); more came from others too.
      const since = received - this.receivedAtSend;
      if (since <= 1) return 'incumbent';
      // k senders collided; none can tell which heartbeat was its own, so each stays on with
      // probability 1/k: about one incumbent survives, and a round without any falls back to
      // the backups' takeover. Drawn once per own send: later heartbeats (someone else's
      // rounds) must not give a stepped-down instance new chances to come back.
      this.staysAfterCollision ??= this.random() * since < 1;
      return this.staysAfterCollision ? 'incumbent' : 'backup';
    }
    const heardNothing =
      received === started.received && this.source.newestTimestamp() === started.newest;
    return heardNothing && !started.knewLiveSender ? 'newcomer' : 'backup';
  }

  /**
   * The topic's answer to sentSinceStart, false when the source cannot tell, the ask fails, or
   * it takes longer than ASK_TIMEOUT_MS (a broker away must not hold the send back: the send is
   * what kafkaUnansweredMs counts from). Returns at once when stopped; leaves no timer.
   */
  private async sentSinceStart(signal: AbortSignal): Promise<boolean> {
    if (!this.source.sentSinceStart) return false;
    const settled = new AbortController();
    const answer = this.source.sentSinceStart().catch(() => false);
    const waited = pause(ASK_TIMEOUT_MS, AbortSignal.any([signal, settled.signal]));
    try {
      return await Promise.race([answer, waited.then(() => false)]);
    } finally {
      settled.abort();
    }
  }

  /**
   * The random draw is made once per quiet period (redrawn only when something is sent or
   * received): redrawing on every wake-up would drift every instance towards the end of its
   * window, bunching their sends together.
   */
  private async loop(settings: HeartbeatSettings): Promise<void> {
    const { signal } = this.abort;
    const startedAt = Date.now();
    const newestAtStart = this.source.newestTimestamp();
    const started = {
      newest: newestAtStart,
      received: this.source.heartbeatsReceived(),
      // What it knew at start (the log's newest heartbeat, read before ready, or traffic since)
      // is younger than one interval: a sender is alive, so this instance waits as a backup.
      // A newcomer's short window alone sent one heartbeat per start in a fleet whose starts
      // spread over more than that window (54 for 200 instances in a fleet bench run).
      knewLiveSender:
        newestAtStart !== undefined && startedAt - newestAtStart < settings.intervalMs,
    };
    // When the latest heartbeat arrived here, in this host's clock. A backup counts its quiet
    // period from there, not from the sender's timestamp: a delivery delay that is the same for
    // every heartbeat then shifts both ends alike, and only its variation (`lateness`) matters.
    const heard = { count: started.received, at: startedAt };
    const lateness = new ArrivalLateness(settings.intervalMs);
    const stale = new StaleSender(settings.intervalMs, settings.maxStalenessMs);
    const pollMs = Math.max(20, (BACKUP_GUARD * settings.jitter * settings.intervalMs) / 2);
    let anchor = this.lastActivity(startedAt, heard.at);
    let draw = this.random();
    for (let failures = 0; !signal.aborted;) {
      const count = this.source.heartbeatsReceived();
      if (count !== heard.count) {
        // A heartbeat reached us through Kafka (no send of ours is in flight here): Kafka
        // answers again, even if we, a backup now, send nothing more.
        this.unansweredSince = undefined;
        heard.count = count;
        heard.at = this.source.lastHeartbeatAt() ?? Date.now();
        lateness.heard(heard.at);
        const stamp = this.source.lastHeartbeatTimestamp();
        if (stamp !== undefined && stale.outpaces(stamp, heard.at)) this.outpaced = true;
      }
      const activity = this.lastActivity(startedAt, heard.at);
      if (activity !== anchor) [anchor, draw] = [activity, this.random()];
      const role = this.role(started);
      const want =
        heartbeatWait(role, draw, settings.intervalMs, settings.jitter) +
        (role === 'backup' ? lateness.holdBackMs : 0);
      // The incumbent counts from its own send: what it hears is mostly its own echo.
      const newest = this.source.newestTimestamp();
      const quietSince = role === 'incumbent' ? newest : Math.max(newest ?? -Infinity, heard.at);
      const now = Date.now();
      let delay = heartbeatDelay(now, quietSince, this.lastSent ?? startedAt, want);
      // A backup also judges quiet by health's measure: a sender whose records look stale (its
      // clock lags) is replaced however regularly they arrive.
      if (role === 'backup' && newest !== undefined)
        delay = Math.min(delay, stale.takeoverAtMs(spreadPosition(draw)) - (now - newest));
      if (delay > 0) {
        // Backups look out for heartbeats while they wait, to know when they arrived.
        await pause(role === 'backup' ? Math.min(delay, pollMs) : delay, signal);
        continue;
      }
      // A timer that fires after the event loop was busy runs before the socket reads that
      // were waiting meanwhile: let those reads land, then look again, before taking over.
      if (role !== 'incumbent') {
        await new Promise((resolve) => setImmediate(resolve));
        if (this.source.heartbeatsReceived() !== count || this.source.newestTimestamp() !== newest)
          continue;
      }
      // A newcomer whose window ended before another's heartbeat reached it: if one is on the
      // topic already, its sender is alive and its record on the way, so wait for it as a backup.
      if (role === 'newcomer' && (await this.sentSinceStart(signal))) {
        started.knewLiveSender = true;
        continue;
      }
      if (signal.aborted) return;
      const receivedBefore = this.source.heartbeatsReceived();
      // The period runs from send to send: the broker's acknowledgement time is not added to it.
      const sentAt = Date.now();
      this.unansweredSince ??= sentAt;
      const outcome = await settleUnlessAborted(
        this.send(settings.topic, {
          groupId: this.source.groupId(),
          instanceId: settings.instanceId,
          sentAt,
        }),
        signal,
      );
      if (outcome === ABORTED) return;
      if (outcome.ok) {
        this.unansweredSince = undefined;
        this.lastSent = sentAt;
        this.receivedAtSend = receivedBefore;
        this.staysAfterCollision = undefined;
        this.outpaced = false;
        this.sent++;
        failures = 0;
        continue;
      }
      if (failures++ === 0)
        this.logger.warn(`Could not send a broadcast heartbeat: ${errorMessage(outcome.error)}`, {
          topic: settings.topic,
          reason: errorMessage(outcome.error),
        });
      await pause(backoffDelay(failures, 500, settings.intervalMs), signal);
    }
  }

  private lastActivity(startedAt: number, heardAt: number): number {
    return Math.max(
      this.source.newestTimestamp() ?? -Infinity,
      this.lastSent ?? startedAt,
      heardAt,
    );
  }
}
