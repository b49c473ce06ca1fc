import type { ReceiptOptions } from '../../interfaces/broadcast-receipt.interface.js';
import type { BroadcastTarget } from '../features/targeting/targeting.js';

// The options of publish(), apart from the publisher: PublishFeatures reads them too, and
// neither of the two needs the other's module for it.

/** Options of one publish. */
export interface PublishOptions {
  key?: string;
  headers?: Record<string, string>;
  /** Only these instances and/or services handle it; the others skip it (counted `filtered`). */
  to?: BroadcastTarget;
  /** This instance skips its own message. */
  exceptSelf?: boolean;
  /** Resolve with who handled it (see BroadcastReceipt) instead of when the broker has it. */
  receipts?: ReceiptOptions | true;
}
