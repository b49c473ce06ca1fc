/**
 * An install with @confluentinc/kafka-javascript as its only Kafka client (the built package
 * copied where nothing resolves from the repository's node_modules, see scratchInstall): the
 * engine broadcasts on it, chosen by kafka.client or by being the one installed. And the same
 * install whose native addon does not load (none built, as after an install without scripts, or a
 * file that is no addon for this machine): the engine ends its start in a BroadcastStartupError
 * naming the package, the loader's reason and what to do, and the CLI says the same, with no
 * crash and no stack. (Not here: librdkafka's shared library missing from build/deps. On a
 * machine with the distribution's librdkafka1, 2.0.2 on this one, the loader takes that instead,
 * and the process dies at the first call of a newer function, exit 127, "symbol lookup error",
 * which no JavaScript can catch: docs/DEPLOYMENT.md says to copy the package whole.)
 */
import { cpSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { testPrefix } from '../support/broker/kafka.js';
import { runCli, scratchInstall, type ScratchInstall } from '../support/package/cli.js';
import { REPO_ROOT } from '../support/package/package-apps.js';
import { ENGINE_ROUND_TRIP, runScript } from '../support/package/scratch-engine.js';

const PKG = '@confluentinc/kafka-javascript';

describe('an install with @confluentinc/kafka-javascript alone', () => {
  let install: ScratchInstall;
  beforeAll(() => {
    install = scratchInstall(['commander', PKG]);
  }, 300_000);
  afterAll(() => install?.remove());

  it('the engine broadcasts on it, chosen by kafka.client or by being the one installed', async () => {
    const prefix = testPrefix('confluent-only-engine');
    for (const CLIENT of ['', 'confluent']) {
      const run = await runScript(install, ENGINE_ROUND_TRIP, { PREFIX: prefix, CLIENT });
      expect(run.code, run.stderr).toBe(0);
      expect(JSON.parse(run.stdout), run.stderr).toEqual({ received: { n: 1 } });
    }
  });
});

describe('an install whose @confluentinc/kafka-javascript addon does not load', () => {
  let install: ScratchInstall;
  let addon: string;
  beforeAll(() => {
    install = scratchInstall(['commander']);
    // A copy (not a link) of the working package, whose addon each test then breaks.
    const copy = join(install.entry, '..', '..', '..', '..', PKG);
    cpSync(join(REPO_ROOT, 'node_modules', PKG), copy, { recursive: true });
    addon = join(copy, 'build', 'Release', 'confluent-kafka-javascript.node');
  }, 300_000);
  afterAll(() => install?.remove());

  /** What npm ci --ignore-scripts leaves (no addon built or fetched), and a file that is no addon. */
  const BROKEN: [string, () => void, string][] = [
    ['no addon', () => rmSync(addon, { force: true }), 'Could not locate the bindings file'],
    [
      'not an addon',
      () => writeFileSync(addon, 'not an ELF file\n'.repeat(100)),
      'invalid ELF header',
    ],
  ];

  it.each(BROKEN)(
    '%s: the engine fails its start with a BroadcastStartupError naming the package, the reason and what to do',
    async (_, breakIt, reason) => {
      breakIt();
      const prefix = testPrefix('confluent-unloadable');
      // Chosen by kafka.client, and picked as the one installed: the same error, no crash.
      for (const CLIENT of ['confluent', '']) {
        const run = await runScript(install, ENGINE_ROUND_TRIP, { PREFIX: prefix, CLIENT });
        expect(run.code, run.stderr).toBe(0);
        const error = JSON.parse(run.stdout) as { error: string; option: string; message: string };
        expect(error).toMatchObject({ error: 'BroadcastStartupError', option: 'kafka.client' });
        expect(error.message).toMatch(
          new RegExp(`^${PKG} is installed but its native addon does not load: .*${reason}`),
        );
        expect(error.message).toContain(`Rebuild it for this Node (npm rebuild ${PKG};`);
        expect(error.message).toContain('CKJS_LINKING=dynamic');
        expect(error.message).toContain('or set kafka.client to another installed client.');
      }
    },
  );

  it('the CLI says the same in one line, exit 1', async () => {
    rmSync(addon, { force: true });
    const run = await runCli(['pool', '--prefix', 'confluent-unloadable'], {
      entry: install.entry,
    });
    expect(run.code).toBe(1);
    expect(run.stderr).toMatch(
      new RegExp(`^error: ${PKG} is installed but its native addon does not load: .*bindings`),
    );
    expect(run.stderr).not.toMatch(/\n\s+at /);
  });
});
