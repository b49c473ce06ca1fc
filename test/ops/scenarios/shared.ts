// What the scenarios of test/ops/prometheus.spec.ts share: the environment the spec hands them,
// and the causes more than one of them sets off.
import type { Admin, Consumer, Producer } from 'kafkajs';
import { waitFor } from '../../support/broker/kafka.js';
import { kafkaFor } from '../../support/faults/faults.js';
import type { DemoInstance } from '../../support/telemetry/demo-instances.js';
import type { AlertChecks } from '../../support/telemetry/live-alerts.js';
import type { Prometheus } from '../../support/telemetry/prometheus.js';

/** FAULTY_TRACE_ID of faulty-tracer-preload.mjs, as a W3C traceparent. */
export const FAULTY_TRACEPARENT = '00-0badc0de0badc0de0badc0de0badc0de-0badc0de0badc0de-01';
export const HANDLER = 'ProductChangedHandler.onProductChanged';

export interface OpsEnv {
  prometheus: Prometheus;
  checks: AlertChecks;
  admin: Admin;
  producer: Producer;
  live: Record<string, DemoInstance>;
  brokers: string[];
  PREFIX: Record<'pool' | 'handlers' | 'frozen' | 'secured' | 'outage', string>;
  TOPIC: string;
}

export const event = (id: unknown, extra: object = {}) => ({
  value: JSON.stringify({ id, changedAt: Date.now(), ...extra }),
});

/**
 * A consumer of another application joining a broadcast group (a misconfigured service reusing
 * the group id): the instance holding it waits for it to leave, then gives the group up.
 */
export async function foreignMember(brokers: string[], groupId: string, topic: string) {
  const consumer: Consumer = kafkaFor(brokers).consumer({ groupId, sessionTimeout: 30_000 });
  await consumer.connect();
  await consumer.subscribe({ topics: [topic] });
  await consumer.run({ eachMessage: async () => undefined });
  return consumer;
}

export async function groupOf(instance: DemoInstance): Promise<string> {
  return waitFor(async () => (await instance.status()).group, {
    message: `${instance.name} holds a group`,
  });
}
