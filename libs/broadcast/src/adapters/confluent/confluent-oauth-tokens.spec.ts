import { EventEmitter } from 'node:events';
import { BroadcastStartupError } from '../../errors/broadcast-startup.error.js';
import type { AttemptNote } from '../shared/client-errors.js';
import { ConfluentErrors } from './confluent-errors.js';
import {
  ConfluentTokens,
  MIN_LIFETIME_MS,
  rdToken,
  UNKNOWN_LIFETIME_MS,
} from './confluent-oauth-tokens.js';

const NOW = 1_800_000_000_000;

/** An unsigned JWS with these claims. */
function jwt(claims: object): string {
  const part = (value: object) => Buffer.from(JSON.stringify(value)).toString('base64url');
  return `${part({ alg: 'none' })}.${part(claims)}.`;
}

describe('rdToken: a provider token as librdkafka takes it', () => {
  it("expires at the JWT's exp, with its sub as the principal and the extensions", () => {
    const value = jwt({ sub: 'svc', exp: NOW / 1000 + 15 });
    expect(rdToken(value, { logicalCluster: 'lkc-1' }, NOW)).toEqual({
      tokenValue: value,
      lifetime: NOW + 15_000,
      principal: 'svc',
      extensions: { logicalCluster: 'lkc-1' },
    });
  });

  it('an expired JWT is still handed on (the broker judges it), asked again a second later', () => {
    const token = rdToken(jwt({ sub: 'svc', exp: NOW / 1000 - 60 }), undefined, NOW);
    expect(token.lifetime).toBe(NOW + MIN_LIFETIME_MS);
    expect(token).not.toHaveProperty('extensions');
  });

  it('a token that tells no expiry (not a JWT, no exp) lives UNKNOWN_LIFETIME_MS', () => {
    for (const value of ['opaque-token', jwt({ sub: 'svc' }), 'a.b.c', 'a.!!.c'])
      expect(rdToken(value, undefined, NOW)).toMatchObject({
        lifetime: NOW + UNKNOWN_LIFETIME_MS,
      });
    expect(rdToken('opaque-token', undefined, NOW).principal).toBe('');
  });
});

describe('ConfluentTokens', () => {
  it('is made for OAUTHBEARER only', () => {
    expect(ConfluentTokens.of(undefined, () => undefined)).toBeUndefined();
    expect(
      ConfluentTokens.of({ mechanism: 'plain', username: 'u', password: 'p' }, () => undefined),
    ).toBeUndefined();
  });

  it('concurrent refreshes share one provider call; a later one calls it again', async () => {
    let calls = 0;
    const tokens = ConfluentTokens.of(
      {
        mechanism: 'oauthbearer',
        oauthBearerProvider: () => Promise.resolve({ value: `token-${++calls}` }),
      },
      () => undefined,
    )!;
    const refresh = tokens.config().oauthbearer_token_refresh_cb;
    const [a, b] = await Promise.all([refresh(), tokens.token()]);
    expect([a.tokenValue, b.tokenValue]).toEqual(['token-1', 'token-1']);
    expect((await refresh()).tokenValue).toBe('token-2');
  });

  it('a failing provider: the startup error naming the option, heard by the start', async () => {
    const heard: (BroadcastStartupError | undefined)[] = [];
    let fail = true;
    const tokens = ConfluentTokens.of(
      {
        mechanism: 'oauthbearer',
        oauthBearerProvider: () =>
          fail
            ? Promise.reject(new Error('identity provider unreachable'))
            : Promise.resolve({ value: 'jwt' }),
      },
      (failure) => heard.push(failure),
    )!;
    const error: unknown = await tokens.token().catch((e: unknown) => e);
    expect(error).toBeInstanceOf(BroadcastStartupError);
    expect((error as BroadcastStartupError).option).toBe('kafka.sasl.oauthBearerProvider');
    expect((error as Error).message).toMatch(
      /^The OAUTHBEARER token provider failed: identity provider unreachable\. Check the option kafka\.sasl\.oauthBearerProvider/,
    );
    // A client's callback gets an error of its own: the binding prefixes its message in place.
    const forClient: unknown = await tokens
      .config()
      .oauthbearer_token_refresh_cb()
      .catch((e: unknown) => e);
    expect(forClient).not.toBe(heard[1]);
    (forClient as Error).message = `oauthbearer_token_refresh_cb: ${(forClient as Error).message}`;
    fail = false;
    await tokens.token();
    expect(heard).toEqual([error, heard[1], undefined]);
    expect((heard[1] as Error).message).toMatch(/^The OAUTHBEARER token provider failed/);
  });

  it('a provider that resolves without a value fails as the provider', async () => {
    const tokens = ConfluentTokens.of(
      {
        mechanism: 'oauthbearer',
        oauthBearerProvider: () => Promise.resolve({} as { value: string }),
      },
      () => undefined,
    )!;
    await expect(tokens.token()).rejects.toThrow(
      /token provider failed: it resolved to no value\./,
    );
  });

  it('follow() listens to the error events of a failed refresh (an unheard one would throw)', () => {
    const client = new EventEmitter();
    ConfluentTokens.of(
      { mechanism: 'oauthbearer', oauthBearerProvider: () => Promise.resolve({ value: 'x' }) },
      () => undefined,
    )!.follow(client);
    expect(() => client.emit('error', new Error('oauthbearer_token_refresh_cb: x'))).not.toThrow();
  });
});

describe('ConfluentErrors.noteToken: a failed provider ends the start', () => {
  const kafka = {
    brokers: ['127.0.0.1:9095'],
    sasl: {
      mechanism: 'oauthbearer' as const,
      oauthBearerProvider: () => Promise.resolve({ value: 'x' }),
    },
  };
  const failure = new BroadcastStartupError('kafka.sasl.oauthBearerProvider', 'failed');

  it('ends the attempt under way', () => {
    const errors = new ConfluentErrors(kafka);
    const notes: AttemptNote[] = [];
    const unwatch = errors.watchAttempt((note) => notes.push(note));
    errors.noteToken(failure);
    unwatch();
    expect(notes).toEqual([{ message: 'failed', fatal: failure }]);
  });

  it('ends an attempt started later, until the provider gives a token again', async () => {
    const errors = new ConfluentErrors(kafka);
    errors.noteToken(failure);
    const notes: AttemptNote[] = [];
    const unwatch = errors.watchAttempt((note) => notes.push(note));
    await Promise.resolve();
    unwatch();
    expect(notes.map((n) => n.fatal)).toEqual([failure]);
    errors.noteToken(undefined);
    const later: AttemptNote[] = [];
    const unwatchLater = errors.watchAttempt((note) => later.push(note));
    await Promise.resolve();
    unwatchLater();
    expect(later).toEqual([]);
  });

  it("librdkafka's error for a failed refresh is transient (the token it has is kept), a refused token fatal", () => {
    const errors = new ConfluentErrors(kafka);
    const noNewToken = Object.assign(
      new Error(
        'Failed to acquire SASL OAUTHBEARER token: oauthbearer_token_refresh_cb: The OAUTHBEARER token provider failed: x.',
      ),
      { code: -169 },
    );
    expect(errors.fatal(noNewToken)).toBeUndefined();
    expect(errors.transient(noNewToken)).toBe(true);
    const refused = Object.assign(
      new Error('SASL authentication error: Authentication failed: invalid_token'),
      { code: -169 },
    );
    expect(errors.fatal(refused)?.option).toBe('kafka.sasl');
  });
});
