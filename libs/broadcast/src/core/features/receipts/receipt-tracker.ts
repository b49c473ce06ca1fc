import { randomUUID } from 'node:crypto';
import type { BroadcastLogger } from '../../../interfaces/broadcast-logger.interface.js';
import type {
  BroadcastReceipt,
  ReceiptFailure,
} from '../../../interfaces/broadcast-receipt.interface.js';
import type { IncomingRecord, OutgoingRecord } from '../../../interfaces/kafka-port.interface.js';
import { errorMessage } from '../../../shared/async.utils.js';
import { ACK_FETCH_LINGER_MS, AckFetching } from './ack-fetching.js';

/** One acknowledgement on the receipts topic, keyed by the publisher's instance id. */
export interface ReceiptAck {
  /** Receipt id. */
  r: string;
  /** Instance id of the receiver. */
  i: string;
  /** Failed handlers (`name: error`), or invalid-payload issues; absent when all went well. */
  e?: string[];
}

interface Pending {
  receipt: BroadcastReceipt;
  waiting: Set<string>;
  startedAt: number;
  timer: NodeJS.Timeout;
  resolve: (receipt: BroadcastReceipt) => void;
  stranger: ((instanceId: string) => void) | undefined;
}

/**
 * Both ends of receipts. As a publisher it waits for the acknowledgements of the instances
 * expected at publish time; as a receiver it sends one acknowledgement per message that asked
 * for it. Acks go to one receipts topic, keyed by the publisher, which an instance fetches only
 * while one of its receipts waits (`fetching`); the acks of others it reads then are dropped
 * after comparing the key, before any JSON parsing.
 */
export class ReceiptTracker {
  /** Acknowledgements keyed for us that were not a valid ReceiptAck: logged and skipped. */
  malformed = 0;
  /** Whether the receipts topic is fetched now: while a publish with a receipt holds it, and a while after. */
  readonly fetching: AckFetching;
  private readonly pending = new Map<string, Pending>();
  private readonly ownKey: Buffer;

  constructor(
    private readonly instanceId: string,
    /** Full receipts topic, prefix included. */
    readonly topic: string,
    private readonly send: (topic: string, records: OutgoingRecord[]) => Promise<void>,
    private readonly logger: BroadcastLogger,
    /** How long acknowledgements are still fetched after the last receipt (AckFetching). */
    ackLingerMs = ACK_FETCH_LINGER_MS,
  ) {
    this.ownKey = Buffer.from(instanceId, 'utf8');
    this.fetching = new AckFetching(topic, ackLingerMs);
  }

  newId(): string {
    return randomUUID();
  }

  /**
   * Registers a receipt before its message is sent (acks can beat the producer's response) and
   * resolves once every expected instance answered or `timeoutMs` passed. `stranger` is called
   * for an answer, while the receipt waits, from an instance that was not expected (one that
   * joined after the expected were listed); the answer itself is not counted.
   */
  expect(
    id: string,
    topic: string,
    expected: readonly string[],
    timeoutMs: number,
    unmatched: readonly string[] = [],
    stranger?: (instanceId: string) => void,
  ): Promise<BroadcastReceipt> {
    return new Promise((resolve) => {
      const receipt: BroadcastReceipt = {
        id,
        topic,
        expected: [...expected].sort(),
        ok: [],
        failed: [],
        missing: [],
        unmatched: [...unmatched],
        elapsedMs: 0,
      };
      const pending: Pending = {
        receipt,
        waiting: new Set(expected),
        startedAt: Date.now(),
        timer: setTimeout(() => this.finish(id), timeoutMs),
        resolve,
        stranger,
      };
      this.pending.set(id, pending);
      if (pending.waiting.size === 0) this.finish(id);
    });
  }

  /** Forgets a receipt whose message could not be sent. */
  cancel(id: string): void {
    const pending = this.pending.get(id);
    if (!pending) return;
    clearTimeout(pending.timer);
    this.pending.delete(id);
  }

  /**
   * A record of the receipts topic: ours when keyed by our instance id. Anyone can write to
   * that topic, so a value that is not a ReceiptAck (`null`, a number, a half-written object)
   * is logged, counted and skipped: it must never stop reading.
   */
  accept(record: IncomingRecord): void {
    if (!record.key || !this.ownKey.equals(record.key) || !record.value) return;
    const ack = parseAck(record.value.toString('utf8'));
    if (!ack) {
      this.malformed++;
      this.logger.warn(`Skipped a malformed broadcast receipt acknowledgement @${record.offset}`, {
        offset: record.offset,
        reason: 'malformed receipt acknowledgement',
      });
      return;
    }
    this.count(ack);
  }

  /** Counts one answer to a receipt of ours. */
  private count(ack: ReceiptAck): void {
    const pending = this.pending.get(ack.r);
    if (!pending) return;
    if (!pending.waiting.delete(ack.i)) {
      // Answers of instances that were not expected (ready after the publish) are not counted.
      if (!pending.receipt.expected.includes(ack.i)) pending.stranger?.(ack.i);
      return;
    }
    if (ack.e && ack.e.length > 0)
      pending.receipt.failed.push({ instanceId: ack.i, errors: ack.e });
    else pending.receipt.ok.push(ack.i);
    if (pending.waiting.size === 0) this.finish(ack.r);
  }

  /**
   * Receiver side: answers the publisher `to` (fire and forget; reading never waits for it). Our
   * own message is counted here: its round trip through the receipts topic would add a produce
   * and a fetch.
   */
  acknowledge(to: string, receiptId: string, errors: readonly string[]): void {
    const ack: ReceiptAck = { r: receiptId, i: this.instanceId };
    if (errors.length > 0) ack.e = [...errors];
    if (to === this.instanceId) {
      this.count(ack);
      return;
    }
    this.send(this.topic, [{ key: to, value: JSON.stringify(ack) }]).catch((error: unknown) =>
      this.logger.warn(`Could not send a broadcast receipt to ${to}: ${errorMessage(error)}`, {
        to,
        reason: errorMessage(error),
      }),
    );
  }

  /** Resolves every open receipt with what it has (engine stopping). */
  stop(): void {
    this.fetching.stop();
    for (const id of this.pending.keys()) this.finish(id);
  }

  private finish(id: string): void {
    const pending = this.pending.get(id);
    if (!pending) return;
    clearTimeout(pending.timer);
    this.pending.delete(id);
    const { receipt } = pending;
    receipt.ok.sort();
    receipt.failed.sort((a: ReceiptFailure, b: ReceiptFailure) =>
      a.instanceId.localeCompare(b.instanceId),
    );
    receipt.missing = [...pending.waiting].sort();
    receipt.elapsedMs = Date.now() - pending.startedAt;
    pending.resolve(receipt);
  }
}

/** The acknowledgement in `text`, or undefined when it is not one. */
function parseAck(text: string): ReceiptAck | undefined {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return undefined;
  }
  if (typeof value !== 'object' || value === null) return undefined;
  const { r, i, e } = value as Partial<Record<keyof ReceiptAck, unknown>>;
  if (typeof r !== 'string' || typeof i !== 'string') return undefined;
  if (e !== undefined && !(Array.isArray(e) && e.every((x) => typeof x === 'string')))
    return undefined;
  return value as ReceiptAck;
}
