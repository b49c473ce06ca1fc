import type { BaseOptions, RetryDelayGetter, SASLMechanismValue } from '@platformatic/kafka';
import type {
  BroadcastKafkaOptions,
  BroadcastSaslOptions,
} from '../../interfaces/broadcast-kafka-options.interface.js';
import { BroadcastMessages } from '../../errors/broadcast.messages.js';
import { BroadcastStartupError } from '../../errors/broadcast-startup.error.js';
import { errorMessage } from '../../shared/async.utils.js';

/**
 * Maps the library's own Kafka options to @platformatic/kafka's client options. `logLevel` has
 * no counterpart: the client writes no logs of its own.
 */
export function toClientOptions(o: BroadcastKafkaOptions, brokers: string[]): BaseOptions {
  const retries = o.retry?.retries ?? o.retries;
  return {
    bootstrapBrokers: brokers,
    clientId: o.clientId ?? 'nestjs-kafka-broadcast',
    ...(o.ssl !== undefined && o.ssl !== false && { tls: o.ssl === true ? {} : o.ssl }),
    ...(o.sasl && { sasl: toSasl(o.sasl) }),
    ...(o.connectionTimeoutMs !== undefined && { connectTimeout: o.connectionTimeoutMs }),
    ...(o.requestTimeoutMs !== undefined && {
      requestTimeout: o.requestTimeoutMs,
      timeout: o.requestTimeoutMs,
    }),
    ...(retries !== undefined && { retries }),
    ...(o.retry &&
      (o.retry.initialRetryTimeMs !== undefined || o.retry.maxRetryTimeMs !== undefined) && {
        retryDelay: retryDelay(o.retry.initialRetryTimeMs, o.retry.maxRetryTimeMs),
      }),
  };
}

function toSasl(sasl: BroadcastSaslOptions): NonNullable<BaseOptions['sasl']> {
  if (sasl.mechanism === 'oauthbearer') {
    const provider = sasl.oauthBearerProvider;
    // The client asks for the token on each login and re-authenticates before the broker's
    // session lifetime ends, as kafkajs does; it takes the token itself, not { value }, and asks
    // for the extensions right after the token: they come from that same answer.
    let extensions: Record<string, string> = {};
    return {
      mechanism: 'OAUTHBEARER',
      token: async () => {
        const token = await provider().catch((error: unknown) => {
          // The client would report only "the provider threw an error", as a refused login.
          throw new BroadcastStartupError(
            'kafka.sasl.oauthBearerProvider',
            BroadcastMessages.tokenProviderFailed(errorMessage(error)),
          );
        });
        extensions = token.extensions ?? {};
        return token.value;
      },
      oauthBearerExtensions: () => extensions,
    };
  }
  return {
    mechanism: sasl.mechanism.toUpperCase() as SASLMechanismValue,
    username: sasl.username,
    password: sasl.password,
  };
}

/**
 * `initial` (the client's fixed default, 1000 ms, when unset) doubled per attempt up to `max`
 * (kafkajs's default, 30000 ms, when unset), as kafkajs waits without its jitter.
 */
function retryDelay(initial = 1_000, max = 30_000): RetryDelayGetter {
  return (_client, _operation, attempt) => Math.min(max, initial * 2 ** Math.max(0, attempt - 1));
}
