import type { OperatorKafkaPort } from '../interfaces/broadcast-operator.interface.js';

/**
 * Group id → instance id, from the heartbeats of the last `windowMs` (each heartbeat names its
 * sender's group and instance). Instances that sent none in the window are simply absent.
 */
export async function heartbeatInstances(
  kafka: OperatorKafkaPort,
  heartbeatTopic: string,
  windowMs: number,
): Promise<Map<string, string>> {
  const instances = new Map<string, string>();
  if (windowMs <= 0) return instances;
  try {
    await kafka.read(heartbeatTopic, {
      since: Date.now() - windowMs,
      toEnd: true,
      onRecord: (record) => {
        try {
          const beat = JSON.parse(record.value ?? '') as {
            groupId?: unknown;
            instanceId?: unknown;
          };
          if (typeof beat.groupId === 'string' && typeof beat.instanceId === 'string')
            instances.set(beat.groupId, beat.instanceId);
        } catch {
          // Not a heartbeat of ours: ignore it.
        }
      },
    });
  } catch {
    // No heartbeat topic (heartbeats off): no instance names.
  }
  return instances;
}
