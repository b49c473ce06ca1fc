import { BroadcastMessages } from '../../errors/broadcast.messages.js';
import { BroadcastPublishError } from '../../errors/broadcast-publish.error.js';
import { BroadcastValidationError } from '../../errors/broadcast-validation.error.js';
import type { BroadcastReceipt } from '../../interfaces/broadcast-receipt.interface.js';
import type { BroadcastRoster } from '../features/roster/broadcast-roster.js';
import { type BroadcastTopic, validate } from '../broadcast-definition.js';
import { publishWithReceipt } from '../features/receipts/receipt-publish.js';
import type { PublishOptions } from './publish-options.js';
import type { ReceiptTracker } from '../features/receipts/receipt-tracker.js';
import { targetHeaders, targets } from '../features/targeting/targeting.js';
import {
  UnmatchedTargetWarnings,
  unmatchedTargets,
} from '../features/targeting/unmatched-targets.js';
import type { BroadcastLogger } from '../../interfaces/broadcast-logger.interface.js';

export const DEFAULT_RECEIPT_TIMEOUT_MS = 10_000;

/** What publish() needs beyond Kafka: who we are, the roster and the receipts. */
export interface PublishFeatureDeps {
  instanceId: string;
  roster: BroadcastRoster;
  receipts: ReceiptTracker | undefined;
  /** True while this instance reads its group, so it can see acknowledgements. */
  reading: () => boolean;
  logger: BroadcastLogger;
}

/** How old a roster a targeted publish without receipts may check its targets against, in ms. */
const TARGET_CHECK_MAX_AGE_MS = 5_000;

/** Validation, targeting headers and receipts for BroadcastPublisher. */
export class PublishFeatures {
  private readonly unmatched: UnmatchedTargetWarnings;

  constructor(private readonly deps: PublishFeatureDeps) {
    this.unmatched = new UnmatchedTargetWarnings(deps.logger);
  }

  /**
   * Throws when the payload fails the definition's schema. The payload itself is sent, not the
   * schema's output: receivers validate (and transform) the same input again.
   */
  async check<T>(topic: BroadcastTopic<T>, payload: T): Promise<T> {
    if (typeof topic === 'string' || !topic.schema) return payload;
    const result = await validate(topic.schema, payload);
    if ('issues' in result) throw new BroadcastValidationError(topic.topic, result.issues);
    return payload;
  }

  async send(
    topic: string,
    options: PublishOptions,
    send: (headers: Record<string, string> | undefined) => Promise<void>,
  ): Promise<void | BroadcastReceipt> {
    const { instanceId } = this.deps;
    if (options.exceptSelf !== undefined && typeof options.exceptSelf !== 'boolean')
      throw new BroadcastPublishError('exceptSelf', 'a boolean', options.exceptSelf);
    const except = options.exceptSelf ? instanceId : undefined;
    let headers: Record<string, string> | undefined = options.headers;
    if (options.to !== undefined || except !== undefined)
      headers = { ...headers, ...targetHeaders(options.to, except) };
    if (!options.receipts) {
      await send(headers);
      if (options.to !== undefined) this.checkTargets(topic, options.to);
      return;
    }
    const timeoutMs = receiptTimeout(options.receipts);
    const expected = receiptExpected(options.receipts);
    const { receipts, roster } = this.deps;
    if (!receipts || !roster.supported) throw new Error(BroadcastMessages.receiptsUnsupported());
    if (!this.deps.reading()) throw new Error(BroadcastMessages.receiptsNeedReader(topic));
    return publishWithReceipt(
      {
        instanceId,
        roster,
        receipts,
        warnUnmatched: (name, unmatched, matchedAny) =>
          this.unmatched.warn(name, unmatched, matchedAny),
      },
      { topic, to: options.to, except, timeoutMs, expected, headers, send },
    );
  }

  /**
   * After a targeted publish without receipts: warns, in the background, when a name in `to`
   * matches no live instance (the roster as of a few seconds ago; never delays nor fails it).
   */
  private checkTargets(topic: string, to: NonNullable<PublishOptions['to']>): void {
    const { roster } = this.deps;
    if (!roster.supported) return;
    roster.recent(TARGET_CHECK_MAX_AGE_MS).then(
      (live) => {
        const unmatched = unmatchedTargets(to, live, topic);
        const matchedAny = live.some((i) => i.topics.includes(topic) && targets(to, undefined, i));
        this.unmatched.warn(topic, unmatched, matchedAny);
      },
      () => undefined,
    );
  }
}

function receiptTimeout(receipts: PublishOptions['receipts']): number {
  if (receipts === true) return DEFAULT_RECEIPT_TIMEOUT_MS;
  const timeoutMs = (receipts as { timeoutMs?: unknown }).timeoutMs ?? DEFAULT_RECEIPT_TIMEOUT_MS;
  if (typeof receipts !== 'object' || !Number.isInteger(timeoutMs) || (timeoutMs as number) <= 0)
    throw new BroadcastPublishError(
      'receipts',
      'true or { timeoutMs?: positive integer }',
      receipts,
    );
  return timeoutMs as number;
}

/** Where a receipt's expected instances come from: `receipts.expected`, 'look' by default. */
function receiptExpected(receipts: PublishOptions['receipts']): 'look' | 'roster' {
  const expected = receipts === true ? undefined : (receipts as { expected?: unknown }).expected;
  if (expected === undefined || expected === 'look') return 'look';
  if (expected === 'roster') return 'roster';
  throw new BroadcastPublishError('receipts.expected', "'look' or 'roster'", expected);
}
