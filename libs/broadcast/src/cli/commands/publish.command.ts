import type { Command } from 'commander';
import { addCommonOptions, type CommonOptions, withContext } from '../cli-context.js';

interface PublishOptions extends CommonOptions {
  key?: string;
  header: string[];
}

/** `publish <topic> <json>`: one broadcast, as the engine's publisher would write it. */
export function publishCommand(program: Command): void {
  addCommonOptions(
    program
      .command('publish')
      .argument('<topic>', 'logical topic (without --prefix)')
      .argument('<json>', 'the payload, as JSON'),
  )
    .description('publish one broadcast')
    .option('-k, --key <key>', 'record key')
    .option('-H, --header <name=value>', 'a header (repeatable)', collect, [])
    .action((topic: string, json: string, options: PublishOptions) =>
      withContext(options, async (ctx) => {
        try {
          JSON.parse(json);
        } catch (error) {
          throw new Error(`<json> is not valid JSON: ${(error as Error).message}`);
        }
        const headers = Object.fromEntries(
          options.header.map((h) => {
            const at = h.indexOf('=');
            if (at <= 0) throw new Error(`--header must be name=value, got '${h}'`);
            return [h.slice(0, at), h.slice(at + 1)];
          }),
        );
        const fullTopic = ctx.prefix + topic;
        const where = await ctx.kafka.publish(fullTopic, {
          key: options.key ?? null,
          value: json,
          headers,
        });
        if (ctx.json) ctx.print(JSON.stringify({ topic: fullTopic, ...where }));
        else ctx.print(`Published to ${fullTopic}[${where.partition}]@${where.offset}`);
      }),
    );
}

function collect(value: string, previous: string[]): string[] {
  return [...previous, value];
}
