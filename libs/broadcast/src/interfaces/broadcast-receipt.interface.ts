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
   * Instances expected to answer: those found live, reading the topic, answering receipts and
   * targeted, by a look at the broker made for this publish right before the send, or with
   * `expected: 'roster'` by the roster's latest refresh (ReceiptOptions.expected).
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
  /**
   * Where the expected instances come from (default 'look').
   * - 'look': a look at the broker (ListGroups and a describe) begun for this publish and
   *   answered before the send. Exact: every instance ready when publish() was called is
   *   expected, and every expected instance had fixed its start offsets before the message was
   *   written.
   * - 'roster': the roster's latest refresh, polled in the background every roster.intervalMs
   *   from the first such publish on, or a look as above when that refresh is older than two
   *   periods. Saves the look's round trip, at a stated cost: an instance that became ready
   *   since that refresh is not expected (its answer is not counted), and one that stopped since
   *   is expected and reported missing. An answer from an instance not expected, or a receipt with
   *   missing instances, refreshes the roster (GUIDE.md, Receipts).
   */
  expected?: 'look' | 'roster';
}
