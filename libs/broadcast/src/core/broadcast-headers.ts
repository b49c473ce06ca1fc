/**
 * Headers the engine adds to a broadcast for receipts and targeting. Absent on an ordinary
 * broadcast, so it costs nothing and is read by older instances as a plain message.
 */
export const BroadcastHeaders = {
  /** Receipt id; receivers answer on the receipts topic, keyed by `from`. */
  receipt: 'x-broadcast-receipt',
  /** Instance id of the publisher. */
  from: 'x-broadcast-from',
  /** Comma-separated instance ids the message is for. */
  toInstances: 'x-broadcast-to-instances',
  /** Comma-separated services (group base names) the message is for. */
  toServices: 'x-broadcast-to-services',
  /** Instance id that must skip the message (exceptSelf). */
  except: 'x-broadcast-except',
} as const;
