import type { Command } from 'commander';
import { heldLockIds } from '../../locks/held-lock-ids.js';
import {
  addBaseOption,
  addCommonOptions,
  type CommonOptions,
  withContext,
} from '../cli-context.js';
import { checkDatabaseDriver } from '../database-driver.js';
import { parseDuration } from '../duration.js';
import { heartbeatInstances } from '../heartbeat-instances.js';
import { decodeMemberInfo } from '../../core/features/roster/member-info.js';
import { listPoolGroups } from '../pool-groups.js';
import { formatTable } from '../table.js';
import { stateUnknown, warnUnknownStates } from '../unknown-state.js';

interface PoolOptions extends CommonOptions {
  databaseUrl?: string;
  heartbeats: string;
}

/** `pool`: every group of the pool with its state, members and (given a database) lock. */
export function poolCommand(program: Command): void {
  addBaseOption(addCommonOptions(program.command('pool')))
    .description("list the pool's consumer groups: state, members, locks")
    .option(
      '--database-url <url>',
      "the locks' database, postgres:// or mysql:// (needs the pg or mysql2 package): show which ids are locked",
    )
    .option(
      '--heartbeats <duration>',
      'also name instances without member info from heartbeats of this window (e.g. 10m)',
      '0',
    )
    .action((options: PoolOptions) => {
      // Before anything connects: a URL we cannot read, or a driver that is not installed.
      if (options.databaseUrl !== undefined) checkDatabaseDriver(options.databaseUrl);
      return withContext(options, async (ctx) => {
        const groups = await listPoolGroups(ctx.kafka, ctx.prefix, ctx.bases);
        warnUnknownStates(groups, 'pool');
        const window =
          options.heartbeats === '0' ? 0 : parseDuration('--heartbeats', options.heartbeats);
        const instances = await heartbeatInstances(ctx.kafka, ctx.heartbeatTopic, window);
        const locked = new Map<string, Set<number>>();
        if (options.databaseUrl) {
          for (const base of ctx.lockedBases) {
            const ids = groups.filter((g) => g.base === base).map((g) => g.id);
            locked.set(base, await heldLockIds(options.databaseUrl, ctx.prefix + base, ids));
          }
        }
        const lockedOf = (base: string, id: number) =>
          locked.has(base) ? locked.get(base)!.has(id) : undefined;
        const rows = groups.map((g) => ({
          groupId: g.groupId,
          base: g.base,
          id: g.id,
          state: g.state,
          // Unknown, not none: the client could not describe the group.
          members: stateUnknown(g)
            ? null
            : g.members.map((m) => ({
                memberId: m.memberId,
                clientId: m.clientId,
                host: m.clientHost,
                instance:
                  decodeMemberInfo(m.userData)?.id ??
                  (g.members.length === 1 ? (instances.get(g.groupId) ?? null) : null),
              })),
          ...(options.databaseUrl && { locked: lockedOf(g.base, g.id) ?? null }),
        }));
        if (ctx.json) {
          const lockedIds = Object.fromEntries(
            [...locked].map(([b, ids]) => [b, [...ids].sort((x, y) => x - y)]),
          );
          ctx.print(
            JSON.stringify(
              { prefix: ctx.prefix, groups: rows, ...(options.databaseUrl && { lockedIds }) },
              null,
              2,
            ),
          );
          return;
        }
        const yesNo = (v: boolean | null | undefined) =>
          v === undefined ? [] : [v ? 'yes' : 'no'];
        const table = rows.flatMap((g) => {
          const lockCell = yesNo(g.locked);
          if (g.members === null)
            return [[g.groupId, String(g.id), g.state, '?', '-', '-', '-', ...lockCell]];
          const members = g.members;
          if (members.length === 0)
            return [[g.groupId, String(g.id), g.state, '0', '-', '-', '-', ...lockCell]];
          return members.map((m) => [
            g.groupId,
            String(g.id),
            g.state,
            String(members.length),
            m.clientId,
            m.host,
            m.instance ?? '-',
            ...lockCell,
          ]);
        });
        const headers = ['GROUP', 'ID', 'STATE', 'MEMBERS', 'CLIENT ID', 'HOST', 'INSTANCE'];
        ctx.print(formatTable(options.databaseUrl ? [...headers, 'LOCKED'] : headers, table));
        const live = groups.filter((g) => g.members.length === 1).length;
        const shared = groups.filter((g) => g.members.length > 1).length;
        const unknown = groups.filter(stateUnknown).length;
        ctx.print(
          `${groups.length} groups: ${live} with one member, ${shared} with several, ${groups.length - live - shared - unknown} empty` +
            (unknown > 0 ? `, ${unknown} of unknown state (see the warning)` : ''),
        );
        for (const [base, ids] of locked)
          ctx.print(
            `locked ids (${ctx.prefix}${base}): ${[...ids].sort((x, y) => x - y).join(', ') || 'none'}`,
          );
      });
    });
}
