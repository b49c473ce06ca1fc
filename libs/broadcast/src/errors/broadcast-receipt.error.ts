import type { BroadcastReceipt } from '../interfaces/broadcast-receipt.interface.js';
import { BroadcastMessages } from './broadcast.messages.js';

/** Rejection of publishAndConfirm(): some expected instance failed or never answered. */
export class BroadcastReceiptError extends Error {
  override readonly name = 'BroadcastReceiptError';

  constructor(readonly receipt: BroadcastReceipt) {
    const parts = [`ok ${receipt.ok.length}/${receipt.expected.length}`];
    if (receipt.failed.length)
      parts.push(
        `failed: ${receipt.failed.map((f) => `${f.instanceId} (${f.errors.join('; ')})`).join(', ')}`,
      );
    if (receipt.missing.length) parts.push(`missing: ${receipt.missing.join(', ')}`);
    super(BroadcastMessages.notConfirmed(receipt.topic, parts.join('; ')));
  }
}
