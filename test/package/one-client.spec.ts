/**
 * An install with one Kafka client: the built package copied where nothing resolves from the
 * repository's node_modules (see scratchInstall), with only @platformatic/kafka beside it, or no
 * client at all. kafkajs cannot be resolved there, so any file that imported it, even the entry
 * through a chain of imports, would fail to load. The engine broadcasts and the operator CLI
 * publishes, tails, collects receipts, lists the pool and the roster and cleans up on
 * @platformatic/kafka alone; without either client both say which packages to install. The built
 * files name a client package only in its adapter folder.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { ensureLibBuilt } from '../support/faults/faults.js';
import { runCli, scratchInstall, spawnCli, type ScratchInstall } from '../support/package/cli.js';
import { ENGINE_ROUND_TRIP, runScript } from '../support/package/scratch-engine.js';
import { useEngineHarness } from '../support/engine/engine.js';
import { testPrefix, waitFor } from '../support/broker/kafka.js';

const lines = (text: string) => text.split('\n').filter(Boolean);
/** The adapter folder each client package may be named in. */
const ADAPTER_FOLDER: Record<string, string> = {
  kafkajs: 'kafkajs',
  '@platformatic/kafka': 'platformatic',
  '@confluentinc/kafka-javascript': 'confluent',
};

describe('an install with @platformatic/kafka and no kafkajs', () => {
  let install: ScratchInstall;
  beforeAll(() => {
    install = scratchInstall(['commander', '@platformatic/kafka']);
  }, 300_000);
  afterAll(() => install?.remove());

  it('loads every entry, and the engine broadcasts on @platformatic/kafka, chosen by kafka.client or by being the one installed', async () => {
    // The Nest layer too: its peers installed, kafkajs still absent.
    for (const peer of ['@nestjs/common', '@nestjs/core', 'reflect-metadata', 'rxjs'])
      install.add(peer);
    const entries = await runScript(
      install,
      `for (const entry of ['index', 'engine', 'locks', 'testing']) await import('$DIST/' + entry + '.js');
       console.log(await import.meta.resolve('kafkajs'));`,
    );
    // The entries loaded; only the last line, resolving kafkajs itself, failed.
    expect(entries.stderr).toMatch(/Cannot find package 'kafkajs'/);
    expect(entries.stdout).toBe('');

    const prefix = testPrefix('one-client-engine');
    // Without kafka.client (kafkajs is not there), and with kafka.client: 'platformatic'.
    for (const CLIENT of ['', 'platformatic']) {
      const run = await runScript(install, ENGINE_ROUND_TRIP, { PREFIX: prefix, CLIENT });
      expect(run.code, run.stderr).toBe(0);
      expect(JSON.parse(run.stdout)).toEqual({ received: { n: 1 } });
    }

    const chosen = await runScript(install, ENGINE_ROUND_TRIP, {
      PREFIX: prefix,
      CLIENT: 'kafkajs',
    });
    expect(JSON.parse(chosen.stdout)).toEqual({
      error: 'BroadcastStartupError',
      option: 'kafka.client',
      message:
        "The option kafka.client is 'kafkajs' but kafkajs is not installed: npm install kafkajs, or set kafka.client to the client that is.",
    });
  });

  it('the CLI publishes, tails, prints receipts, lists the pool and the roster, and cleans up', async () => {
    const h = useEngineHarness('one-client-cli', {}, 'platformatic');
    const engine = await h.start({ lock: 'none', topics: ['news'], name: 'p1' });
    await h.allReady([engine]);
    const common = ['--prefix', h.prefix];
    const cli = (...args: string[]) => runCli([...args, ...common], { entry: install.entry });

    const tail = spawnCli(['tail', 'news', ...common, '--json', '--max', '1'], {
      entry: install.entry,
    });
    h.onCleanup(async () => void tail.kill('SIGKILL'));
    await waitFor(() => tail.output().stderr.includes('Tailing'), { timeoutMs: 30_000 });

    const published = await cli('publish', 'news', '{"n":1}', '--key', 'k1', '-H', 'origin=cli');
    expect(published.code, published.stderr).toBe(0);
    expect(published.stdout).toMatch(/^Published to \S+\[0\]@0$/m);
    await waitFor(() => tail.exitCode !== null, {
      timeoutMs: 60_000,
      message: `tail did not print the record: ${JSON.stringify(tail.output())}`,
    });
    expect(tail.exitCode, tail.output().stderr).toBe(0);
    const [tailed] = lines(tail.output().stdout).map((l) => JSON.parse(l) as object);
    expect(tailed).toMatchObject({ offset: '0', key: 'k1', headers: { origin: 'cli' } });

    const replay = await cli('tail', 'news', '--since', '5m', '--max', '1');
    expect(replay.code, replay.stderr).toBe(0);
    expect(replay.stdout).toMatch(/\[0\]@0 key=k1 headers=\{"origin":"cli"\} \{"n":1\}$/m);

    const receipt = await cli('publish', 'news', '{"n":2}', '--receipts', '60s', '--json');
    expect(receipt.code, receipt.stderr).toBe(0);
    expect(JSON.parse(receipt.stdout)).toMatchObject({
      offset: '1',
      receipt: { expected: ['p1'], ok: ['p1'], failed: [], missing: [] },
    });

    // An empty pool group away from the live id, for pool and cleanup to find. Lock-free ids are
    // drawn over the whole pool, so the live one may be high or low; cleanup deletes an empty
    // lock-free group on either side (a CI run failed when it kept one below the live id).
    const liveId = Number(engine.status().groupId!.split('-').pop());
    const leftoverId = liveId < 100 ? 150 : 50;
    const leftover = h.groupName('none', leftoverId);
    await (
      await h.admin()
    ).setOffsets({
      groupId: leftover,
      topic: h.topic('news'),
      partitions: [{ partition: 0, offset: '0' }],
    });
    const pool = await cli('pool', '--json');
    expect(pool.code, pool.stderr).toBe(0);
    const { groups } = JSON.parse(pool.stdout) as {
      groups: { groupId: string; state: string; members: { instance?: string }[] }[];
    };
    const live = [engine.status().groupId, 'Stable', ['p1']];
    const empty = [leftover, 'Empty', []];
    expect(groups.map((g) => [g.groupId, g.state, g.members.map((m) => m.instance)])).toEqual(
      liveId < leftoverId ? [live, empty] : [empty, live],
    );
    const roster = await cli('roster', '--json');
    expect(roster.code, roster.stderr).toBe(0);
    expect(JSON.parse(roster.stdout)).toMatchObject([
      { instance: 'p1', groupId: engine.status().groupId },
    ]);
    const cleanup = await cli('cleanup', '--yes');
    expect(cleanup.code, cleanup.stderr).toBe(0);
    expect(cleanup.stdout).toContain('1 groups deleted');
    // The leftover, tail's and the receipts' throwaway groups are gone; the engine's is the only one.
    expect(await h.listGroups()).toEqual([engine.status().groupId]);
    await waitFor(() => engine.payloads('news').length === 2);
  });
});

describe('an install with neither client', () => {
  let install: ScratchInstall;
  beforeAll(() => {
    install = scratchInstall(['commander']);
  }, 300_000);
  afterAll(() => install?.remove());

  it('the engine and the CLI name both packages, and --client names the one chosen', async () => {
    const run = await runScript(install, ENGINE_ROUND_TRIP, {
      PREFIX: testPrefix('one-client-none'),
    });
    expect(JSON.parse(run.stdout)).toEqual({
      error: 'BroadcastStartupError',
      option: 'kafka.client',
      message:
        'No Kafka client is installed: install @platformatic/kafka (npm install @platformatic/kafka), @confluentinc/kafka-javascript (npm install @confluentinc/kafka-javascript) or kafkajs (npm install kafkajs). The option kafka.client chooses between them when several are.',
    });
    expect(await runCli(['pool'], { entry: install.entry })).toEqual({
      code: 1,
      stdout: '',
      stderr:
        'error: no Kafka client is installed: npm install @platformatic/kafka, npm install @confluentinc/kafka-javascript or npm install kafkajs (--client or KAFKA_CLIENT chooses when several are)\n',
    });
    expect(await runCli(['roster', '--client', 'platformatic'], { entry: install.entry })).toEqual({
      code: 1,
      stdout: '',
      stderr:
        "error: --client platformatic (or KAFKA_CLIENT) needs the '@platformatic/kafka' package: npm install @platformatic/kafka\n",
    });
  });
});

describe('the built package', () => {
  it('names a client package only in its own dist/adapters/<client>/ folder, in .js and .d.ts alike', () => {
    // A type the compiler inferred from a client would be written into a .d.ts as import("…").
    const dist = dirname(fileURLToPath(ensureLibBuilt()));
    const files = readdirSync(dist, { recursive: true, encoding: 'utf8' }).filter((f) =>
      /\.(js|d\.ts)$/.test(f),
    );
    expect(files.length).toBeGreaterThan(100);
    const outside = files.flatMap((file) => {
      const text = readFileSync(join(dist, file), 'utf8');
      const named = [
        ...text.matchAll(
          /(?:\bfrom\s*|\bimport\s*\(?\s*|\brequire\s*\(\s*)['"](kafkajs|@platformatic\/kafka|@confluentinc\/kafka-javascript)(?:\/[^'"]*)?['"]/g,
        ),
      ];
      const folder = file.split('/').slice(0, 2).join('/');
      return named
        .filter(([, pkg]) => folder !== `adapters/${ADAPTER_FOLDER[pkg!]}`)
        .map(([specifier]) => `${file}: ${specifier}`);
    });
    expect(outside).toEqual([]);
  });
});
