import type {
  BroadcastLogFields,
  BroadcastLogger,
} from '../../interfaces/broadcast-logger.interface.js';
import type { BroadcastMessage } from '../../interfaces/broadcast-message.interface.js';
import type { IncomingRecord } from '../../interfaces/kafka-port.interface.js';
import { errorMessage } from '../../shared/async.utils.js';
import type { BroadcastHandlerRegistry, RegisteredHandler } from './broadcast-handler.registry.js';
import type { DispatchCounters, DispatcherWiring } from './dispatch-counters.js';
import type { Admission, DispatchGate } from './dispatch-gate.js';
import { HandlerCalls } from './handler-calls.js';
import { isThenable, recordTime, toMessage } from './incoming-message.js';
import { ReadPositions } from '../positions/read-positions.js';

export type { DispatchCounters, DispatcherWiring } from './dispatch-counters.js';

export interface DispatcherSettings {
  topicPrefix: string;
  heartbeatTopic: string;
  handlerTimeoutMs: number;
  /** Retries pending at most (default DEFAULT_MAX_PENDING_RETRIES). */
  maxPendingRetries?: number;
}

/**
 * Turns records into handler calls, and is the one guard of the read positions: a record below
 * the engine's position for its partition (a client's retry, a second fetcher after a leader
 * move, anything older than the start) is refused and counted, never handed over twice.
 * Nothing throws out of the sink, whatever fails inside (a handler, a validator, the logger,
 * the instrumentation): an exception that reached the client would make it fetch the record
 * again (kafkajs retries a batch from its last resolved offset). Malformed values are skipped
 * and counted, failing or hung handlers are contained and counted, so one bad message or
 * handler cannot stop the others.
 */
export class BroadcastDispatcher {
  private received = 0;
  private skipped = 0;
  private heartbeats = 0;
  /** When the latest heartbeat record was handed over, in this host's clock. */
  private lastHeartbeatAt: number | undefined;
  /** The latest heartbeat record's own timestamp, in its sender's clock (not clamped). */
  private lastHeartbeatTimestamp: number | undefined;
  /** Targeted at other instances, skipped before any handler. */
  private filtered = 0;
  /** Failed the topic's schema, skipped before any handler. */
  private invalid = 0;
  /** Below the engine's position (handed over already, or older than the start): refused. */
  private refused = 0;
  /** Exceptions caught around a record here, outside the handler calls. */
  private contained = 0;
  /**
   * Freshness of this instance's view: the newest record timestamp seen, each timestamp
   * clamped to the local receive time. A record stamped in the future (a producer clock
   * ahead) counts as received now and then ages normally; one stamped in the past cannot
   * make the view look fresher than it is. So health and heartbeats cannot be fooled by
   * skew, and a consumer that receives nothing goes stale on time.
   */
  private newestTimestamp: number | undefined;
  private readonly fullHeartbeatTopic: string;
  private readonly logicalTopics = new Map<string, string>();
  private readonly calls: HandlerCalls;
  /** Targeting, validation and receipts. */
  private readonly gate: DispatchGate | undefined;

  constructor(
    private readonly registry: BroadcastHandlerRegistry,
    private readonly settings: DispatcherSettings,
    private readonly logger: BroadcastLogger,
    /** Advanced with every record handed over: where reading got to. */
    readonly positions: ReadPositions = new ReadPositions(),
    /** What the engine hands the dispatcher when it builds it (see DispatcherWiring). */
    private readonly wiring: DispatcherWiring = {},
  ) {
    this.fullHeartbeatTopic = settings.topicPrefix + settings.heartbeatTopic;
    this.gate = wiring.gate;
    const { outlets, instrumentation } = wiring;
    this.calls = new HandlerCalls(settings.handlerTimeoutMs, logger, settings.maxPendingRetries, {
      outlets,
      instrumentation,
    });
  }

  /** Every counter at one moment: what status() and the heartbeat read. */
  counters(): DispatchCounters {
    const calls = this.calls;
    const outlets = this.wiring.outlets;
    return {
      received: this.received,
      heartbeats: this.heartbeats,
      lastHeartbeatAt: this.lastHeartbeatAt,
      lastHeartbeatTimestamp: this.lastHeartbeatTimestamp,
      newestTimestamp: this.newestTimestamp,
      failed: calls.failed,
      skipped: this.skipped,
      filtered: this.filtered,
      invalid: this.invalid,
      refused: this.refused,
      // A logger, instrumentation or validator that threw around a record: contained, counted.
      internalErrors: this.contained + calls.internalErrors,
      retries: calls.retries,
      exhausted: calls.exhausted,
      retriesShed: calls.retriesShed,
      retriesPending: calls.pendingRetries,
      deadLettered: outlets?.deadLettered ?? 0,
      deadLetterFailures: outlets?.deadLetterFailures ?? 0,
      hookFailures: outlets?.hookFailures ?? 0,
      passedOver: this.positions.passedOver,
      rewinds: this.positions.rewinds,
    };
  }

  /** The handler calls and their failure policy: retries, final failures, outlets. */
  get handlerCalls(): HandlerCalls {
    return this.calls;
  }

  /**
   * Waiting retries end as final failures; their hooks and dead letters (and those under way)
   * get at most `boundMs` to settle.
   */
  async stop(boundMs: number): Promise<void> {
    this.calls.stop();
    await this.wiring.outlets?.settled(boundMs);
  }

  readonly sink = (
    fullTopic: string,
    partition: number,
    record: IncomingRecord,
  ): void | Promise<void> => {
    if (!this.positions.admits(fullTopic, partition, record.offset)) return void this.refused++;
    try {
      const pending = this.dispatch(fullTopic, partition, record);
      if (pending) return pending.catch((error: unknown) => this.contain(error, record));
    } catch (error) {
      this.contain(error, record);
    }
  };

  /** Hands a record the guard let through to its handlers (through the gate). */
  private dispatch(
    fullTopic: string,
    partition: number,
    record: IncomingRecord,
  ): void | Promise<void> {
    const timestamp = recordTime(record);
    // Date.now() only when the record could be the newest: the common path stays cheap.
    if (!(timestamp <= (this.newestTimestamp ?? -Infinity)))
      this.newestTimestamp = Math.min(timestamp, Date.now());
    this.positions.advance(fullTopic, partition, record.offset);
    if (fullTopic === this.fullHeartbeatTopic) {
      this.heartbeats++;
      // One read at start from before it was heard when it was sent, not when it was read.
      const before = this.wiring.heartbeatFromBeforeStart?.(partition, record.offset);
      this.lastHeartbeatAt = before ? Math.min(timestamp, Date.now()) : Date.now();
      this.lastHeartbeatTimestamp = timestamp;
      return;
    }
    if (this.gate?.intercept(fullTopic, record)) return;
    const topic = this.logicalTopic(fullTopic);
    const payload = this.parse(topic, partition, record);
    if (payload === SKIPPED) return;
    this.received++;
    const handlers = this.registry.handlersFor(topic);
    if (!handlers) return;
    const message = toMessage(topic, partition, record, timestamp, payload);
    if (!this.gate) return this.calls.invoke(handlers, message, record);
    const admission = this.gate.admit(message);
    return isThenable(admission)
      ? Promise.resolve(admission).then((a) => this.admitted(handlers, message, record, a))
      : this.admitted(handlers, message, record, admission);
  }

  /** An exception from around the handlers (they are contained in HandlerCalls): logged, counted. */
  private contain(error: unknown, record: IncomingRecord): void {
    this.contained++;
    try {
      this.logger.error(
        `Broadcast record @${record.offset} raised an error outside its handlers: ${errorMessage(error)}`,
        error instanceof Error ? error.stack : undefined,
        { offset: record.offset, reason: errorMessage(error) },
      );
    } catch {
      // The logger itself failed: the count above is all that can be kept.
    }
  }

  /**
   * Runs the handlers the gate let through and reports their failures to it once each has its
   * final outcome: a receipt waits for a handler's retries, the partition does not.
   */
  private admitted(
    handlers: readonly RegisteredHandler[],
    message: BroadcastMessage,
    record: IncomingRecord,
    admission: Admission,
  ): void | Promise<void> {
    if (admission === undefined) return this.calls.invoke(handlers, message, record);
    if ('skip' in admission) {
      if (admission.skip === 'filtered') return void this.filtered++;
      this.invalid++;
      const where = `${message.topic}[${message.partition}]@${message.offset}`;
      this.logger.warn(`Invalid broadcast payload ${where}: ${admission.issues.join('; ')}`, {
        topic: message.topic,
        partition: message.partition,
        offset: message.offset,
        reason: admission.issues.join('; '),
      });
      return admission.settled?.(admission.issues.map((i) => `invalid payload: ${i}`));
    }
    const admitted = { ...message, payload: admission.payload };
    return this.calls.invoke(handlers, admitted, record, admission.settled);
  }

  private parse(topic: string, partition: number, record: IncomingRecord): unknown {
    if (!record.value || record.value.length === 0)
      return this.skip(topic, partition, record.offset, 'has an empty value');
    try {
      // toString() without an encoding is UTF-8 and skips the encoding lookup.
      return JSON.parse(record.value.toString());
    } catch (error) {
      const why = `is not valid JSON (${errorMessage(error)})`;
      return this.skip(topic, partition, record.offset, why);
    }
  }

  /** Logs and counts a malformed record (its place is written out here, not for every record). */
  private skip(topic: string, partition: number, offset: string, what: string): typeof SKIPPED {
    this.skipped++;
    const reason = `${topic}[${partition}]@${offset} ${what}`;
    const at: BroadcastLogFields = { topic, partition, offset, reason };
    this.logger.warn(`Skipped broadcast: ${reason}`, at);
    return SKIPPED;
  }

  private logicalTopic(fullTopic: string): string {
    let topic = this.logicalTopics.get(fullTopic);
    if (topic === undefined) {
      const prefix = this.settings.topicPrefix;
      topic = fullTopic.startsWith(prefix) ? fullTopic.slice(prefix.length) : fullTopic;
      this.logicalTopics.set(fullTopic, topic);
    }
    return topic;
  }
}

const SKIPPED = Symbol('skipped');
