/**
 * BroadcastModule.forRootAsync: options from a factory that injects a config service of an
 * imported module; isGlobal makes the broadcast providers injectable everywhere.
 */
import { Inject, Injectable, Module, type DynamicModule } from '@nestjs/common';
import { Test } from '@nestjs/testing';
import {
  BroadcastEngine,
  BroadcastModule,
  BroadcastPublisher,
  BroadcastReader,
  OnBroadcast,
  type BroadcastModuleOptions,
} from 'nestjs-kafka-broadcast';
import { waitFor } from './support/kafka.js';
import { FAST_CONSUMER, postgresRoot, quietLogger, useNestHarness } from './support/nest.js';

const ENV = Symbol('ENV');

/** A ConfigService look-alike: string settings by key. */
@Injectable()
class ConfigService {
  constructor(@Inject(ENV) private readonly env: Record<string, string>) {}

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

/** Lives in a module that does NOT import BroadcastModule: resolvable only when it is global. */
@Injectable()
class Notifier {
  readonly seen: unknown[] = [];

  constructor(
    readonly publisher: BroadcastPublisher,
    readonly reader: BroadcastReader,
  ) {}

  @OnBroadcast('notes')
  onNote(payload: unknown) {
    this.seen.push(payload);
  }
}

@Module({ providers: [Notifier] })
class FeatureModule {}

function broadcastFromConfig(
  env: Record<string, string>,
  factoryCalls: ConfigService[],
  isGlobal: boolean,
) {
  return BroadcastModule.forRootAsync({
    isGlobal,
    imports: [ConfigModule.forRoot(env)],
    inject: [ConfigService],
    useFactory: (config: ConfigService): BroadcastModuleOptions => {
      factoryCalls.push(config);
      return {
        kafka: { brokers: config.get('KAFKA_BROKERS').split(',') },
        topicPrefix: config.get('BROADCAST_PREFIX'),
        groupBaseName: config.get('BROADCAST_GROUP'),
        maxGroups: Number(config.get('BROADCAST_MAX_GROUPS')),
        consumer: FAST_CONSUMER,
      };
    },
  });
}

describe('BroadcastModule.forRootAsync', () => {
  it('builds the options with an injected config service, and isGlobal exports the providers everywhere', async () => {
    const h = useNestHarness('for-root-async');
    const env = {
      KAFKA_BROKERS: h.brokers.join(','),
      BROADCAST_PREFIX: h.prefix,
      BROADCAST_GROUP: 'asyncGroup',
      BROADCAST_MAX_GROUPS: '7',
    };
    const factoryCalls: ConfigService[] = [];
    const app = await h.start({
      imports: [postgresRoot(), broadcastFromConfig(env, factoryCalls, true), FeatureModule],
    });

    // The factory ran once, with the ConfigService of the imported module.
    expect(factoryCalls).toHaveLength(1);
    expect(factoryCalls[0]).toBeInstanceOf(ConfigService);

    // The options it returned are the ones in use.
    const notifier = app.get(Notifier);
    expect(notifier.reader).toBe(app.get(BroadcastReader));
    const status = notifier.reader.status();
    expect(status).toMatchObject({
      state: 'ready',
      lockMode: 'postgres',
      lockId: 0,
      groupId: `${h.prefix}asyncGroup-0`,
    });
    expect(await h.groups()).toEqual([`${h.prefix}asyncGroup-0`]);
    expect(app.get(BroadcastEngine).options.maxGroups).toBe(7);

    // A provider of a module that never imported BroadcastModule publishes and receives.
    await notifier.publisher.publish('notes', { hello: 'async' });
    await waitFor(() => notifier.seen.length === 1, {
      message: 'the feature module handler receives the note',
    });
    expect(notifier.seen).toEqual([{ hello: 'async' }]);
  });

  it('without isGlobal, a module that does not import BroadcastModule cannot inject its providers', async () => {
    const env = {
      KAFKA_BROKERS: 'unused:1',
      BROADCAST_PREFIX: 'unused.',
      BROADCAST_GROUP: 'g',
      BROADCAST_MAX_GROUPS: '1',
    };
    const compiling = Test.createTestingModule({
      imports: [broadcastFromConfig(env, [], false), FeatureModule],
    })
      .setLogger(quietLogger())
      .compile();
    await expect(compiling).rejects.toThrow(/Nest can't resolve dependencies of the Notifier/);
  });
});
