// A failed start that the app catches, in a standalone ESM process that calls no stop(): the engine
// stops itself when start() fails for good, so nothing it opened keeps the process alive and its
// status says stopped. Before, on @confluentinc/kafka-javascript the process never ended (the
// client's admin kept reconnecting to the broker it could not reach), and on every client the
// status still said starting. No broker is needed: the one given is unreachable.
import { describe, expect, it } from 'vitest';
import { groupProtocolOf, kafkaClients } from '../support/broker/kafka-clients.js';
import { testPrefix } from '../support/broker/kafka.js';
import { describeRun, runStartupChild } from '../support/nest/startup-children.js';

/** Import, a start that fails at startupTimeoutMs, exit: far below it; far above "never". */
const DEADLINE_MS = 45_000;
const STARTUP_TIMEOUT_MS = 4_000;

describe.each(kafkaClients())('a failed start caught by the app on %s', (client) => {
  it('ends the process by itself, the engine stopped, with no stop() called', async () => {
    const run = await runStartupChild('esm', {
      options: {
        topicPrefix: testPrefix(`startup-caught-${client}`),
        lock: false,
        heartbeat: false,
        startupTimeoutMs: STARTUP_TIMEOUT_MS,
        kafka: {
          brokers: ['127.0.0.1:1'],
          connectionTimeoutMs: 1_000,
          client,
          ...groupProtocolOf(client),
        },
      },
      deadlineMs: DEADLINE_MS,
      env: { STARTUP_CATCH: '1' },
    });
    const output = `${describeRun(client, run)}\n--- stdout\n${run.stdout}\n--- stderr\n${run.stderr}`;
    console.log(describeRun(`caught failed start on ${client}`, run));
    expect(run.killed, output).toBe(false);
    expect(run.code, output).toBe(1);
    expect(run.stderr, output).toMatch(
      /start failed: Could not reach Kafka at 127\.0\.0\.1:1: .*Check the option kafka\.brokers/,
    );
    expect(run.stderr, output).toMatch(/status after the failed start: stopped/);
  });
});
