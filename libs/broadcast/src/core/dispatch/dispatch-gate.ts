import type { BroadcastMessage } from '../../interfaces/broadcast-message.interface.js';
import type { IncomingRecord } from '../../interfaces/kafka-port.interface.js';

/**
 * What happens to a message before its handlers: `undefined` delivers it unchanged, `skip`
 * drops it (counted), otherwise `payload` replaces the parsed one (a validator's output) and
 * `settled` is called with the failures once every handler finished or timed out.
 */
export type Admission =
  | undefined
  | { skip: 'filtered' }
  | { skip: 'invalid'; issues: string[]; settled?: (failures: readonly string[]) => void }
  | { payload: unknown; settled?: (failures: readonly string[]) => void };

/** The dispatcher's hooks around handlers (targeting, validation, receipts). */
export interface DispatchGate {
  /** Consumes records of the engine's own topics (receipt acks); true when consumed. */
  intercept(fullTopic: string, record: IncomingRecord): boolean;
  /** Decides about a broadcast before any handler sees it. */
  admit(message: BroadcastMessage): Admission | Promise<Admission>;
}
