import type { BroadcastKafkaClient } from '../interfaces/broadcast-kafka-options.interface.js';
import type { OperatorKafkaPort } from '../interfaces/broadcast-operator.interface.js';
import { loadOperatorPort, type OperatorImport } from './operator-client.js';

/** The error Node throws when a client package cannot be resolved. */
function notFound(pkg: string): Error {
  return Object.assign(new Error(`Cannot find package '${pkg}' imported from /cli/x.js`), {
    code: 'ERR_MODULE_NOT_FOUND',
  });
}

/** The loader over fake operator ports, each either "installed" or failing as Node does. */
function load(installed: Record<BroadcastKafkaClient, boolean>, client?: BroadcastKafkaClient) {
  const fake =
    (name: BroadcastKafkaClient, pkg: string): OperatorImport =>
    async (kafka) => {
      if (!installed[name]) throw notFound(pkg);
      return { name, kafka } as unknown as OperatorKafkaPort;
    };
  return loadOperatorPort(
    { brokers: ['a:1'], ...(client && { client }) },
    {
      kafkajs: fake('kafkajs', 'kafkajs'),
      platformatic: fake('platformatic', '@platformatic/kafka'),
    },
  );
}

describe('loadOperatorPort: which client the CLI uses', () => {
  it('picks kafkajs when both are installed, --client picks platformatic, and without kafkajs platformatic', async () => {
    expect(await load({ kafkajs: true, platformatic: true })).toMatchObject({ name: 'kafkajs' });
    expect(await load({ kafkajs: true, platformatic: true }, 'platformatic')).toMatchObject({
      name: 'platformatic',
      kafka: { client: 'platformatic', clientId: 'nestjs-kafka-broadcast-cli' },
    });
    expect(await load({ kafkajs: false, platformatic: true })).toMatchObject({
      name: 'platformatic',
    });
  });

  it('names both packages when neither is installed, and the chosen one when it is missing', async () => {
    await expect(load({ kafkajs: false, platformatic: false })).rejects.toThrow(
      'no Kafka client is installed: npm install kafkajs or npm install @platformatic/kafka (--client or KAFKA_CLIENT chooses when both are)',
    );
    await expect(load({ kafkajs: false, platformatic: true }, 'kafkajs')).rejects.toThrow(
      "--client kafkajs (or KAFKA_CLIENT) needs the 'kafkajs' package: npm install kafkajs",
    );
  });

  it('rethrows any other failure of the import', async () => {
    const broken: OperatorImport = async () => {
      throw new SyntaxError('Unexpected token');
    };
    const ok: OperatorImport = async () => ({}) as OperatorKafkaPort;
    await expect(
      loadOperatorPort({ brokers: ['a:1'] }, { kafkajs: broken, platformatic: ok }),
    ).rejects.toThrow(SyntaxError);
  });
});
