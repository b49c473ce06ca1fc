/**
 * The operator CLI's `publish --to-instances / --to-services / --receipts`, built and spawned,
 * against the real broker and in-process engines as receivers: a targeted publish reaches exactly
 * the targeted instances (the others count it `filtered`); with --receipts the CLI waits for the
 * instances' acknowledgements, prints who handled it, and exits 2 when one failed or is missing.
 */
import type { BroadcastReceipt } from 'nestjs-kafka-broadcast';
import { cliEntry, runCli, type CliOptions } from '../support/package/cli.js';
import { FAST_CONSUMER, useEngineHarness, type TestEngine } from '../support/engine/engine.js';
import { kafkaClients } from '../support/broker/kafka-clients.js';
import { waitFor } from '../support/broker/kafka.js';

const TOPIC = 'flags.reload';

interface PublishedJson {
  topic: string;
  partition: number;
  offset: string;
  receipt?: BroadcastReceipt;
}

/** The engines that handled the payload `{ n }`. */
function handledBy(engines: readonly TestEngine[], n: number): string[] {
  return engines
    .filter((e) => e.payloads(TOPIC).some((p) => (p as { n: number }).n === n))
    .map((e) => e.name)
    .sort();
}

beforeAll(() => void cliEntry(), 300_000);

describe.each(kafkaClients())('%s client', (client) => {
  const cli = (args: readonly string[], options: CliOptions = {}) =>
    runCli(args, { client, ...options });
  describe('nestjs-kafka-broadcast publish --to / --receipts', () => {
    it('reaches only the targeted instances and services, and prints the receipt of a live engine', async () => {
      const h = useEngineHarness('cli-publish', undefined, client);
      const start = (name: string, service: string) =>
        h.start({ lock: 'none', topics: [TOPIC], name, options: { groupBaseName: service } });
      const a1 = await start('a1', 'svcA');
      const a2 = await start('a2', 'svcA');
      const b1 = await start('b1', 'svcB');
      const all = [a1, a2, b1];
      await h.allReady(all);
      const publish = (n: number, ...args: string[]) =>
        cli(['publish', TOPIC, JSON.stringify({ n }), '--prefix', h.prefix, ...args]);

      const toA2 = await publish(1, '--to-instances', 'a2');
      expect(toA2.code, toA2.stderr).toBe(0);
      expect(toA2.stdout).toMatch(/^Published to \S+\[0\]@0$/m);

      const toB = await publish(2, '--to-services', 'svcB', '--receipts', '60s', '--json');
      expect(toB.code, toB.stderr).toBe(0);
      const parsed = JSON.parse(toB.stdout) as PublishedJson;
      expect(parsed).toMatchObject({ topic: h.topic(TOPIC), partition: 0, offset: '1' });
      expect(parsed.receipt).toMatchObject({
        topic: TOPIC,
        expected: ['b1'],
        ok: ['b1'],
        failed: [],
        missing: [],
      });

      // Both options at once: the union, as the library's `to` has it; the table names each.
      const union = await publish(
        3,
        '--to-instances',
        'a1',
        '--to-services',
        'svcB',
        '--receipts',
        '60000',
      );
      expect(union.code, union.stderr).toBe(0);
      expect(union.stdout).toMatch(
        /^Receipt \S+: 2 expected, 2 ok, 0 failed, 0 missing \(\d+ ms\)$/m,
      );
      expect(union.stdout).toMatch(/^INSTANCE\s+RESULT\s+ERRORS$/m);
      expect(union.stdout).toMatch(/^a1\s+ok$/m);
      expect(union.stdout).toMatch(/^b1\s+ok$/m);

      // The CLI read the acknowledgements through a throwaway group of its own, gone since.
      expect(await h.listGroups()).toEqual(all.map((e) => e.status().groupId).sort());

      // A marker everyone handles: once it is in, every earlier message was read by everyone.
      const marker = await publish(4);
      expect(marker.code, marker.stderr).toBe(0);
      await waitFor(() => handledBy(all, 4).length === 3, { timeoutMs: 30_000 });
      expect([1, 2, 3].map((n) => handledBy(all, n))).toEqual([['a2'], ['b1'], ['a1', 'b1']]);
      expect(all.map((e) => [e.name, e.status().received, e.status().filtered])).toEqual([
        ['a1', 4, 2],
        ['a2', 4, 2],
        ['b1', 4, 1],
      ]);
    });

    it('exits 2 when an expected instance failed or never answered, naming it', async () => {
      const h = useEngineHarness('cli-publish-receipts', undefined, client);
      const failing = await h.start({
        lock: 'none',
        topics: [TOPIC],
        name: 'failing',
        register: (e) =>
          e.on(
            TOPIC,
            () => {
              throw new Error('cannot reload');
            },
            'Flags.reload',
          ),
      });
      // Its handler waits until the test ends, and may take that long: it never answers in time.
      let release!: () => void;
      const held = new Promise<void>((resolve) => (release = resolve));
      h.onCleanup(async () => release());
      const stuck = await h.start({
        lock: 'none',
        topics: [TOPIC],
        name: 'stuck',
        register: (e) => e.on(TOPIC, () => held, 'Flags.reload'),
        // A handler may take that long only below the session timeout: both far beyond the test.
        options: {
          handlerTimeoutMs: 590_000,
          consumer: { ...FAST_CONSUMER, sessionTimeoutMs: 600_000 },
        },
      });
      await h.allReady([failing, stuck]);
      const publish = (n: number, ...args: string[]) =>
        cli(['publish', TOPIC, JSON.stringify({ n }), '--prefix', h.prefix, ...args]);

      const failed = await publish(1, '--to-instances', 'failing', '--receipts', '60s');
      expect(failed.code, failed.stderr).toBe(2);
      expect(failed.stdout).toMatch(/^Receipt \S+: 1 expected, 0 ok, 1 failed, 0 missing/m);
      expect(failed.stdout).toMatch(/^failing\s+failed\s+Flags\.reload: cannot reload$/m);
      expect(failed.stderr).toBe(
        `error: Broadcast "${TOPIC}" was not confirmed by every expected instance: ok 0/1; failed: failing (Flags.reload: cannot reload).\n`,
      );

      // The receipt's own timeout ends the wait: stuck is missing.
      const missing = await publish(2, '--to-instances', 'stuck', '--receipts', '2s', '--json');
      expect(missing.code, missing.stderr).toBe(2);
      const receipt = (JSON.parse(missing.stdout) as PublishedJson).receipt!;
      expect(receipt).toMatchObject({
        expected: ['stuck'],
        ok: [],
        failed: [],
        missing: ['stuck'],
      });
      expect(missing.stderr).toBe(
        `error: Broadcast "${TOPIC}" was not confirmed by every expected instance: ok 0/1; missing: stuck.\n`,
      );
      // It did receive the message (and the one for `failing`, filtered): its handler still holds it.
      await waitFor(() => stuck.status().received === 2);
      expect(stuck.status().filtered).toBe(1);
    });

    it('refuses bad --to and --receipts values naming the option, before publishing anything', async () => {
      const h = useEngineHarness('cli-publish-bad', undefined, client);
      const publish = (...args: string[]) =>
        cli(['publish', TOPIC, '{"n":1}', '--prefix', h.prefix, ...args]);
      const cases: [string[], string][] = [
        [
          ['--to-instances', 'a b'],
          "--to-instances takes instance ids separated by commas (letters, digits, '.', '_' and '-'), got 'a b'",
        ],
        [['--to-services', ','], '--to-services names no service'],
        [
          ['--receipts', 'soon'],
          "--receipts takes a timeout in milliseconds (e.g. 5000) or a duration like 30s or 2m, got 'soon'",
        ],
        [['--receipts', '0'], '--receipts takes a timeout'],
        [['--receipts-topic', 'acks'], '--receipts-topic applies only with --receipts'],
      ];
      for (const [args, message] of cases) {
        const run = await publish(...args);
        expect(run.code, run.stderr).toBe(1);
        expect(run.stderr).toContain(`error: ${message}`);
      }
      // Nothing reached the broker: the topic was never even created.
      const topics = await (await h.admin()).listTopics();
      expect(topics.filter((t) => t.startsWith(h.prefix))).toEqual([]);
    });
  });
});
