import { type Command, Option } from 'commander';
import {
  DEFAULT_HEARTBEAT_TOPIC,
  DEFAULT_LOCK_FREE_GROUP_BASE,
  DEFAULT_LOCKED_GROUP_BASE,
} from '../broadcast.constants.js';
import type { OperatorKafkaPort } from '../interfaces/broadcast-operator.interface.js';
import { KafkajsOperator } from '../kafka/kafkajs-operator.js';

/** Options every command takes. */
export interface CommonOptions {
  brokers?: string;
  prefix: string;
  base?: string;
  json?: boolean;
}

/** What a command works with. */
export interface CliContext {
  kafka: OperatorKafkaPort;
  prefix: string;
  /** Group base names of the pool: --base, or both defaults (locked and lock-free). */
  bases: string[];
  /** Bases whose ids are advisory locks (lock namespace `<prefix><base>`). */
  lockedBases: string[];
  heartbeatTopic: string;
  json: boolean;
  print(text: string): void;
}

export function addCommonOptions(command: Command): Command {
  return command
    .addOption(
      new Option('-b, --brokers <list>', 'Kafka brokers, host:port comma-separated').env(
        'KAFKA_BROKERS',
      ),
    )
    .option('-p, --prefix <prefix>', "the application's topicPrefix", '')
    .option(
      '--base <name>',
      `group base name (default: ${DEFAULT_LOCKED_GROUP_BASE} and ${DEFAULT_LOCK_FREE_GROUP_BASE})`,
    )
    .option('--json', 'print JSON instead of tables');
}

/** Runs `work` with a connected context and always disconnects. */
export async function withContext<T>(
  options: CommonOptions,
  work: (context: CliContext) => Promise<T>,
): Promise<T> {
  const brokers = (options.brokers ?? '')
    .split(',')
    .map((b) => b.trim())
    .filter(Boolean);
  if (brokers.length === 0)
    throw new Error('--brokers (or KAFKA_BROKERS) is required, e.g. --brokers 127.0.0.1:9092');
  const kafka = new KafkajsOperator({ brokers });
  const context: CliContext = {
    kafka,
    prefix: options.prefix,
    bases: options.base
      ? [options.base]
      : [DEFAULT_LOCKED_GROUP_BASE, DEFAULT_LOCK_FREE_GROUP_BASE],
    lockedBases: options.base ? [options.base] : [DEFAULT_LOCKED_GROUP_BASE],
    heartbeatTopic: options.prefix + DEFAULT_HEARTBEAT_TOPIC,
    json: options.json === true,
    print: (text) => void process.stdout.write(`${text}\n`),
  };
  try {
    return await work(context);
  } finally {
    await kafka.disconnect();
  }
}
