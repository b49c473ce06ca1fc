import type { Command } from 'commander';
import type { OperatorRecord } from '../../interfaces/broadcast-operator.interface.js';
import {
  addCommonOptions,
  addIgnoredBaseOption,
  type CommonOptions,
  withContext,
} from '../cli-context.js';
import { parseDuration } from '../duration.js';

interface TailOptions extends CommonOptions {
  since?: string;
  max?: string;
}

/** `tail <topic>`: prints broadcasts as they arrive, without joining any pool group. */
export function tailCommand(program: Command): void {
  addIgnoredBaseOption(
    addCommonOptions(
      program.command('tail').argument('<topic>', 'logical topic (without --prefix)'),
    ),
  )
    .description('print broadcasts live (key, headers, timestamp) without joining a pool group')
    .option('--since <duration>', 'start this long ago (e.g. 5m) instead of now')
    .option('--max <count>', 'stop after this many records')
    .action((topic: string, options: TailOptions) =>
      withContext(options, async (ctx) => {
        const since = options.since
          ? Date.now() - parseDuration('--since', options.since)
          : undefined;
        const max = options.max === undefined ? Infinity : Number(options.max);
        if (!(Number.isInteger(max) && max > 0) && max !== Infinity)
          throw new Error(`--max must be a positive integer, got '${options.max}'`);
        const abort = new AbortController();
        const stop = () => abort.abort();
        process.once('SIGINT', stop).once('SIGTERM', stop);
        let seen = 0;
        try {
          await ctx.kafka.read(ctx.prefix + topic, {
            since,
            signal: abort.signal,
            positioned: () =>
              process.stderr.write(
                `Tailing ${ctx.prefix + topic} from ${since === undefined ? 'now' : new Date(since).toISOString()} (Ctrl-C to stop)\n`,
              ),
            onRecord: (record) => {
              ctx.print(ctx.json ? JSON.stringify(record) : formatRecord(record));
              if (++seen >= max) abort.abort();
            },
          });
        } finally {
          process.off('SIGINT', stop).off('SIGTERM', stop);
        }
      }),
    );
}

function formatRecord(r: OperatorRecord): string {
  const headers = Object.keys(r.headers).length ? ` headers=${JSON.stringify(r.headers)}` : '';
  return `${new Date(r.timestamp).toISOString()} ${r.topic}[${r.partition}]@${r.offset} key=${r.key ?? '-'}${headers} ${r.value ?? '(null)'}`;
}
