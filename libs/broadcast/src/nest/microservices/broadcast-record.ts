import type { PublishOptions } from '../../core/publishing/publish-options.js';

/**
 * Data for `BroadcastClient.emit()` that carries publish options (key, headers, targeting):
 * `client.emit('product.changed', new BroadcastRecord(change, { to: { services: ['pricing'] } }))`.
 * Receipts are not available through emit(); use BroadcastPublisher for them.
 */
export class BroadcastRecord<T = unknown> {
  constructor(
    readonly payload: T,
    readonly options: Omit<PublishOptions, 'receipts'> = {},
  ) {}
}
