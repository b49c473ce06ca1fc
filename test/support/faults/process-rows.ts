import { kafkaClients } from '../broker/kafka-clients.js';

/**
 * The client and group-protocol rows of the specs that run engines in child processes against a
 * cluster they restart (broker-outage, rolling-restart): every client on each protocol it speaks,
 * only those BROADCAST_KAFKA_CLIENTS asks for (the confluent rows only when it names them), so a
 * row left out is no test at all.
 */
export const PROCESS_ROWS = [
  { name: 'kafkajs classic', kafka: { client: 'kafkajs' } },
  {
    name: '@platformatic/kafka classic',
    kafka: { client: 'platformatic', groupProtocol: 'classic' },
  },
  {
    name: '@platformatic/kafka KIP-848',
    kafka: { client: 'platformatic', groupProtocol: 'consumer' },
  },
  {
    name: '@confluentinc/kafka-javascript classic',
    kafka: { client: 'confluent', groupProtocol: 'classic' },
  },
  {
    name: '@confluentinc/kafka-javascript KIP-848',
    kafka: { client: 'confluent', groupProtocol: 'consumer' },
  },
].filter((row) => kafkaClients().includes(row.kafka.client as never));
