/**
 * BroadcastModule.forRootAsync: options from a factory (useFactory), a class the module
 * instantiates (useClass) or a provider of an imported module (useExisting), each reading a config
 * service of an imported module. The module is global unless isGlobal: false, for forRoot and
 * forRootAsync alike, and BROADCAST_MODULE_OPTIONS holds the options it was given.
 */
import { Inject, Injectable, Module, type DynamicModule } from '@nestjs/common';
import { Test } from '@nestjs/testing';
import { onTestFinished } from 'vitest';
import {
  BROADCAST_MODULE_OPTIONS,
  BroadcastEngine,
  BroadcastModule,
  BroadcastPublisher,
  BroadcastReader,
  OnBroadcast,
  type BroadcastModuleAsyncOptions,
  type BroadcastModuleOptions,
  type BroadcastOptionsFactory,
} from 'nestjs-kafka-broadcast';
import { waitFor } from '../support/broker/kafka.js';
import { kafkaClients, type BroadcastKafkaClient } from '../support/broker/kafka-clients.js';
import {
  FAST_CONSUMER,
  postgresRoot,
  quietLogger,
  useNestHarness,
  type NestHarness,
} from '../support/nest/nest.js';

const ENV = Symbol('ENV');

/** A ConfigService look-alike: string settings by key. */
@Injectable()
class ConfigService {
  constructor(@Inject(ENV) private readonly env: Record<string, string>) {}

  has(key: string): boolean {
    return this.env[key] !== undefined;
  }

  get(key: string): string {
    const value = this.env[key];
    if (value === undefined) throw new Error(`missing config ${key}`);
    return value;
  }
}

@Module({})
class ConfigModule {
  static forRoot(env: Record<string, string>): DynamicModule {
    return {
      module: ConfigModule,
      providers: [{ provide: ENV, useValue: env }, ConfigService],
      exports: [ConfigService],
    };
  }
}

/** The module options, read from the config service (whichever way the module asks for them). */
function optionsFrom(config: ConfigService): BroadcastModuleOptions {
  return {
    kafka: {
      brokers: config.get('KAFKA_BROKERS').split(','),
      ...(config.has('KAFKA_CLIENT') && {
        client: config.get('KAFKA_CLIENT') as BroadcastKafkaClient,
      }),
    },
    topicPrefix: config.get('BROADCAST_PREFIX'),
    groupBaseName: config.get('BROADCAST_GROUP'),
    maxGroups: Number(config.get('BROADCAST_MAX_GROUPS')),
    consumer: FAST_CONSUMER,
  };
}

/** For useClass and useExisting: an options factory that records each call. */
@Injectable()
class BroadcastConfig implements BroadcastOptionsFactory {
  static readonly calls: BroadcastConfig[] = [];

  constructor(readonly config: ConfigService) {}

  createBroadcastOptions(): BroadcastModuleOptions {
    BroadcastConfig.calls.push(this);
    return optionsFrom(this.config);
  }
}

/** Exports a BroadcastConfig instance, for useExisting. */
@Module({})
class BroadcastConfigModule {
  static forRoot(env: Record<string, string>): DynamicModule {
    return {
      module: BroadcastConfigModule,
      imports: [ConfigModule.forRoot(env)],
      providers: [BroadcastConfig],
      exports: [BroadcastConfig],
    };
  }
}

/** Lives in a module that does NOT import BroadcastModule: resolvable only when it is global. */
@Injectable()
class Notifier {
  readonly seen: unknown[] = [];

  constructor(
    readonly publisher: BroadcastPublisher,
    readonly reader: BroadcastReader,
    @Inject(BROADCAST_MODULE_OPTIONS) readonly options: BroadcastModuleOptions,
  ) {}

  @OnBroadcast('notes')
  onNote(payload: unknown) {
    this.seen.push(payload);
  }
}

@Module({ providers: [Notifier] })
class FeatureModule {}

function envOf(h: NestHarness, group: string): Record<string, string> {
  return {
    KAFKA_BROKERS: h.brokers.join(','),
    ...(h.client && { KAFKA_CLIENT: h.client }),
    BROADCAST_PREFIX: h.prefix,
    BROADCAST_GROUP: group,
    BROADCAST_MAX_GROUPS: '7',
  };
}

function broadcastFromConfig(
  env: Record<string, string>,
  factoryCalls: ConfigService[],
  extra: Pick<BroadcastModuleAsyncOptions, 'isGlobal'> = {},
) {
  return BroadcastModule.forRootAsync({
    ...extra,
    imports: [ConfigModule.forRoot(env)],
    inject: [ConfigService],
    useFactory: (config: ConfigService): BroadcastModuleOptions => {
      factoryCalls.push(config);
      return optionsFrom(config);
    },
  });
}

/**
 * Starts an app with `broadcast` and FeatureModule, checks that the options came from the config
 * (group, maxGroups, BROADCAST_MODULE_OPTIONS) and that FeatureModule's Notifier publishes and
 * receives through it.
 */
async function expectReceivesThrough(h: NestHarness, broadcast: DynamicModule, group: string) {
  const app = await h.start({ imports: [postgresRoot(), broadcast, FeatureModule] });
  const notifier = app.get(Notifier);
  expect(notifier.reader).toBe(app.get(BroadcastReader));
  expect(notifier.reader.status()).toMatchObject({
    state: 'ready',
    lockMode: 'postgres',
    lockId: 0,
    groupId: `${h.prefix}${group}-0`,
  });
  expect(await h.groups()).toEqual([`${h.prefix}${group}-0`]);
  expect(app.get(BroadcastEngine).options.maxGroups).toBe(7);
  expect(notifier.options).toMatchObject({ topicPrefix: h.prefix, groupBaseName: group });

  await notifier.publisher.publish('notes', { hello: group });
  await waitFor(() => notifier.seen.length === 1, {
    message: 'the feature module handler receives the note',
  });
  expect(notifier.seen).toEqual([{ hello: group }]);
  return app;
}

describe.each(kafkaClients())('BroadcastModule.forRootAsync, %s client', (client) => {
  beforeEach(() => {
    BroadcastConfig.calls.length = 0;
  });

  it('useFactory: builds the options with an injected config service; global by default', async () => {
    const h = useNestHarness('for-root-async', undefined, client);
    const factoryCalls: ConfigService[] = [];
    await expectReceivesThrough(
      h,
      broadcastFromConfig(envOf(h, 'asyncGroup'), factoryCalls),
      'asyncGroup',
    );
    // The factory ran once, with the ConfigService of the imported module.
    expect(factoryCalls).toHaveLength(1);
    expect(factoryCalls[0]).toBeInstanceOf(ConfigService);
  });

  it('useClass: the module instantiates the factory class, injecting from its imports, and calls createBroadcastOptions()', async () => {
    const h = useNestHarness('for-root-async-class', undefined, client);
    const broadcast = BroadcastModule.forRootAsync({
      imports: [ConfigModule.forRoot(envOf(h, 'classGroup'))],
      useClass: BroadcastConfig,
    });
    const app = await expectReceivesThrough(h, broadcast, 'classGroup');
    expect(BroadcastConfig.calls).toHaveLength(1);
    expect(BroadcastConfig.calls[0]!.config).toBeInstanceOf(ConfigService);
    expect(BroadcastConfig.calls[0]).toBe(app.get(BroadcastConfig));
  });

  it("useExisting: the imported module's instance supplies the options", async () => {
    const h = useNestHarness('for-root-async-existing', undefined, client);
    const configModule = BroadcastConfigModule.forRoot(envOf(h, 'existingGroup'));
    const broadcast = BroadcastModule.forRootAsync({
      imports: [configModule],
      useExisting: BroadcastConfig,
    });
    const app = await expectReceivesThrough(h, broadcast, 'existingGroup');
    // Called once, on the instance BroadcastConfigModule exports: no second one was made.
    expect(BroadcastConfig.calls).toHaveLength(1);
    expect(BroadcastConfig.calls[0]).toBe(app.get(BroadcastConfig));
  });
});

// Compiled, never started: no Kafka client is made, so one run is enough.
describe('BroadcastModule visibility', () => {
  /** Compiles (no start) BroadcastModule next to FeatureModule, whose Notifier injects it. */
  function compileWithFeature(broadcast: DynamicModule) {
    return Test.createTestingModule({ imports: [broadcast, FeatureModule] })
      .setLogger(quietLogger())
      .compile();
  }

  const options: BroadcastModuleOptions = {
    kafka: { brokers: ['unused:1'] },
    topicPrefix: 'unused.',
    lock: false,
  };
  const env = {
    KAFKA_BROKERS: 'unused:1',
    BROADCAST_PREFIX: 'unused.',
    BROADCAST_GROUP: 'g',
    BROADCAST_MAX_GROUPS: '1',
  };

  it.each([
    ['forRoot', () => BroadcastModule.forRoot(options)],
    ['forRoot, isGlobal: true', () => BroadcastModule.forRoot({ ...options, isGlobal: true })],
    ['forRootAsync', () => broadcastFromConfig(env, [])],
  ])(
    '%s: global, so a module that does not import it injects its providers and its options',
    async (_title, broadcast) => {
      const moduleRef = await compileWithFeature(broadcast());
      onTestFinished(() => moduleRef.close());
      const notifier = moduleRef.get(Notifier);
      expect(notifier.publisher).toBe(moduleRef.get(BroadcastPublisher));
      // The options as given, without the module's own isGlobal.
      expect(notifier.options).toMatchObject({ topicPrefix: 'unused.' });
      expect(notifier.options).not.toHaveProperty('isGlobal');
    },
  );

  it.each([
    ['forRoot', () => BroadcastModule.forRoot({ ...options, isGlobal: false })],
    ['forRootAsync', () => broadcastFromConfig(env, [], { isGlobal: false })],
  ])(
    '%s with isGlobal: false: a module that does not import it cannot inject its providers',
    async (_title, broadcast) => {
      await expect(compileWithFeature(broadcast())).rejects.toThrow(
        /Nest can't resolve dependencies of the Notifier/,
      );
    },
  );
});
