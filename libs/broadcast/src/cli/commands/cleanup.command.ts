import type { Command } from 'commander';
import {
  addBaseOption,
  addCommonOptions,
  type CommonOptions,
  withContext,
} from '../cli-context.js';
import { planCleanup } from '../cleanup-plan.js';
import { listPoolGroups } from '../pool-groups.js';
import { formatTable } from '../table.js';
import { warnUnknownStates } from '../unknown-state.js';

interface CleanupOptions extends CommonOptions {
  retiredPrefix?: string;
  yes?: boolean;
}

/**
 * `cleanup`: deletes empty pool groups above the high-water mark (every empty one of the
 * lock-free pool) and every group of a retired prefix. Dry run unless --yes; a group with a member is never deleted (re-checked just before).
 */
export function cleanupCommand(program: Command): void {
  addBaseOption(addCommonOptions(program.command('cleanup')))
    .description(
      'delete empty pool groups above the high-water mark (any empty lock-free one) and groups of a retired prefix',
    )
    .option(
      '--retired-prefix <prefix>',
      'also delete every empty group whose name starts with this',
    )
    .option('-y, --yes', 'really delete (default: dry run)')
    .action((options: CleanupOptions) =>
      withContext(options, async (ctx) => {
        const pool = await listPoolGroups(ctx.kafka, ctx.prefix, ctx.bases);
        let retired: Awaited<ReturnType<typeof ctx.kafka.describeGroups>> = [];
        if (options.retiredPrefix) {
          const ids = (await ctx.kafka.listGroupIds()).filter((g) =>
            g.startsWith(options.retiredPrefix!),
          );
          retired = await ctx.kafka.describeGroups(ids);
        }
        warnUnknownStates([...pool, ...retired], 'cleanup');
        const lockFree = ctx.bases.filter((b) => !ctx.lockedBases.includes(b));
        const plan = planCleanup(pool, retired, lockFree);
        const results = [];
        for (const item of plan) {
          let action = item.delete ? (options.yes ? 'deleted' : 'would delete') : 'kept';
          if (item.delete && options.yes) {
            // Members may have joined since the listing: look again, and the broker refuses a non-empty group anyway.
            const [now] = await ctx.kafka.describeGroups([item.groupId]);
            if (now && now.members.length > 0) action = 'kept (a member joined)';
            else {
              const outcome = await ctx.kafka.deleteGroup(item.groupId);
              action = outcome === 'non-empty' ? 'kept (a member joined)' : outcome;
            }
          }
          results.push({ ...item, action });
        }
        if (ctx.json)
          return ctx.print(JSON.stringify({ dryRun: !options.yes, groups: results }, null, 2));
        ctx.print(
          formatTable(
            ['GROUP', 'STATE', 'MEMBERS', 'REASON', 'ACTION'],
            results.map((r) => [r.groupId, r.state, String(r.members), r.reason, r.action]),
          ),
        );
        const deleting = results.filter((r) => r.delete).length;
        ctx.print(
          options.yes
            ? `${results.filter((r) => r.action === 'deleted').length} groups deleted`
            : `dry run: ${deleting} groups would be deleted; add --yes to delete them`,
        );
      }),
    );
}
