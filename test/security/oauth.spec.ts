// SASL/OAUTHBEARER on the secured broker's OAUTHBEARER listener (Kafka's unsecured validator:
// unsigned JWS tokens, `sub` the principal, `exp` checked), over each client adapter: an engine
// whose kafka.sasl.oauthBearerProvider returns a valid token starts, publishes and receives with
// the README's ACLs for that principal; an expired token fails startup naming kafka.sasl.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BroadcastStartupError, type BroadcastModuleOptions } from 'nestjs-kafka-broadcast';
// The engine itself, not its public type: the test reads its heartbeat's counter.
import { BroadcastEngine } from '../../libs/broadcast/src/engine/broadcast.engine.js';
import { CapturingLogger } from '../support/engine/capturing-logger.js';
import { FAST_CONSUMER } from '../support/engine/engine.js';
import { KAFKA_CLIENTS } from '../../libs/broadcast/src/adapters/registry.js';
import { kafkaClients } from '../support/broker/kafka-clients.js';
import { runId, waitFor } from '../support/broker/kafka.js';
import {
  grant,
  oauthKafka,
  readmeAcls,
  startSecured,
  unsecuredJwt,
  type SecuredCluster,
} from '../support/security/secured-cluster.js';

const TOPIC = 'product.changed';
const STARTUP_TIMEOUT_MS = 20_000;
/** Above kafkajs's re-authentication threshold (10 s): a shorter token is renewed on every request. */
const TOKEN_LIFETIME_S = 15;

/**
 * The longest the event loop may stand still during a start and the token refreshes: far above
 * a loaded machine's timer lag, far below the admin request timeout (5 s) a blocked token
 * hand-over lasts.
 */
const STALL_LIMIT_MS = 2_000;

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

/** The longest gap between ticks of a 50 ms timer, from now until stop(). */
function watchStalls(): { stop(): number } {
  let last = Date.now();
  let longest = 0;
  const timer = setInterval(() => {
    const now = Date.now();
    longest = Math.max(longest, now - last);
    last = now;
  }, 50);
  return {
    stop: () => {
      clearInterval(timer);
      return Math.max(longest, Date.now() - last);
    },
  };
}

function engine(label: string, kafka: BroadcastModuleOptions['kafka'], prefix: string) {
  const logger = new CapturingLogger(label);
  loggers.push(logger);
  const received: unknown[] = [];
  const e = new BroadcastEngine(
    {
      kafka,
      topicPrefix: prefix,
      instanceId: label,
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

  it('short-lived tokens: the client logs in again with a fresh one before each expires, nothing lost', async () => {
    const principal = `oauth-refresh-${client}-${runId()}`;
    const prefix = `${principal}.`;
    await grant(cluster, principal, readmeAcls(prefix, [TOPIC]));
    // The broker ends each session when its token expires (connections.max.reauth.ms is set);
    // kafkajs re-authenticates when less than 10 s remain, @platformatic/kafka at 80 %;
    // librdkafka (@confluentinc/kafka-javascript) asks for a new token 80 % through the current
    // one's life (its JWT exp) and re-authenticates with it at 90 % of the session.
    const { kafka, logins } = oauthKafka(cluster, () => unsecuredJwt(principal, TOKEN_LIFETIME_S), {
      client,
    });
    const { engine: e, received } = engine(`${client}-refresh`, kafka, prefix);

    // Handing a token over never stops the event loop (on @confluentinc/kafka-javascript the
    // binding's setOAuthBearerToken waits on the JS thread for an admin request in flight: the
    // adapter hands tokens over between requests).
    const stalls = watchStalls();
    await e.start();
    const atStart = logins();
    // Every session opened so far ends by then: what still works past it logged in again.
    const startupTokensExpired = Date.now() + TOKEN_LIFETIME_S * 1000;
    const published: number[] = [];
    let next = 0;
    // Publish while sessions expire, until the startup tokens expired and new logins took place.
    await waitFor(
      async () => {
        const id = ++next;
        await e.publisher.publish(TOPIC, { id });
        published.push(id);
        return Date.now() > startupTokensExpired && logins() >= atStart + 2;
      },
      { timeoutMs: 60_000, intervalMs: 500, message: `logins stayed at ${logins()}` },
    );
    const stalled = stalls.stop();
    expect(stalled).toBeLessThan(STALL_LIMIT_MS);
    const ids = () => received.map((p) => (p as { id: number }).id);
    await waitFor(() => published.every((id) => ids().includes(id)), {
      timeoutMs: 30_000,
      message: `received ${received.length} of ${published.length}`,
    });
    // Each once: a publish that failed mid-refresh may still have arrived, never twice.
    expect(new Set(ids()).size).toBe(ids().length);
    expect(e.reader.status().state).toBe('ready');
    // The admin's group requests too (ListGroups, DescribeGroups), past the startup tokens: on
    // @confluentinc/kafka-javascript the describe runs in the helper process, whose client gets
    // its tokens from this one.
    expect((await e.roster.refresh()).map((i) => i.instanceId)).toEqual([`${client}-refresh`]);
    const sent = published.length;
    console.log(
      `[${client}] refresh: ${atStart} login(s) at startup, ${logins()} after ${sent} publishes, event loop stalled ${stalled} ms at most`,
    );
  });

  it("the operator CLI's client: its first requests, sent as it is made, answer with a provider token", async () => {
    const principal = `oauth-operator-${client}-${runId()}`;
    const prefix = `${principal}.`;
    await grant(cluster, principal, readmeAcls(prefix, [TOPIC]));
    const { kafka, logins } = oauthKafka(cluster, () => unsecuredJwt(principal), { client });
    const operator = await (await KAFKA_CLIENTS[client].operator())(kafka);
    // The CLI asks at once: on @confluentinc/kafka-javascript a ListGroups sent before the token
    // was handed over held the binding's lock, so the hand-over stopped the event loop until the
    // request timed out (10 s), and the request failed ('Local: Timed out').
    const stalls = watchStalls();
    try {
      const started = Date.now();
      expect(await operator.listGroupIds()).toEqual(expect.any(Array));
      const groupId = `${prefix}broadcastLFConsumer-0`;
      // A group no one joined (its state's name differs per client: 'Dead', 'Unknown').
      expect(await operator.describeGroups([groupId])).toMatchObject([{ groupId, members: [] }]);
      const stalled = stalls.stop();
      console.log(
        `[${client}] operator: ListGroups and DescribeGroups in ${Date.now() - started} ms, event loop stalled ${stalled} ms at most`,
      );
      expect(stalled).toBeLessThan(STALL_LIMIT_MS);
      expect(logins()).toBeGreaterThan(0);
    } finally {
      stalls.stop();
      await operator.disconnect();
    }
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

  it('a provider that fails: startup fails naming kafka.sasl.oauthBearerProvider and its reason', async () => {
    const kafka: BroadcastModuleOptions['kafka'] = {
      client,
      brokers: cluster.oauthBrokers,
      sasl: {
        mechanism: 'oauthbearer',
        oauthBearerProvider: () => Promise.reject(new Error('identity provider unreachable')),
      },
    };
    const { engine: e } = engine(`${client}-failing-provider`, kafka, `oauth-failing-${client}.`);

    const error = await e.start().then(
      () => undefined,
      (err: unknown) => err,
    );
    expect(error).toBeInstanceOf(BroadcastStartupError);
    const failed = error as BroadcastStartupError;
    console.log(`[${client}] failing provider: ${failed.message}`);
    expect(failed.option).toBe('kafka.sasl.oauthBearerProvider');
    expect(failed.message).toMatch(
      /^The OAUTHBEARER token provider failed: identity provider unreachable\. Check the option kafka\.sasl\.oauthBearerProvider/,
    );
  });
});
