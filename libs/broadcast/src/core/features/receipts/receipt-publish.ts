import type { BroadcastReceipt } from '../../../interfaces/broadcast-receipt.interface.js';
import type { RosterInstance } from '../../../interfaces/broadcast-roster.interface.js';
import { BroadcastHeaders as H } from '../../broadcast-headers.js';
import type { BroadcastRoster } from '../roster/broadcast-roster.js';
import { type BroadcastTarget, targets } from '../targeting/targeting.js';
import { unmatchedTargets } from '../targeting/unmatched-targets.js';
import type { ReceiptTracker } from './receipt-tracker.js';

/** What a publish with receipts needs beyond Kafka. */
export interface ReceiptPublishParts {
  instanceId: string;
  roster: BroadcastRoster;
  receipts: ReceiptTracker;
  /** Warns about names in `to` that no live instance reading the topic has. */
  warnUnmatched: (topic: string, unmatched: readonly string[], matchedAny: boolean) => void;
}

/** One publish with receipts: the message to send and whom it targets. */
export interface ReceiptPublishRequest {
  /** Logical topic. */
  topic: string;
  to: BroadcastTarget | undefined;
  /** Our own instance id with `exceptSelf`. */
  except: string | undefined;
  timeoutMs: number;
  /** Where the expected instances come from (ReceiptOptions.expected). */
  expected: 'look' | 'roster';
  headers: Record<string, string> | undefined;
  /** Sends the message with these headers; resolves on the broker's acknowledgement. */
  send: (headers: Record<string, string>) => Promise<void>;
}

/**
 * Publishes with a receipt. The instances expected to answer are those a look at the broker,
 * begun for this publish and answered before the message is sent, finds live (the pool groups'
 * members), reading the topic, answering receipts and targeted. Before the send, because that
 * is what makes a receipt sound: an instance listed then had joined its group, so had taken its
 * start offsets, before the message was written, and will read it. Begun for this publish (not
 * a refresh already under way) so that every instance ready when publish() was called is listed.
 * With `expected: 'roster'` they are the roster's latest refresh instead (BroadcastRoster.view()):
 * no look in the publish's path, and an instance that joined or left since that refresh is
 * missed or reported missing; an answer from an instance not expected, or a receipt with missing
 * instances, refreshes the roster at once, so that the next receipt sees the change. Resolves as ReceiptTracker.expect().
 */
export async function publishWithReceipt(
  parts: ReceiptPublishParts,
  request: ReceiptPublishRequest,
): Promise<BroadcastReceipt> {
  const { instanceId, roster, receipts } = parts;
  const { topic } = request;
  // The acknowledgements are fetched from now until the receipt resolves (AckFetching): resumed
  // before the message can be sent, so before any answer to it can be written.
  const release = receipts.fetching.hold();
  try {
    const live = await (request.expected === 'roster' ? roster.view() : roster.look());
    const expected = expectedOf(live, request);
    const unmatched = unmatchedTargets(request.to, live, topic);
    parts.warnUnmatched(topic, unmatched, expected.length > 0);
    const id = receipts.newId();
    // With the roster's view, an answer from an instance it did not list is a join it missed,
    // and a missing instance may have gone: either refreshes it for the next receipt.
    const refresh = () => void roster.refresh().catch(() => undefined);
    const viewed = request.expected === 'roster';
    const waiting = receipts.expect(
      id,
      topic,
      expected,
      request.timeoutMs,
      unmatched,
      viewed ? refresh : undefined,
    );
    try {
      await request.send({ ...request.headers, [H.receipt]: id, [H.from]: instanceId });
    } catch (error) {
      receipts.cancel(id);
      throw error;
    }
    const receipt = await waiting;
    if (viewed && receipt.missing.length > 0) refresh();
    return receipt;
  } finally {
    release();
  }
}

/** The instance ids that read `topic`, answer receipts and are targeted. */
function expectedOf(live: readonly RosterInstance[], request: ReceiptPublishRequest): string[] {
  return live
    .filter(
      (i) =>
        i.receipts && i.topics.includes(request.topic) && targets(request.to, request.except, i),
    )
    .map((i) => i.instanceId);
}
