import { type Command, Option } from 'commander';
import { KAFKA_CLIENT_NAMES } from '../adapters/registry.js';
import {
  DEFAULT_HEARTBEAT_TOPIC,
  DEFAULT_LOCK_FREE_GROUP_BASE,
  DEFAULT_LOCKED_GROUP_BASE,
} from '../core/options/broadcast.defaults.js';
import type {
  BroadcastKafkaClient,
  BroadcastKafkaOptions,
} from '../interfaces/broadcast-kafka-options.interface.js';
import type { OperatorKafkaPort } from '../interfaces/broadcast-operator.interface.js';
import { kafkaSecurityFromEnv } from './environment.js';
import { loadOperatorPort } from './operator-client.js';

/** Options every command takes (and --base, for the commands that read the pool). */
export interface CommonOptions {
  brokers?: string;
  /** The Kafka client library to use; by default @platformatic/kafka when installed, else kafkajs. */
  client?: BroadcastKafkaClient;
  prefix: string;
  base?: string;
  json?: boolean;
}

/** What a command works with. */
export interface CliContext {
  kafka: OperatorKafkaPort;
  /** How `kafka` reaches the cluster, for a command that needs another client. */
  kafkaOptions: BroadcastKafkaOptions;
  prefix: string;
  /** Group base names of the pool: --base, or both defaults (locked and lock-free). */
  bases: string[];
  /** Bases whose ids are advisory locks (lock namespace `<prefix><base>`). */
  lockedBases: string[];
  heartbeatTopic: string;
  json: boolean;
  print(text: string): void;
}

/** --brokers, --client, --prefix and --json: every command connects to Kafka and prints. */
export function addCommonOptions(command: Command): Command {
  return command
    .addOption(
      new Option('-b, --brokers <list>', 'Kafka brokers, host:port comma-separated').env(
        'KAFKA_BROKERS',
      ),
    )
    .addOption(
      new Option(
        '--client <name>',
        'Kafka client library (default: platformatic (@platformatic/kafka) when installed, else kafkajs; only platformatic describes KIP-848 groups)',
      )
        .choices(KAFKA_CLIENT_NAMES)
        .env('KAFKA_CLIENT'),
    )
    .addOption(
      new Option('-p, --prefix <prefix>', "the application's topicPrefix")
        .env('BROADCAST_TOPIC_PREFIX')
        .default(''),
    )
    .option('--json', 'print JSON instead of text');
}

/** --base, for the commands that read the pool's groups (pool, roster, cleanup). */
export function addBaseOption(command: Command): Command {
  return command.option(
    '--base <name>',
    `group base name (default: ${DEFAULT_LOCKED_GROUP_BASE} and ${DEFAULT_LOCK_FREE_GROUP_BASE})`,
  );
}

/**
 * --base where it means nothing (tail, publish): it was documented for every command, so it is
 * still accepted, hidden from --help, and ignored with a warning.
 */
export function addIgnoredBaseOption(command: Command): Command {
  return command.addOption(
    new Option('--base <name>').hideHelp().argParser(() => {
      process.stderr.write(
        `warning: --base has no effect on ${command.name()} (only pool, roster and cleanup read it); ignored\n`,
      );
      return undefined;
    }),
  );
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
  const kafkaOptions: BroadcastKafkaOptions = {
    brokers,
    ...(options.client && { client: options.client }),
    ...kafkaSecurityFromEnv(),
  };
  // Loaded before any work: a missing client fails the command before it does anything.
  const kafka = await loadOperatorPort(kafkaOptions);
  const context: CliContext = {
    kafka,
    kafkaOptions,
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
