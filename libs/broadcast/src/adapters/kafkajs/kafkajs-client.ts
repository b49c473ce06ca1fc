import kafkajs, { type Kafka, type KafkaConfig } from 'kafkajs';
import { checkRequestQueuesOnlyWhenWaiting } from './kafkajs-request-queues.js';
import { framedSocketFactory } from './kafkajs-socket.js';

/**
 * Every kafkajs client of the library (the adapter's, the CLI's, the coordinator probe's) is
 * made here, with the two repairs of kafkajs 2.2.4 that Node 24 brought to light: whole response
 * frames only, so a connection cut in the middle of a response cannot misalign the next one
 * (kafkajs-socket.ts), and no polling of empty request queues, which also ends Node 24's
 * `TimeoutNegativeWarning` (kafkajs-request-queues.ts). Both act on this client only.
 */
export function createKafkajsClient(config: KafkaConfig): Kafka {
  const kafka = new kafkajs.Kafka({ ...config, socketFactory: framedSocketFactory() });
  checkRequestQueuesOnlyWhenWaiting(kafka);
  return kafka;
}
