import { pause } from '../../shared/async.utils.js';
import { refusalOf } from './confluent-errors.js';

/** How long a consume call's ERR__FATAL waits for the log line that names its cause. */
const CAUSE_WAIT_MS = 1_000;

/** librdkafka's log line of rd_kafka_set_fatal_error: "Fatal error: <code's words>: <reason>". */
const FATAL_LINE = /^(?:\[thrd:[^\]]*\]: )?Fatal error: (.*)$/;

/**
 * A group consumer's fatal state. librdkafka makes some answers to a KIP-848 heartbeat fatal
 * (rd_kafka_cgrp_handle_ConsumerGroupHeartbeat: GROUP_AUTHORIZATION_FAILED, GROUP_MAX_SIZE_REACHED,
 * UNRELEASED_INSTANCE_ID, GROUP_ID_NOT_FOUND on a heartbeat that is not a leave, ...): the client
 * then sends nothing more, for good, and every consume call fails with ERR__FATAL (-150), which
 * the binding passes without the broker's code or `isFatal`. Read as transient, the consumer
 * would spin on it while the engine waits for a member that will never be. The cause is only in
 * the line librdkafka logs (LOG_EMERG, facility FATAL), which may reach JavaScript after the
 * consume callback: the error waits a moment for it.
 */
export class ConfluentFatalState {
  private line: string | undefined;
  private heard: () => void = () => undefined;
  private readonly logged = new Promise<void>((resolve) => (this.heard = resolve));

  /** Fed with the consumer's log events (`event.log`). */
  noteLog(log: { severity?: number; fac?: string; message?: string }): void {
    const said = FATAL_LINE.exec(log.message ?? '')?.[1];
    if (this.line !== undefined || (log.fac !== 'FATAL' && said === undefined)) return;
    this.line = said ?? log.message ?? '';
    this.heard();
  }

  /**
   * The error to crash with: the broker's refusal with its code where the words name one (an
   * authorization the lifecycle reports as a missing ACL), else librdkafka's words; the consume
   * call's error is the cause.
   */
  async explain(error: unknown): Promise<Error> {
    await Promise.race([this.logged, pause(CAUSE_WAIT_MS)]);
    const words = this.line ?? 'the consumer reached a fatal state (no cause was logged)';
    const refusal = refusalOf(new Error(words));
    if (refusal) return Object.assign(refusal, { cause: error });
    return new Error(`librdkafka: ${words}`, { cause: error });
  }
}
