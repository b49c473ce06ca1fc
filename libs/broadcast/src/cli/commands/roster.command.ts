import type { Command } from 'commander';
import {
  addBaseOption,
  addCommonOptions,
  type CommonOptions,
  withContext,
} from '../cli-context.js';
import { parseDuration } from '../duration.js';
import { heartbeatInstances } from '../heartbeat-instances.js';
import { listPoolGroups } from '../pool-groups.js';
import { deriveRoster } from '../roster.js';
import { formatTable } from '../table.js';
import { warnUnknownStates } from '../unknown-state.js';

/** `roster`: the live instances, one per group that has exactly one member. */
export function rosterCommand(program: Command): void {
  addBaseOption(addCommonOptions(program.command('roster')))
    .description('list the live instances (each is the only member of its pool group)')
    .option(
      '--heartbeats <duration>',
      'also name instances without member info from heartbeats of this window (e.g. 10m)',
      '0',
    )
    .action((options: CommonOptions & { heartbeats: string }) =>
      withContext(options, async (ctx) => {
        const groups = await listPoolGroups(ctx.kafka, ctx.prefix, ctx.bases);
        warnUnknownStates(groups, 'roster');
        const window =
          options.heartbeats === '0' ? 0 : parseDuration('--heartbeats', options.heartbeats);
        const roster = deriveRoster(
          groups,
          await heartbeatInstances(ctx.kafka, ctx.heartbeatTopic, window),
        );
        if (ctx.json) return ctx.print(JSON.stringify(roster, null, 2));
        ctx.print(
          formatTable(
            ['INSTANCE', 'GROUP', 'CLIENT ID', 'HOST'],
            roster.map((r) => [r.instance ?? '-', r.groupId, r.clientId, r.host]),
          ),
        );
        ctx.print(`${roster.length} live instance${roster.length === 1 ? '' : 's'}`);
      }),
    );
}
