// Compile-time checks of forRootAsync's factory (npm run typecheck covers this file): a factory that
// returns a key the options do not have does not compile. At run time the calls only build modules.
import { BroadcastModule } from './broadcast.module.js';

const kafka = { brokers: ['127.0.0.1:9092'] };

describe('forRootAsync: the factory returns exactly the options', () => {
  it('refuses a misspelled top-level key, sync or async, and accepts the real ones', () => {
    BroadcastModule.forRootAsync({
      // @ts-expect-error topicPrefx is not an option (topicPrefix is)
      useFactory: () => ({ kafka, topicPrefx: 'x.' }),
    });
    BroadcastModule.forRootAsync({
      // @ts-expect-error maxGroup is not an option (maxGroups is)
      useFactory: async () => ({ kafka, maxGroup: 3 }),
    });
    const built = BroadcastModule.forRootAsync({
      inject: ['CONFIG'],
      useFactory: (config: { prefix: string }) => ({
        kafka,
        topicPrefix: config.prefix,
        lock: false as const,
      }),
      isGlobal: false,
    });
    expect(built.global).toBe(false);
  });
});
