import { BroadcastReceiptError } from '../errors/broadcast-receipt.error.js';
import type { BroadcastReceipt } from '../interfaces/broadcast-receipt.interface.js';
import { formatTable } from './table.js';

/** The receipt as `publish --receipts` prints it: the counts, then one row per expected instance. */
export function formatReceipt(receipt: BroadcastReceipt): string {
  const { id, expected, ok, failed, missing } = receipt;
  if (expected.length === 0)
    return `Receipt ${id}: 0 expected: no live instance that answers receipts reads ${receipt.topic} (and is targeted)`;
  const counts = `${expected.length} expected, ${ok.length} ok, ${failed.length} failed, ${missing.length} missing`;
  const rows = [
    ...ok.map((instance) => [instance, 'ok', '']),
    ...failed.map((f) => [f.instanceId, 'failed', f.errors.join('; ')]),
    ...missing.map((instance) => [instance, 'missing', '']),
  ].sort((a, b) => a[0]!.localeCompare(b[0]!));
  return [
    `Receipt ${id}: ${counts} (${receipt.elapsedMs} ms)`,
    formatTable(['INSTANCE', 'RESULT', 'ERRORS'], rows),
  ].join('\n');
}

/**
 * Why the receipt is not a confirmation (an expected instance failed or never answered), in the
 * words of publishAndConfirm()'s error; undefined when every expected instance handled it.
 */
export function receiptProblem(receipt: BroadcastReceipt): string | undefined {
  if (receipt.failed.length === 0 && receipt.missing.length === 0) return undefined;
  return new BroadcastReceiptError(receipt).message;
}
