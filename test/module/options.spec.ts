/**
 * Invalid BroadcastModule options fail the Nest bootstrap itself (Test.createTestingModule
 * ... compile()), with the resolver's message naming the option and what it accepts.
 * Every option's message is covered by libs/broadcast/src/core/options/broadcast-options.resolver.spec.ts.
 */
import { Injectable, Module } from '@nestjs/common';
import { Test } from '@nestjs/testing';
import {
  BroadcastModule,
  BroadcastOptionsError,
  BroadcastReader,
  OnBroadcast,
  type BroadcastModuleOptions,
} from 'nestjs-kafka-broadcast';
import { kafkaClients, type BroadcastKafkaClient } from '../support/broker/kafka-clients.js';
import { kafkaBrokers, testPrefix } from '../support/broker/kafka.js';
import { FAST_CONSUMER, quietLogger } from '../support/nest/nest.js';

@Injectable()
class Handler {
  @OnBroadcast('options.events')
  handle() {}
}

/**
 * Valid options on `client` plus `patch` (a `kafka` patch is merged into the valid kafka options).
 * No TypeORM (lock: false), so nothing is left open if compile fails midway.
 */
function optionsWith(
  client: BroadcastKafkaClient,
  { kafka, ...patch }: Record<string, unknown>,
): BroadcastModuleOptions {
  return {
    kafka: { brokers: kafkaBrokers(), client, ...(kafka as object) },
    topicPrefix: testPrefix('options'),
    lock: false,
    consumer: FAST_CONSUMER,
    ...patch,
  } as BroadcastModuleOptions;
}

function compile(imports: NonNullable<Parameters<typeof Test.createTestingModule>[0]['imports']>) {
  return Test.createTestingModule({ imports, providers: [Handler] })
    .setLogger(quietLogger())
    .compile();
}

const cases = [
  {
    title: 'kafka.brokers missing',
    patch: { kafka: { brokers: undefined, clientId: 'no-brokers' } },
    option: 'kafka.brokers',
    message:
      /Invalid BroadcastModule option "kafka\.brokers": expected a non-empty array of "host:port" strings or a function, got undefined\./,
  },
  {
    title: 'maxGroups below 1',
    patch: { maxGroups: 0 },
    option: 'maxGroups',
    message:
      /Invalid BroadcastModule option "maxGroups": expected an integer from 1 to 1000000, got 0\./,
  },
  {
    title: 'heartbeat interval not positive',
    patch: { heartbeat: { intervalMs: -5 } },
    option: 'heartbeat.intervalMs',
    message:
      /Invalid BroadcastModule option "heartbeat\.intervalMs": expected an integer from 1 to 2147483647, got -5\./,
  },
  {
    title: 'consumer heartbeat not below the session timeout',
    patch: { consumer: { sessionTimeoutMs: 6000, heartbeatIntervalMs: 6000 } },
    option: 'consumer.heartbeatIntervalMs',
    message:
      /"consumer\.heartbeatIntervalMs": expected a number below consumer\.sessionTimeoutMs \(6000\), got 6000/,
  },
  {
    title: 'kafka.client unknown',
    patch: { kafka: { client: 'rdkafka' } },
    option: 'kafka.client',
    message:
      /Invalid BroadcastModule option "kafka\.client": expected 'kafkajs', 'platformatic' or 'confluent', got "rdkafka"\./,
  },
  {
    title: 'kafka.sasl without a password',
    patch: { kafka: { sasl: { mechanism: 'scram-sha-512', username: 'svc' } } },
    option: 'kafka.sasl.password',
    message:
      /Invalid BroadcastModule option "kafka\.sasl\.password": expected a string, got undefined\./,
  },
  {
    title: 'kafka.retry.retries negative',
    patch: { kafka: { retry: { retries: -1 } } },
    option: 'kafka.retry.retries',
    message: /Invalid BroadcastModule option "kafka\.retry\.retries": expected an integer from 0/,
  },
  {
    title: 'a misspelled key (topicPrefx)',
    patch: { topicPrefx: 'x.' },
    option: 'topicPrefx',
    message: /^Unknown BroadcastModule option "topicPrefx": did you mean "topicPrefix"\?$/,
  },
  {
    title: 'a misspelled nested key (kafka.clientID)',
    patch: { kafka: { clientID: 'svc' } },
    option: 'kafka.clientID',
    message: /^Unknown BroadcastModule option "kafka\.clientID": did you mean "kafka\.clientId"\?$/,
  },
  {
    title: 'kafka.requestTimeoutMs zero',
    patch: { kafka: { requestTimeoutMs: 0 } },
    option: 'kafka.requestTimeoutMs',
    message: /Invalid BroadcastModule option "kafka\.requestTimeoutMs": expected an integer from 1/,
  },
];

// Each client's run: the kafka.* options are checked the same whichever adapter they name.
describe.each(kafkaClients())(
  'invalid BroadcastModule options fail the bootstrap, %s client',
  (client) => {
    it.each(cases)('forRoot: $title', async ({ patch, option, message }) => {
      const compiling = compile([BroadcastModule.forRoot(optionsWith(client, patch))]);
      await expect(compiling).rejects.toThrow(message);
      await expect(compiling).rejects.toBeInstanceOf(BroadcastOptionsError);
      await expect(compiling).rejects.toMatchObject({ option });
    });

    it.each(cases)('forRootAsync: $title', async ({ patch, message }) => {
      const compiling = compile([
        BroadcastModule.forRootAsync({
          useFactory: async () => optionsWith(client, patch),
        }),
      ]);
      await expect(compiling).rejects.toThrow(message);
    });

    it('the same module with valid options compiles (the failures above come from the options alone)', async () => {
      @Module({
        imports: [BroadcastModule.forRoot(optionsWith(client, {}))],
        providers: [Handler],
      })
      class AppModule {}
      const moduleRef = await Test.createTestingModule({ imports: [AppModule] })
        .setLogger(quietLogger())
        .compile();
      try {
        // Compiled, not started: nothing has touched the broker yet.
        expect(moduleRef.get(BroadcastReader).status()).toMatchObject({
          state: 'starting',
          groupId: undefined,
          lockMode: 'none',
        });
      } finally {
        await moduleRef.close();
      }
    });
  },
);
