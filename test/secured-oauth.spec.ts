// SASL/OAUTHBEARER on the secured broker's OAUTHBEARER listener (Kafka's unsecured validator:
// unsigned JWS tokens, `sub` the principal, `exp` checked), over each client adapter: an engine
// whose kafka.sasl.oauthBearerProvider returns a valid token starts, publishes and receives with
// the README's ACLs for that principal; an expired token fails startup naming kafka.sasl.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  BroadcastEngine,
  BroadcastStartupError,
  type BroadcastModuleOptions,
} from 'nestjs-kafka-broadcast';
import { CapturingLogger } from './support/capturing-logger.js';
import { FAST_CONSUMER } from './support/engine.js';
import { kafkaClients } from './support/kafka-clients.js';
import { runId, waitFor } from './support/kafka.js';
import {
  grant,
  oauthKafka,
  readmeAcls,
  startSecured,
  unsecuredJwt,
  type SecuredCluster,
} from './support/secured-cluster.js';

const TOPIC = 'product.changed';
const STARTUP_TIMEOUT_MS = 20_000;

let cluster: SecuredCluster;
const engines: BroadcastEngine[] = [];
const loggers: CapturingLogger[] = [];

beforeAll(async () => {
  cluster = await startSecured({});
});

afterAll(async () => {
  if (process.env.SECURED_DEBUG) for (const l of loggers) console.log(l.dump());
  await Promise.allSettled(engines.map((e) => e.stop()));
  await cluster?.stop();
});

function engine(label: string, kafka: BroadcastModuleOptions['kafka'], prefix: string) {
  const logger = new CapturingLogger(label);
  loggers.push(logger);
  const received: unknown[] = [];
  const e = new BroadcastEngine(
    {
      kafka,
      topicPrefix: prefix,
      lock: false,
      heartbeat: { intervalMs: 500 },
      consumer: FAST_CONSUMER,
      startupTimeoutMs: STARTUP_TIMEOUT_MS,
    },
    { logger },
  ).on(TOPIC, (payload) => {
    received.push(payload);
  });
  engines.push(e);
  return { engine: e, logger, received };
}

describe.each(kafkaClients())('OAUTHBEARER over the %s client', (client) => {
  it('a provider token for a principal with the README ACLs: starts, publishes and receives', async () => {
    const principal = `oauth-${client}-${runId()}`;
    const prefix = `${principal}.`;
    await grant(cluster, principal, readmeAcls(prefix, [TOPIC]));
    const { kafka, logins } = oauthKafka(cluster, () => unsecuredJwt(principal), { client });
    const { engine: e, received } = engine(`${client}-valid`, kafka, prefix);

    await e.start();
    expect(e.reader.status().state).toBe('ready');
    await e.publisher.publish(TOPIC, { id: 1 });
    await waitFor(() => received.length > 0, { message: 'the broadcast was not received' });
    expect(received).toEqual([{ id: 1 }]);
    await waitFor(() => e.heartbeat.sent > 0, { message: 'no heartbeat sent' });
    // Every connection logged in with a token asked of the provider.
    expect(logins()).toBeGreaterThan(0);
  });

  it('an expired token: startup fails at once naming kafka.sasl and the provider', async () => {
    const principal = `oauth-expired-${client}-${runId()}`;
    const { kafka, logins } = oauthKafka(cluster, () => unsecuredJwt(principal, -60), {
      client,
    });
    const { engine: e, logger } = engine(`${client}-expired`, kafka, `${principal}.`);

    const error = await e.start().then(
      () => undefined,
      (err: unknown) => err,
    );
    expect(error).toBeInstanceOf(BroadcastStartupError);
    const refused = error as BroadcastStartupError;
    console.log(`[${client}] expired token: ${refused.message}`);
    expect(refused.option).toBe('kafka.sasl');
    expect(refused.message).toMatch(
      /refused the SASL\/OAUTHBEARER token of kafka\.sasl\.oauthBearerProvider: .*Check the option kafka\.sasl/,
    );
    expect(logins()).toBeGreaterThan(0);
    // Refused, not retried until startupTimeoutMs: no "Could not reach Kafka" either.
    expect(refused.message).not.toMatch(/Could not reach/);
    expect(logger.matching(/Could not reach/, 'error')).toHaveLength(0);
  });
});
