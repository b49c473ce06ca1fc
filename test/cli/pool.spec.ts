/**
 * The operator CLI, built and spawned, against the real broker and PostgreSQL: `pool` shows
 * each group's state, member, instance and lock; `roster` the live instances; `cleanup`
 * deletes only empty groups above the high-water mark or of a retired prefix, dry run first.
 * Without the database driver `pool --database-url` says which package to install.
 */
import { cliEntry, runCli, type CliOptions, scratchInstall } from '../support/package/cli.js';
import { useEngineHarness } from '../support/engine/engine.js';
import { describe1 } from '../support/faults/faults.js';
import { clientScoped, kafkaClientsOf } from '../support/broker/kafka-clients.js';
import { newKafka, testPrefix } from '../support/broker/kafka.js';

/** The engine's default group base in lock mode (option groupBaseName). */
const LOCKED_GROUP_BASE = 'broadcastConsumer';

const DATABASE_URL = 'postgres://postgres@127.0.0.1:5432/test';

/** The npm package of each client, as a user would install it beside the library. */
const KAFKA_PACKAGES = { kafkajs: 'kafkajs', platformatic: '@platformatic/kafka' } as const;

interface PoolJson {
  groups: {
    groupId: string;
    id: number;
    state: string;
    members: { clientId: string; host: string; instance: string | null }[];
    locked?: boolean | null;
  }[];
  lockedIds?: Record<string, number[]>;
}

// The build runs synchronously: do it before any engine runs, or their Kafka sessions expire.
beforeAll(() => void cliEntry(), 300_000);

describe.each(kafkaClientsOf(KAFKA_PACKAGES))('%s client', (client) => {
  const cli = (args: readonly string[], options: CliOptions = {}) =>
    runCli(args, { client, ...options });
  describe('nestjs-kafka-broadcast pool / roster / cleanup', () => {
    it('lists the pool with members, instances and locks, and cleans up only empty leftovers', async () => {
      const h = useEngineHarness('cli-pool', undefined, client);
      const engines = await h.startMany(2, {
        lock: 'postgres',
        topics: ['news'],
      });
      await h.allReady(engines);
      // Instance names come from each member's own info (its subscription user data).

      // Leftovers: an empty pool group far above the live ids, and two groups of a retired prefix,
      // one empty and one with a live (non-broadcast) member.
      const admin = await h.admin();
      const leftover = h.groupName('postgres', 50);
      const retired = `${h.prefix}retired.`;
      for (const groupId of [leftover, `${retired}old-1`])
        await admin.setOffsets({
          groupId,
          topic: h.topic('news'),
          partitions: [{ partition: 0, offset: '0' }],
        });
      const member = newKafka('cli-retired-member').consumer({
        groupId: `${retired}busy`,
        sessionTimeout: 6_000,
      });
      h.onCleanup(() => member.disconnect());
      await member.connect();
      await member.subscribe({ topic: h.topic('news') });
      let joined!: () => void;
      const joinedGroup = new Promise<void>((resolve) => (joined = resolve));
      member.on(member.events.GROUP_JOIN, () => joined());
      await member.run({ eachMessage: async () => undefined });
      await joinedGroup;
      // The harness deletes every group of its prefix (the retired ones included) afterwards.

      const common = ['--prefix', h.prefix];
      const pool = await cli(['pool', ...common, '--json', '--database-url', DATABASE_URL]);
      expect(pool.code, pool.stderr).toBe(0);
      const parsed = JSON.parse(pool.stdout) as PoolJson;
      const live = engines.map((e) => e.status());
      for (const [i, status] of live.entries()) {
        const group = parsed.groups.find((g) => g.groupId === status.groupId);
        expect(group, pool.stdout).toMatchObject({
          id: status.lockId,
          state: 'Stable',
          locked: true,
        });
        expect(group!.members).toEqual([
          {
            memberId: expect.any(String),
            clientId: `cli-pool-${engines[i]!.name}`,
            host: expect.any(String),
            instance: engines[i]!.name,
          },
        ]);
      }
      expect(parsed.groups.find((g) => g.groupId === leftover)).toMatchObject({
        id: 50,
        state: 'Empty',
        members: [],
        locked: false,
      });
      expect(parsed.lockedIds?.[LOCKED_GROUP_BASE]?.sort()).toEqual(
        live.map((s) => s.lockId).sort(),
      );
      expect(parsed.groups.some((g) => g.groupId.startsWith(retired))).toBe(false);

      const table = await cli(['pool', ...common, '--database-url', DATABASE_URL]);
      expect(table.code, table.stderr).toBe(0);
      expect(table.stdout).toMatch(
        /^GROUP\s+ID\s+STATE\s+MEMBERS\s+CLIENT ID\s+HOST\s+INSTANCE\s+LOCKED$/m,
      );
      expect(table.stdout).toContain('3 groups: 2 with one member, 0 with several, 1 empty');
      expect(table.stdout).toMatch(
        new RegExp(`^${leftover.replace(/\./g, '\\.')}\\s+50\\s+Empty\\s+0\\s.*\\sno$`, 'm'),
      );

      const roster = await cli(['roster', ...common, '--json']);
      expect(roster.code, roster.stderr).toBe(0);
      const entries = JSON.parse(roster.stdout) as { instance: string; groupId: string }[];
      expect(entries.map((r) => [r.instance, r.groupId]).sort()).toEqual(
        engines.map((e) => [e.name, e.status().groupId]).sort(),
      );

      // Dry run: nothing deleted.
      const dry = await cli(['cleanup', ...common, '--retired-prefix', retired, '--json']);
      expect(dry.code, dry.stderr).toBe(0);
      const plan = JSON.parse(dry.stdout) as {
        dryRun: boolean;
        groups: { groupId: string; action: string }[];
      };
      expect(plan.dryRun).toBe(true);
      const actions = new Map(plan.groups.map((g) => [g.groupId, g.action]));
      expect(actions.get(leftover)).toBe('would delete');
      expect(actions.get(`${retired}old-1`)).toBe('would delete');
      expect(actions.get(`${retired}busy`)).toBe('kept');
      for (const s of live) expect(actions.get(s.groupId!)).toBe('kept');
      const before = new Set((await admin.listGroups()).groups.map((g) => g.groupId));
      expect(before.has(leftover) && before.has(`${retired}old-1`)).toBe(true);

      const real = await cli(['cleanup', ...common, '--retired-prefix', retired, '--yes']);
      expect(real.code, real.stderr).toBe(0);
      expect(real.stdout).toContain('2 groups deleted');
      const after = new Set((await admin.listGroups()).groups.map((g) => g.groupId));
      expect(after.has(leftover)).toBe(false);
      expect(after.has(`${retired}old-1`)).toBe(false);
      expect(after.has(`${retired}busy`)).toBe(true);
      // Members of either protocol: the engines' groups are KIP-848 ones on @platformatic/kafka.
      const still = await Promise.all(
        [...live.map((s) => s.groupId!), `${retired}busy`].map((g) => describe1(admin, g)),
      );
      expect(still.map((g) => g.memberIds.length)).toEqual([1, 1, 1]);
    });

    it('fails with a clear message without brokers', async () => {
      const run = await cli(['pool', '--brokers', '']);
      expect(run.code).toBe(1);
      expect(run.stderr).toContain('--brokers (or KAFKA_BROKERS) is required');
    });

    it('pool --database-url without the driver names the package to install in one line, and works once it is there', async () => {
      // The package as a user's install has it, with commander, this row's Kafka client and
      // neither driver.
      const install = scratchInstall(['commander', KAFKA_PACKAGES[client]]);
      onTestFinished(() => install.remove());
      const prefix = testPrefix(clientScoped('cli-drivers', client));
      const cases = [
        ['postgres://postgres@127.0.0.1:5432/test', 'postgres', 'pg'],
        ['mysql://root@127.0.0.1:3306/test', 'mysql', 'mysql2'],
      ] as const;
      for (const [url, scheme, driver] of cases) {
        const args = ['pool', '--prefix', prefix, '--database-url', url];
        const missing = await cli(args, { entry: install.entry });
        expect(missing).toEqual({
          code: 1,
          stdout: '',
          stderr: `error: pool --database-url ${scheme}://… needs the '${driver}' package: npm install ${driver}\n`,
        });
        // The same install with the driver added: the driver was the only thing missing.
        install.add(driver);
        const present = await cli(args, { entry: install.entry });
        expect(present.code, present.stderr).toBe(0);
        expect(present.stdout).toContain(`locked ids (${prefix}${LOCKED_GROUP_BASE}): none`);
      }
    });
  });
});
