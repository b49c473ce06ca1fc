import { BroadcastStartupError } from '../errors/broadcast-startup.error.js';
import { resolveBroadcastOptions } from '../core/options/broadcast-options.resolver.js';
import type { ResolvedBroadcastOptions } from '../core/options/broadcast-options.resolver.js';
import type { BroadcastKafkaClient } from '../interfaces/broadcast-kafka-options.interface.js';
import type { AdapterPort } from '../adapters/shared/deferred-group-consumer.js';
import { consoleLogger } from './console-logger.js';
import { loadKafkaPort, type AdapterImport } from './kafka-client.loader.js';

/** The error Node throws when an adapter's client package cannot be resolved. */
function notFound(pkg: string): Error {
  return Object.assign(new Error(`Cannot find package '${pkg}' imported from /app/x.js`), {
    code: 'ERR_MODULE_NOT_FOUND',
  });
}

class Fake {
  constructor(readonly name: string) {}
}

/** The loader over fake adapters, each either "installed" or failing as Node does without its client. */
function loader(installed: { kafkajs: boolean; platformatic: boolean; confluent?: boolean }) {
  const adapters: Record<BroadcastKafkaClient, AdapterImport> = {
    kafkajs: async () => {
      if (!installed.kafkajs) throw notFound('kafkajs');
      return new Fake('kafkajs') as unknown as AdapterPort;
    },
    platformatic: async () => {
      if (!installed.platformatic) throw notFound('@platformatic/kafka');
      return new Fake('platformatic') as unknown as AdapterPort;
    },
    confluent: async () => {
      if (!installed.confluent) throw notFound('@confluentinc/kafka-javascript');
      return new Fake('confluent') as unknown as AdapterPort;
    },
  };
  return (o: ResolvedBroadcastOptions) => loadKafkaPort(o, consoleLogger, adapters);
}

const options = (kafka: object) =>
  resolveBroadcastOptions({ kafka: { brokers: ['a:1'], ...kafka }, lock: false });

describe('loadKafkaPort: which client adapter the engine uses', () => {
  it('defaults to @platformatic/kafka when both are installed, and kafka.client picks kafkajs', async () => {
    const load = loader({ kafkajs: true, platformatic: true });
    expect(((await load(options({}))) as unknown as Fake).name).toBe('platformatic');
    const chosen = await load(options({ client: 'kafkajs' }));
    expect((chosen as unknown as Fake).name).toBe('kafkajs');
  });

  it('falls back to kafkajs when @platformatic/kafka is not installed', async () => {
    const load = loader({ kafkajs: true, platformatic: false });
    expect(await load(options({}))).toMatchObject({ name: 'kafkajs' });
  });

  it('fails with a BroadcastStartupError naming kafka.client and both packages when neither is installed', async () => {
    const load = loader({ kafkajs: false, platformatic: false });
    const error = await load(options({})).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(BroadcastStartupError);
    expect(error).toMatchObject({ option: 'kafka.client' });
    expect((error as Error).message).toMatch(
      /npm install @platformatic\/kafka.*npm install kafkajs/,
    );
  });

  it('names the chosen client when kafka.client names one that is not installed', async () => {
    const load = loader({ kafkajs: true, platformatic: false });
    const error = await load(options({ client: 'platformatic' })).catch((e: unknown) => e);
    expect(error).toMatchObject({ option: 'kafka.client' });
    expect((error as Error).message).toMatch(
      /kafka\.client is 'platformatic' but @platformatic\/kafka is not installed/,
    );
  });
});
