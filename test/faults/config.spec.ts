// Configuration errors fail at startup, naming the option; a database without advisory locks
// (better-sqlite3) gives lock-free mode with a warning.
import 'reflect-metadata';
import { Test } from '@nestjs/testing';
import { TypeOrmModule } from '@nestjs/typeorm';
import {
  BroadcastEngine,
  BroadcastModule,
  BroadcastOptionsError,
  BroadcastReader,
  type BroadcastModuleOptions,
} from 'nestjs-kafka-broadcast';
import {
  connectedAdmin,
  connectedProducer,
  deletePrefix,
  FAST_CONSUMER,
  prefixGroups,
  publishJson,
  recordReliability,
  faultEngines,
} from '../support/faults/faults.js';
import { CapturingLogger } from '../support/engine/capturing-logger.js';
import { kafkaBrokers, testPrefix, waitFor } from '../support/broker/kafka.js';
import { clientScoped, groupProtocolOf, kafkaClients } from '../support/broker/kafka-clients.js';

const brokers = kafkaBrokers();

function construct(options: unknown): BroadcastOptionsError {
  try {
    new BroadcastEngine(options as BroadcastModuleOptions, {
      logger: new CapturingLogger(),
    });
  } catch (error) {
    expect(error).toBeInstanceOf(BroadcastOptionsError);
    return error as BroadcastOptionsError;
  }
  throw new Error(`new BroadcastEngine(${JSON.stringify(options)}) did not throw`);
}

describe('configuration errors fail at startup, naming the option', () => {
  const kafka = { brokers: ['127.0.0.1:9'] };

  it.each([
    ['no kafka section', {}, 'kafka'],
    ['brokers missing', { kafka: {} }, 'kafka.brokers'],
    ['brokers empty', { kafka: { brokers: [] } }, 'kafka.brokers'],
    ['a broker that is an empty string', { kafka: { brokers: [''] } }, 'kafka.brokers'],
    ['maxGroups 0', { kafka, maxGroups: 0 }, 'maxGroups'],
    ['maxGroups -3', { kafka, maxGroups: -3 }, 'maxGroups'],
    ['maxGroups 1.5', { kafka, maxGroups: 1.5 }, 'maxGroups'],
    ['heartbeat interval 0', { kafka, heartbeat: { intervalMs: 0 } }, 'heartbeat.intervalMs'],
    [
      'heartbeat interval -1000',
      { kafka, heartbeat: { intervalMs: -1_000 } },
      'heartbeat.intervalMs',
    ],
  ])('%s', (_label, options, option) => {
    const error = construct(options);
    expect(error.option).toBe(option);
    expect(error.message).toContain(`"${option}"`);
  });

  it('an unknown lock.dataSource fails the Nest application init, naming lock.dataSource', async () => {
    const prefix = testPrefix('faults-config-unknown-ds');
    const moduleRef = await Test.createTestingModule({
      imports: [
        BroadcastModule.forRoot({
          kafka: { brokers },
          topicPrefix: prefix,
          lock: { dataSource: 'nope' },
          consumer: FAST_CONSUMER,
          heartbeat: false,
        }),
      ],
    }).compile();
    moduleRef.useLogger(false);
    try {
      const init = moduleRef.init();
      await expect(init).rejects.toBeInstanceOf(BroadcastOptionsError);
      await expect(init).rejects.toMatchObject({ option: 'lock.dataSource' });
      await expect(init).rejects.toThrow(/"lock\.dataSource".*got "nope"/);
    } finally {
      await moduleRef.close().catch(() => undefined);
    }
    const admin = await connectedAdmin(brokers);
    try {
      expect(await prefixGroups(admin, prefix)).toEqual([]);
      await deletePrefix(admin, prefix);
    } finally {
      await admin.disconnect();
    }
  });
});

// Option checks above run before a client is chosen; the engines below run on each adapter.
describe.each(kafkaClients())('a better-sqlite3 DataSource (%s client)', (client) => {
  it('gives lock-free mode (broadcastLFConsumer) with a warning, and still delivers', async () => {
    const prefix = testPrefix(clientScoped('faults-config-sqlite', client));
    const engines = faultEngines(prefix, brokers, client);
    try {
      const local = await engines.create({
        name: 'sqlite',
        lock: 'none',
        topics: ['news'],
        dataSource: { type: 'better-sqlite3', database: ':memory:' },
      });
      expect(local.logger.matching(/'better-sqlite3'.*lock-free/, 'warn')).toHaveLength(1);
      await engines.startEngine(local);
      const status = local.engine.reader.status();
      expect(status).toMatchObject({ state: 'ready', lockMode: 'none' });
      expect(status.groupId).toMatch(
        new RegExp(`^${prefix.replace(/\./g, '\\.')}broadcastLFConsumer-\\d+$`),
      );
      const producer = await connectedProducer(brokers);
      try {
        await publishJson(producer, `${prefix}news`, [{ n: 1 }]);
        await waitFor(() => local.payloads('news').length === 1, {
          timeoutMs: 20_000,
          message: 'not delivered',
        });
      } finally {
        await producer.disconnect();
      }
      expect(local.payloads('news')).toEqual([{ n: 1 }]);
      recordReliability({
        scenario: clientScoped('config-sqlite-lock-free', client),
        instances: 1,
        crashes: 0,
        sent: 1,
        received: 1,
        lost: 0,
        lockMode: status.lockMode,
        groupId: status.groupId!.slice(prefix.length),
        recoverMs: null,
      });
    } finally {
      await engines.cleanup();
    }
  });

  it('through Nest (TypeOrmModule.forRoot) as well', async () => {
    const prefix = testPrefix(clientScoped('faults-config-sqlite-nest', client));
    const moduleRef = await Test.createTestingModule({
      imports: [
        TypeOrmModule.forRoot({ type: 'better-sqlite3', database: ':memory:' }),
        BroadcastModule.forRoot({
          kafka: { brokers, client, ...groupProtocolOf(client) },
          topicPrefix: prefix,
          consumer: FAST_CONSUMER,
          heartbeat: false,
        }),
      ],
    }).compile();
    moduleRef.useLogger(false);
    try {
      await moduleRef.init();
      const status = moduleRef.get(BroadcastReader).status();
      expect(status).toMatchObject({ state: 'ready', lockMode: 'none' });
      expect(status.groupId!.startsWith(`${prefix}broadcastLFConsumer-`)).toBe(true);
    } finally {
      await moduleRef.close();
      const admin = await connectedAdmin(brokers);
      await deletePrefix(admin, prefix).finally(() => admin.disconnect());
    }
  });
});
