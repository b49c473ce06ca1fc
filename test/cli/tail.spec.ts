/**
 * The operator CLI's `publish` and `tail`, built and spawned, against the real broker: tail
 * prints what is published from now on (key, headers, timestamp), or from `--since`, and
 * joins no pool group: the engine's group keeps its single member and tail's own throwaway
 * group is gone afterwards.
 */
import { cliEntry, runCli, type CliOptions, spawnCli } from '../support/package/cli.js';
import { useEngineHarness } from '../support/engine/engine.js';
import { describe1 } from '../support/faults/faults.js';
import { kafkaClients } from '../support/broker/kafka-clients.js';
import { waitFor } from '../support/broker/kafka.js';

interface TailedRecord {
  topic: string;
  partition: number;
  offset: string;
  timestamp: number;
  key: string | null;
  headers: Record<string, string>;
  value: string | null;
}

beforeAll(() => void cliEntry(), 300_000);

const lines = (text: string) => text.split('\n').filter(Boolean);

describe.each(kafkaClients())('%s client', (client) => {
  const cli = (args: readonly string[], options: CliOptions = {}) =>
    runCli(args, { client, ...options });
  const spawnCliOn = (args: readonly string[]) => spawnCli(args, { client });
  describe('nestjs-kafka-broadcast publish / tail', () => {
    it('tails live broadcasts without joining a pool group, then replays them with --since', async () => {
      const h = useEngineHarness('cli-tail', undefined, client);
      const [engine] = await h.startMany(1, { lock: 'none', topics: ['news'] });
      await h.allReady([engine!]);
      const groupsBefore = new Set(
        (await (await h.admin()).listGroups()).groups.map((g) => g.groupId),
      );
      const common = ['--prefix', h.prefix];
      const ourGroups = async () =>
        (await (await h.admin()).listGroups()).groups
          .map((g) => g.groupId)
          .filter((g) => g.startsWith(h.prefix));

      const tail = spawnCliOn(['tail', 'news', ...common, '--json', '--max', '2']);
      h.onCleanup(async () => void tail.kill('SIGKILL'));
      await waitFor(() => tail.output().stderr.includes('Tailing'), { timeoutMs: 30_000 });
      // While tail runs, its group is a throwaway one outside the pool.
      const added = await waitFor(async () => {
        const fresh = (await ourGroups()).filter((g) => !groupsBefore.has(g));
        return fresh.length > 0 ? fresh : undefined;
      });
      expect(added).toHaveLength(1);
      expect(added[0]).toMatch(new RegExp(`^${h.topic('news').replace(/\./g, '\\.')}\\.tail-`));

      const first = await cli([
        'publish',
        'news',
        '{"n":1}',
        ...common,
        '--key',
        'k1',
        '-H',
        'origin=cli',
      ]);
      expect(first.code, first.stderr).toBe(0);
      expect(first.stdout).toMatch(
        new RegExp(`^Published to ${h.topic('news').replace(/\./g, '\\.')}\\[0\\]@0$`, 'm'),
      );
      const second = await cli(['publish', 'news', '{"n":2}', ...common, '--json']);
      expect(second.code, second.stderr).toBe(0);
      expect(JSON.parse(second.stdout)).toEqual({
        topic: h.topic('news'),
        partition: 0,
        offset: '1',
      });

      await waitFor(() => tail.exitCode !== null, {
        timeoutMs: 60_000,
        message: `tail did not print both records: ${JSON.stringify(tail.output())}`,
      });
      const out = tail.output();
      expect(tail.exitCode, out.stderr).toBe(0);
      const records = lines(out.stdout).map((l) => JSON.parse(l) as TailedRecord);
      expect(records.map((r) => [r.offset, r.key, r.value])).toEqual([
        ['0', 'k1', '{"n":1}'],
        ['1', null, '{"n":2}'],
      ]);
      expect(records[0]!.headers).toEqual({ origin: 'cli' });
      expect(records[0]!.timestamp).toBeGreaterThanOrEqual(h.startedAt);

      // The engine got both and still reads alone through its own group; tail's group is gone.
      await waitFor(() => engine!.payloads('news').length === 2);
      const groupsAfter = await ourGroups();
      expect(groupsAfter.filter((g) => !groupsBefore.has(g))).toEqual([]);
      const view = await describe1(await h.admin(), engine!.status().groupId!);
      expect(view.memberIds).toHaveLength(1);

      // --since replays what is already there; the human format shows key and headers.
      const replay = await cli(['tail', 'news', ...common, '--since', '5m', '--max', '2']);
      expect(replay.code, replay.stderr).toBe(0);
      const [one, two] = lines(replay.stdout);
      expect(one).toMatch(
        /^\d{4}-\d\d-\d\dT[\d:.]+Z \S+\[0\]@0 key=k1 headers=\{"origin":"cli"\} \{"n":1\}$/,
      );
      expect(two).toMatch(/\[0\]@1 key=- \{"n":2\}$/);
    });

    it('refuses bad input naming the option', async () => {
      const bad = await cli(['publish', 'news', '{not json']);
      expect(bad.code).toBe(1);
      expect(bad.stderr).toContain('<json> is not valid JSON');
      const since = await cli(['tail', 'news', '--since', 'yesterday']);
      expect(since.code).toBe(1);
      expect(since.stderr).toContain(
        "--since must be a duration like 30s, 5m or 2h, got 'yesterday'",
      );
    });
  });
});
