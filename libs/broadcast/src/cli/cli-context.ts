import { readFileSync } from 'node:fs';
import { type Command, Option } from 'commander';
import {
  DEFAULT_HEARTBEAT_TOPIC,
  DEFAULT_LOCK_FREE_GROUP_BASE,
  DEFAULT_LOCKED_GROUP_BASE,
} from '../broadcast.constants.js';
import type { BroadcastKafkaOptions } from '../interfaces/broadcast-kafka-options.interface.js';
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

/**
 * TLS and SASL from the environment, as the demo reads them: KAFKA_SSL=true or KAFKA_SSL_CA_FILE,
 * KAFKA_SASL_MECHANISM / KAFKA_SASL_USERNAME / KAFKA_SASL_PASSWORD. The password is taken only
 * from the environment (a flag would show in `ps`) and never printed.
 */
function kafkaSecurityFromEnv(env = process.env): Partial<BroadcastKafkaOptions> {
  const caFile = env.KAFKA_SSL_CA_FILE;
  const ssl = caFile
    ? { ca: [readFileSync(caFile, 'utf8')] }
    : env.KAFKA_SSL === 'true' || undefined;
  const mechanism = env.KAFKA_SASL_MECHANISM?.toLowerCase();
  const { KAFKA_SASL_USERNAME: username = '', KAFKA_SASL_PASSWORD: password = '' } = env;
  if (mechanism && !['plain', 'scram-sha-256', 'scram-sha-512'].includes(mechanism))
    throw new Error(`KAFKA_SASL_MECHANISM must be plain, scram-sha-256 or scram-sha-512`);
  const sasl = mechanism
    ? {
        mechanism: mechanism as NonNullable<BroadcastKafkaOptions['sasl']>['mechanism'],
        username,
        password,
      }
    : undefined;
  return { ...(ssl !== undefined && { ssl }), ...(sasl && { sasl }) };
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
  const kafka = new KafkajsOperator({ brokers, ...kafkaSecurityFromEnv() });
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
