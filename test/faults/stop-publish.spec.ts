// A publish around stop(), as an app meets it (a request still in flight during SIGTERM): a
// standalone child process on each client publishes once, then either awaits stop() and publishes
// again, or publishes while stop() runs (test/support/nest/stop-publish-child.mjs). Every publish
// is answered: after stop() it is refused with the closed-client error; nothing reaches the topic
// after stop() (read back with a raw consumer); and the process ends by itself within a second of
// its last line (issue #36: on @platformatic/kafka the publish after stop() was sent and the
// process never ended, a new producer nobody closed holding it open).
import { afterAll, describe, expect, it } from 'vitest';
import { BroadcastMessages } from '../../libs/broadcast/src/errors/broadcast.messages.js';
import { kafkaClients, groupProtocolOf } from '../support/broker/kafka-clients.js';
import { kafkaBrokers, newKafka, testPrefix, waitFor } from '../support/broker/kafka.js';
import { connectedAdmin, deletePrefix } from '../support/faults/faults.js';
import { runStartupChild, type StartupChildRun } from '../support/nest/startup-children.js';

/** Import, start, two publishes and a stop on a shared 2-core host: far below "never ends". */
const DEADLINE_MS = 45_000;
/** How long after its last line the process may take to end by itself. */
const EXIT_WITHIN_MS = 1_000;
const CLOSED = BroadcastMessages.kafkaClientClosed();

const prefixes: string[] = [];
const figures: string[] = [];

afterAll(async () => {
  console.log(`publish around stop() in child processes:\n  ${figures.join('\n  ')}`);
  const admin = await connectedAdmin(kafkaBrokers());
  try {
    for (const prefix of prefixes) await deletePrefix(admin, prefix);
  } finally {
    await admin.disconnect();
  }
});

/** Every value on the topic, read from its start by a plain kafkajs consumer. */
async function topicValues(topic: string): Promise<string[]> {
  const kafka = newKafka(`stop-publish-reader-${Date.now()}`);
  const admin = kafka.admin();
  await admin.connect();
  const high = await admin
    .fetchTopicOffsets(topic)
    .then((partitions) => partitions.reduce((sum, p) => sum + Number(p.high), 0))
    .finally(() => admin.disconnect());
  const values: string[] = [];
  if (high === 0) return values;
  const consumer = kafka.consumer({ groupId: `${topic}.reader-${Date.now()}` });
  try {
    await consumer.connect();
    await consumer.subscribe({ topics: [topic], fromBeginning: true });
    await consumer.run({
      eachMessage: async ({ message }) => void values.push(message.value?.toString() ?? ''),
    });
    await waitFor(() => values.length >= high, { message: `read ${values.length} of ${high}` });
  } finally {
    await consumer.disconnect();
  }
  return values;
}

/** The child's stdout lines, and when its last one was written. */
function linesOf(run: StartupChildRun): { lines: string[]; doneAt: number } {
  const lines = run.stdout.split('\n').filter((l) => !l.startsWith('[broadcast]') && l.trim());
  const done = lines.find((l) => l.startsWith('done at '));
  return { lines, doneAt: done ? Number(done.slice('done at '.length)) : Number.NaN };
}

describe.each(kafkaClients())('a publish around stop() on %s', (client) => {
  it.each(['after', 'during'] as const)(
    'publish %s stop(): answered, nothing sent after stop, the process ends by itself',
    async (when) => {
      const topicPrefix = testPrefix(`stop-publish-${when}-${client}`);
      prefixes.push(topicPrefix);
      const run = await runStartupChild('stop-publish', {
        options: {
          topicPrefix,
          lock: false,
          heartbeat: false,
          startupTimeoutMs: 30_000,
          consumer: { sessionTimeoutMs: 6_000, heartbeatIntervalMs: 500, maxWaitTimeMs: 100 },
          kafka: { brokers: kafkaBrokers(), client, ...groupProtocolOf(client) },
        },
        deadlineMs: DEADLINE_MS,
        env: { STOP_PUBLISH: when },
      });
      const output = `exit ${run.code} signal ${run.signal}\n--- stdout\n${run.stdout}\n--- stderr\n${run.stderr}`;
      expect(run.killed, output).toBe(false);
      expect(run.code, output).toBe(0);
      const { lines, doneAt } = linesOf(run);
      const second = lines.find((l) => l.startsWith('n=2 '));
      figures.push(
        `${client} publish ${when} stop(): ${second?.slice(0, 40) ?? 'n=2 never answered'}; exit ${run.code ?? run.signal} ${run.exitedAt - doneAt} ms after its last line (${run.elapsedMs} ms in all)`,
      );
      const values = (await topicValues(`${topicPrefix}stop.news`)).map(
        (v) => (JSON.parse(v) as { n: number }).n,
      );
      if (when === 'after') {
        expect(lines.slice(0, 3), output).toEqual([
          'published 1',
          'stopped',
          `n=2 refused: ${CLOSED}`,
        ]);
        expect(values, output).toEqual([1]);
      } else {
        // Answered either way: sent before stop() resolved, or refused as closed (and not sent).
        expect([`n=2 refused: ${CLOSED}`, 'n=2 resolved'], output).toContain(second);
        if (second === 'n=2 resolved')
          expect(lines.indexOf('n=2 resolved'), output).toBeLessThan(lines.indexOf('stopped'));
        expect(values, output).toEqual(second === 'n=2 resolved' ? [1, 2] : [1]);
      }
      expect(run.exitedAt - doneAt, output).toBeLessThanOrEqual(EXIT_WITHIN_MS);
    },
  );
});
