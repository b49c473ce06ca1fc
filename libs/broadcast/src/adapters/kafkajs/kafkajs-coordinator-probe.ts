import kafkajs, { type KafkaConfig, type LogEntry } from 'kafkajs';
import { createKafkajsClient } from './kafkajs-client.js';

/**
 * Why kafkajs could not find a group's coordinator. kafkajs turns every FindCoordinator
 * failure, GROUP_AUTHORIZATION_FAILED included, into "Failed to find group coordinator" and
 * keeps the broker's answer only in a debug log line; one short-lived client at debug level
 * reads it back. Used only after that failure, so the normal path costs nothing.
 */
export async function coordinatorErrorType(
  config: KafkaConfig,
  groupId: string,
): Promise<string | undefined> {
  let type: string | undefined;
  const capture = () => (entry: LogEntry) => {
    const error = (entry.log as { error?: { type?: string } }).error;
    if (entry.log.message === 'Tried to find group coordinator' && error?.type) type = error.type;
  };
  const client = createKafkajsClient({
    ...config,
    clientId: `${config.clientId ?? 'nestjs-kafka-broadcast'}-probe`,
    logLevel: kafkajs.logLevel.DEBUG,
    logCreator: capture,
    // A fresh client retries once while its broker pool fills from the first metadata.
    retry: { retries: 2, initialRetryTime: 100 },
  });
  const admin = client.admin();
  try {
    await admin.connect();
    await admin.describeGroups([groupId]);
  } catch {
    // The answer is in the captured log line.
  } finally {
    await admin.disconnect().catch(() => undefined);
  }
  return type;
}
