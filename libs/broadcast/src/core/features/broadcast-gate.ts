import type { BroadcastMessage } from '../../interfaces/broadcast-message.interface.js';
import type { IncomingRecord } from '../../interfaces/kafka-port.interface.js';
import type { StandardSchemaV1 } from '../../interfaces/standard-schema.interface.js';
import { BroadcastHeaders as H } from '../broadcast-headers.js';
import { validate, type Validation } from '../broadcast-definition.js';
import type { Admission, DispatchGate } from '../dispatch/dispatch-gate.js';
import type { ReceiptTracker } from './receipts/receipt-tracker.js';
import { isTargeted, type TargetIdentity } from './targeting/targeting.js';

/**
 * The engine's gate: drops messages targeted elsewhere, validates payloads of topics defined
 * with a schema, and acknowledges messages that asked for a receipt once their handlers ran.
 * A plain broadcast (no engine headers, no schema) passes with two header lookups.
 */
export class BroadcastGate implements DispatchGate {
  constructor(
    private readonly receipts: ReceiptTracker | undefined,
    private readonly schemas: ReadonlyMap<string, StandardSchemaV1>,
    private readonly identity: () => TargetIdentity,
    /** How long an async validator may take; one that has not settled by then fails the message. */
    private readonly validationTimeoutMs: number,
  ) {}

  intercept(fullTopic: string, record: IncomingRecord): boolean {
    if (!this.receipts || fullTopic !== this.receipts.topic) return false;
    this.receipts.accept(record);
    return true;
  }

  admit(message: BroadcastMessage): Admission | Promise<Admission> {
    const { headers } = message;
    if (!isTargeted(headers, this.identity())) return { skip: 'filtered' };
    const receiptId = headers[H.receipt];
    const from = headers[H.from];
    const settled =
      this.receipts && receiptId && from
        ? (failures: readonly string[]) => this.receipts!.acknowledge(from, receiptId, failures)
        : undefined;
    const schema = this.schemas.get(message.topic);
    if (!schema) return settled && { payload: message.payload, settled };
    const result = validate(schema, message.payload);
    return result instanceof Promise
      ? settleWithin(result, this.validationTimeoutMs).then((r) => admitted(r, settled))
      : admitted(result, settled);
  }
}

/** The validation, or an issue once `ms` passed: reading waits for a validator that long only. */
function settleWithin(validation: Promise<Validation>, ms: number): Promise<Validation> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<Validation>((resolve) => {
    timer = setTimeout(() => resolve({ issues: [`validator did not settle within ${ms} ms`] }), ms);
  });
  return Promise.race([validation, late]).finally(() => clearTimeout(timer));
}

function admitted(
  result: Validation,
  settled: ((failures: readonly string[]) => void) | undefined,
): Admission {
  if ('issues' in result) return { skip: 'invalid', issues: result.issues, settled };
  return { payload: result.value, settled };
}
