import type { KafkaAdminPort } from '../interfaces/kafka-port.interface.js';

/**
 * Per partition of `topic`, the first offset the log still holds: the port's logStartOffsets
 * where it has one, else the `low` of its offsetBounds.
 */
export async function logStartOffsets(
  admin: KafkaAdminPort,
  topic: string,
): Promise<Map<number, string>> {
  if (admin.logStartOffsets) return admin.logStartOffsets(topic);
  const bounds = await admin.offsetBounds(topic);
  return new Map([...bounds].map(([partition, { low }]) => [partition, low]));
}
