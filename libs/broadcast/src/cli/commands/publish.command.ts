import type { Command } from 'commander';
import { DEFAULT_RECEIPTS_TOPIC } from '../../core/options/feature-options.resolver.js';
import { DEFAULT_RECEIPT_TIMEOUT_MS } from '../../core/publishing/publish-features.js';
import { targetHeaders } from '../../core/features/targeting/targeting.js';
import {
  addCommonOptions,
  addIgnoredBaseOption,
  type CliContext,
  type CommonOptions,
  withContext,
} from '../cli-context.js';
import { parsePublishRequest, type PublishInput, type PublishRequest } from '../publish-request.js';
import { cliInstanceId, publishWithReceipts } from '../publish-receipts.js';
import { formatReceipt, receiptProblem } from '../receipt-report.js';
import { openRosterAdmin } from '../roster-admin.js';
import { stderrLogger } from '../stderr-logger.js';

type PublishOptions = CommonOptions & PublishInput;

/** The exit code of a publish whose receipt is not a confirmation (1 is an error). */
export const UNCONFIRMED_EXIT_CODE = 2;

const EXAMPLES = `
Examples:
  $ nestjs-kafka-broadcast publish cache.flush '{"all":true}' --prefix shop.
  $ nestjs-kafka-broadcast publish flags.reload '{}' --to-services billing --receipts
  $ nestjs-kafka-broadcast publish flags.reload '{}' --to-instances api-1,api-2 --receipts 30s --json

Exit code 2: with --receipts, an expected instance failed or never answered (1: an error).`;

/** `publish <topic> <json>`: one broadcast, as the engine's publisher would write it. */
export function publishCommand(program: Command): void {
  const command = program
    .command('publish')
    .argument('<topic>', 'logical topic (without --prefix)')
    .argument('<json>', 'the payload, as JSON');
  addIgnoredBaseOption(addCommonOptions(command))
    .description('publish one broadcast, to every instance or only some, optionally with receipts')
    .option('-k, --key <key>', 'record key')
    .option('-H, --header <name=value>', 'a header (repeatable)', collect)
    .option(
      '--to-instances <ids>',
      'only these instances handle it: instance ids (instanceId), comma-separated (repeatable)',
      collect,
    )
    .option(
      '--to-services <names>',
      'only these services handle it: group base names (groupBaseName), comma-separated (repeatable); with --to-instances, an instance in either handles it',
      collect,
    )
    .option(
      '--receipts [timeout]',
      `wait for the live instances to handle it and print who did: a timeout in ms or like 30s (default ${DEFAULT_RECEIPT_TIMEOUT_MS / 1_000}s)`,
    )
    .option(
      '--receipts-topic <topic>',
      `the application's receipts.topic, without --prefix (default: ${DEFAULT_RECEIPTS_TOPIC})`,
    )
    .addHelpText('after', EXAMPLES)
    .action((topic: string, json: string, options: PublishOptions) => {
      // Every option is checked before anything connects: a bad one publishes nothing.
      const request = parsePublishRequest(json, options);
      return withContext(options, (ctx) =>
        request.receipts
          ? publishConfirmed(ctx, topic, { ...request, receipts: request.receipts })
          : publishPlain(ctx, topic, request),
      );
    });
}

async function publishPlain(
  ctx: CliContext,
  topic: string,
  request: PublishRequest,
): Promise<void> {
  const fullTopic = ctx.prefix + topic;
  const where = await ctx.kafka.publish(fullTopic, {
    key: request.key,
    value: request.value,
    headers: { ...request.headers, ...targetHeaders(request.to, undefined) },
  });
  if (ctx.json) ctx.print(JSON.stringify({ topic: fullTopic, ...where }));
  else ctx.print(`Published to ${fullTopic}[${where.partition}]@${where.offset}`);
}

async function publishConfirmed(
  ctx: CliContext,
  topic: string,
  request: PublishRequest & { receipts: NonNullable<PublishRequest['receipts']> },
): Promise<void> {
  const fullTopic = ctx.prefix + topic;
  const roster = openRosterAdmin(ctx.kafkaOptions, stderrLogger);
  try {
    const { receipt, ...where } = await publishWithReceipts(
      {
        kafka: ctx.kafka,
        rosterAdmin: roster.admin,
        prefix: ctx.prefix,
        instanceId: cliInstanceId(),
        logger: stderrLogger,
      },
      topic,
      request,
    );
    if (ctx.json) ctx.print(JSON.stringify({ topic: fullTopic, ...where, receipt }));
    else {
      ctx.print(`Published to ${fullTopic}[${where.partition}]@${where.offset}`);
      ctx.print(formatReceipt(receipt));
    }
    const problem = receiptProblem(receipt);
    if (problem) {
      process.stderr.write(`error: ${problem}\n`);
      process.exitCode = UNCONFIRMED_EXIT_CODE;
    }
  } finally {
    await roster.close();
  }
}

/** A repeatable option's values (no commander default: --help would show "(default: [])"). */
function collect(value: string, previous: string[] = []): string[] {
  return [...previous, value];
}
