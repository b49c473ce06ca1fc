import type { EventEmitter } from 'node:events';
import { BroadcastMessages } from '../../errors/broadcast.messages.js';
import { BroadcastStartupError } from '../../errors/broadcast-startup.error.js';
import type {
  BroadcastOauthBearerSaslOptions,
  BroadcastSaslOptions,
} from '../../interfaces/broadcast-kafka-options.interface.js';
import { errorMessage } from '../../shared/async.utils.js';

/**
 * A token as librdkafka takes it (the binding's `oauthbearer_token_refresh_cb` answer):
 * `lifetime` is when it expires, in ms since the epoch; librdkafka asks for the next one 80 %
 * of the way there.
 */
export interface RdOauthToken {
  tokenValue: string;
  lifetime: number;
  principal: string;
  extensions?: Record<string, string>;
}

/**
 * A token's lifetime when it tells none (not a JWT, or no `exp` claim): librdkafka asks again
 * after 80 % of it (48 s), so a token that lives at least this long is never used expired.
 */
export const UNKNOWN_LIFETIME_MS = 60_000;
/**
 * The least lifetime handed to librdkafka, which refuses a token whose lifetime has passed. A
 * token the provider gives past its `exp` (by this process's clock) is still sent, the broker
 * judges it, and asked for again about every second until the provider gives a fresh one.
 */
export const MIN_LIFETIME_MS = 1_000;

/** What librdkafka is told of a token: its expiry (from the JWT's `exp`) and principal (`sub`). */
export function rdToken(
  value: string,
  extensions: Record<string, string> | undefined,
  now = Date.now(),
): RdOauthToken {
  const claims = jwtClaims(value);
  const exp = typeof claims?.exp === 'number' ? claims.exp * 1000 : undefined;
  return {
    tokenValue: value,
    lifetime: exp === undefined ? now + UNKNOWN_LIFETIME_MS : Math.max(exp, now + MIN_LIFETIME_MS),
    // Only librdkafka's own logs show it: the broker reads the principal from the token.
    principal: typeof claims?.sub === 'string' ? claims.sub : '',
    ...(extensions && { extensions }),
  };
}

/** The claims of a JWS compact token (`header.payload.signature`), if it is one. */
function jwtClaims(value: string): { exp?: unknown; sub?: unknown } | undefined {
  const parts = value.split('.');
  if (parts.length !== 3) return undefined;
  try {
    const claims: unknown = JSON.parse(Buffer.from(parts[1]!, 'base64url').toString('utf8'));
    return claims && typeof claims === 'object' ? claims : undefined;
  } catch {
    return undefined;
  }
}

/**
 * The SASL/OAUTHBEARER tokens of one adapter's (or operator's) clients: librdkafka does not ask
 * for a token at each login, as kafkajs and @platformatic/kafka do; each client caches one and asks
 * its token refresh callback (`oauthbearer_token_refresh_cb`) for the next 80 % through the
 * current one's lifetime, and re-authenticates with it (KIP-368) before the broker's session
 * ends. The binding runs that callback on librdkafka's background thread's request, for every
 * client kind (the admin's included: nothing has to poll). This calls the user's
 * `kafka.sasl.oauthBearerProvider` for it (concurrent refreshes share one call), and answers the
 * describe helper process's requests (which cannot call the provider: confluent-describe-helper.ts).
 *
 * A provider that fails fails the start (a BroadcastStartupError naming the option, through
 * `onFailure`); librdkafka asks again 10 s later, keeping the token it has meanwhile.
 */
export class ConfluentTokens {
  private inFlight: Promise<RdOauthToken> | undefined;

  private constructor(
    private readonly provider: BroadcastOauthBearerSaslOptions['oauthBearerProvider'],
    private readonly onToken: (failure: BroadcastStartupError | undefined) => void,
  ) {}

  /**
   * The tokens of a client configured with `sasl`, or undefined unless it is OAUTHBEARER;
   * `onToken` hears each answer: undefined for a token, the startup error for a failed provider.
   */
  static of(
    sasl: BroadcastSaslOptions | undefined,
    onToken: (failure: BroadcastStartupError | undefined) => void,
  ): ConfluentTokens | undefined {
    return sasl?.mechanism === 'oauthbearer'
      ? new ConfluentTokens(sasl.oauthBearerProvider, onToken)
      : undefined;
  }

  /** A token from the provider, with its lifetime; rejects with the startup error if it fails. */
  token(): Promise<RdOauthToken> {
    this.inFlight ??= this.ask().finally(() => (this.inFlight = undefined));
    return this.inFlight;
  }

  /** The refresh callback of a client's librdkafka configuration. */
  config(): { oauthbearer_token_refresh_cb: () => Promise<RdOauthToken> } {
    return { oauthbearer_token_refresh_cb: () => this.forClient() };
  }

  /**
   * `token()` for a client's refresh callback: a failure as an error of its own, since the
   * binding prefixes the message of the error it is handed in place ('oauthbearer_token_refresh_cb:
   * …'), and the start reports the provider's error (`onToken`), which must stay as it was.
   */
  forClient(): Promise<RdOauthToken> {
    return this.token().catch((error: unknown) => {
      throw new Error(errorMessage(error));
    });
  }

  /**
   * A client's 'error' events: the binding emits one when a refresh failed (the provider, or
   * librdkafka refusing the token), and an EventEmitter without a listener throws it, inside the
   * binding's promise chain: an unhandled rejection. The start heard the provider's failure
   * already (`onToken`); librdkafka logs and retries the rest. Every client of the binding is an
   * EventEmitter, but its type declarations name neither this event nor (the admin's) `on`.
   * Nothing else is silenced: in 1.10.1 that refresh is the only place a client emits 'error'
   * (lib/client.js; the binding's stream classes emit others, and the adapter uses none of them).
   */
  follow(client: object): void {
    (client as EventEmitter).on('error', () => undefined);
  }

  private async ask(): Promise<RdOauthToken> {
    let token: Awaited<ReturnType<typeof this.provider>>;
    try {
      token = await this.provider();
      if (typeof token?.value !== 'string' || token.value === '')
        throw new Error(
          `it resolved to ${typeof token?.value === 'string' ? 'an empty value' : 'no value'}`,
        );
    } catch (error) {
      const failure = new BroadcastStartupError(
        'kafka.sasl.oauthBearerProvider',
        BroadcastMessages.tokenProviderFailed(errorMessage(error)),
      );
      this.onToken(failure);
      throw failure;
    }
    this.onToken(undefined);
    return rdToken(token.value, token.extensions);
  }
}
