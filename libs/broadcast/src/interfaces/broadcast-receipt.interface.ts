/** An instance whose handlers failed or timed out on a broadcast that asked for a receipt. */
export interface ReceiptFailure {
  instanceId: string;
  /** One line per failed handler: `<handler name>: <error text>`. */
  errors: string[];
}

/** Who handled a broadcast, as publish(…, { receipts }) resolves it. */
export interface BroadcastReceipt {
  /** Id carried in the message headers and in every acknowledgement. */
  id: string;
  /** Logical topic. */
  topic: string;
  /**
   * Instances expected to answer: those a look at the broker, made for this publish right before
   * the send, found live, reading the topic, answering receipts and targeted.
   */
  expected: string[];
  /** Expected instances whose handlers all completed. */
  ok: string[];
  /** Expected instances whose handlers failed, timed out, or found the payload invalid. */
  failed: ReceiptFailure[];
  /** Expected instances that never answered before the timeout (crashed, stuck, partitioned). */
  missing: string[];
  /**
   * Names in the publish's `to` (instance ids, services) that no live instance reading the topic
   * had at publish time: nobody by that name received it. Empty for an untargeted publish. The
   * publisher also logs a warning for them.
   */
  unmatched: string[];
  /** Milliseconds from publish to the last answer (or the timeout). */
  elapsedMs: number;
}

/** `receipts` option of publish(). */
export interface ReceiptOptions {
  /** How long to wait for every expected instance, in ms (default 10000). */
  timeoutMs?: number;
}
