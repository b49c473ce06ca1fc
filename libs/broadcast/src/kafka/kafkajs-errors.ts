import { BroadcastMessages } from '../errors/broadcast.messages.js';
import { BroadcastStartupError } from '../errors/broadcast-startup.error.js';
import type { BroadcastKafkaOptions } from '../interfaces/broadcast-kafka-options.interface.js';
import { backoffDelay, errorMessage, pause } from '../shared/async.utils.js';

/** What the engine was doing when Kafka said no: names the ACL it needs for it. */
export interface KafkaOperation {
  /** e.g. 'create topics', 'delete consumer group', 'read (consume)' */
  operation: string;
  /** The ACL the operation needs on each resource type it touches. */
  acl: { topic?: string; group?: string; cluster?: string };
  topics?: readonly string[];
  groupId?: string;
}

interface KafkajsErrorLike {
  name?: string;
  message?: string;
  type?: string;
  code?: string;
  topic?: string;
  cause?: unknown;
  originalError?: unknown;
  errors?: unknown[];
  groups?: { error?: unknown }[];
}

/** The error, its causes and the errors it aggregates, depth first. */
function* chain(error: unknown, depth = 0): Generator<KafkajsErrorLike> {
  if (!error || typeof error !== 'object' || depth > 5) return;
  const e = error as KafkajsErrorLike;
  yield e;
  yield* chain(e.cause, depth + 1);
  yield* chain(e.originalError, depth + 1);
  for (const inner of e.errors ?? []) yield* chain(inner, depth + 1);
  for (const group of e.groups ?? []) yield* chain(group.error, depth + 1);
}

const TLS_FAILURE =
  /certificate|CERT_|self[- ]signed|unable to verify|altnames|wrong version number|SSL routines|EPROTO/i;
const UNREACHABLE =
  /ECONNREFUSED|ETIMEDOUT|EHOSTUNREACH|ENETUNREACH|ENOTFOUND|EAI_AGAIN|ECONNRESET|Connection timeout|Connection error|Failed to connect|Connection closed|Closed connection|seed broker|Not connected/i;
const DENIED: Record<string, 'topic' | 'group' | 'cluster'> = {
  TOPIC_AUTHORIZATION_FAILED: 'topic',
  GROUP_AUTHORIZATION_FAILED: 'group',
  CLUSTER_AUTHORIZATION_FAILED: 'cluster',
};

/**
 * Turns kafkajs's errors into the library's: login, TLS and ACL failures become one
 * BroadcastStartupError naming the option or ACL to check; an unreachable broker is retried
 * until startupTimeoutMs and then reported the same way. The password never enters a message.
 */
export class KafkajsErrorClassifier {
  constructor(
    private readonly kafka: BroadcastKafkaOptions,
    private readonly startupTimeoutMs: number,
    /** The broker's FindCoordinator error for a group (see kafkajs-coordinator-probe.ts). */
    private readonly coordinatorError?: (groupId: string) => Promise<string | undefined>,
  ) {}

  /**
   * `fatal()`, plus the one case kafkajs hides: a group the principal has no ACL on at all
   * looks like a missing coordinator ("Failed to find group coordinator").
   */
  async fatalForGroup(
    error: unknown,
    during: KafkaOperation & { groupId: string },
  ): Promise<BroadcastStartupError | undefined> {
    const fatal = this.fatal(error, during);
    if (fatal || !this.coordinatorError) return fatal;
    if (![...chain(error)].some((e) => e.name === 'KafkaJSGroupCoordinatorNotFound')) return;
    if ((await this.coordinatorError(during.groupId)) !== 'GROUP_AUTHORIZATION_FAILED') return;
    return BroadcastStartupError.missingAcl(
      `${during.operation} (finding the group's coordinator needs DESCRIBE, which READ and DELETE imply)`,
      'group',
      during.groupId,
      `${during.acl.group ?? 'READ'} (and every other group)`,
    );
  }

  /** A BroadcastStartupError for failures that retrying cannot fix; undefined otherwise. */
  fatal(error: unknown, during?: KafkaOperation): BroadcastStartupError | undefined {
    for (const e of chain(error)) {
      if (e instanceof BroadcastStartupError) return e;
      if (e.name === 'KafkaJSSASLAuthenticationError') {
        const sasl = this.kafka.sasl;
        const who = sasl ? `user "${sasl.username}" (${sasl.mechanism})` : 'this client';
        return new BroadcastStartupError(
          'kafka.sasl',
          BroadcastMessages.kafkaLoginRefused(this.brokers(), who, clean(e.message)),
        );
      }
      if (TLS_FAILURE.test(`${e.code ?? ''} ${e.message ?? ''}`) && this.kafka.ssl !== undefined)
        return new BroadcastStartupError(
          'kafka.ssl',
          BroadcastMessages.kafkaTlsFailed(this.brokers(), clean(e.message)),
        );
      const resourceType = e.type ? DENIED[e.type] : undefined;
      if (resourceType) return this.denied(resourceType, e, during);
    }
    return undefined;
  }

  /** True when the brokers could not be reached at all (retry until the startup deadline). */
  unreachable(error: unknown): boolean {
    return [...chain(error)].some(
      (e) =>
        e.name === 'KafkaJSConnectionError' ||
        UNREACHABLE.test(`${e.code ?? ''} ${e.message ?? ''}`),
    );
  }

  /**
   * Runs `attempt` until it succeeds. Unreachable brokers are retried until startupTimeoutMs
   * has passed, then reported once naming kafka.brokers; fatal failures are thrown at once.
   * An attempt still pending at the deadline is abandoned, so the error arrives in time.
   */
  async untilReachable<T>(attempt: () => Promise<T>, during: KafkaOperation): Promise<T> {
    const started = Date.now();
    const deadline = started + this.startupTimeoutMs;
    for (let attempts = 1; ; attempts++) {
      let timer: NodeJS.Timeout | undefined;
      const running = attempt();
      running.catch(() => undefined);
      const outOfTime = new Promise<'timeout'>((resolve) => {
        timer = setTimeout(() => resolve('timeout'), Math.max(0, deadline - Date.now()));
      });
      let failure: unknown;
      try {
        const result = await Promise.race([running, outOfTime]);
        if (result !== 'timeout') return result;
        failure = new Error('no answer yet');
      } catch (error) {
        failure = error;
      } finally {
        clearTimeout(timer);
      }
      const fatal = this.fatal(failure, during);
      if (fatal) throw fatal;
      if (
        !this.unreachable(failure) &&
        !(failure instanceof Error && failure.message === 'no answer yet')
      )
        throw failure;
      const wait = backoffDelay(attempts, 500, 5_000);
      if (Date.now() + wait >= deadline)
        throw new BroadcastStartupError(
          'kafka.brokers',
          BroadcastMessages.kafkaUnreachable(
            this.brokers(),
            attempts,
            Date.now() - started,
            clean(rootMessage(failure)),
          ),
        );
      await pause(wait);
    }
  }

  private denied(
    resourceType: 'topic' | 'group' | 'cluster',
    e: KafkajsErrorLike,
    during: KafkaOperation | undefined,
  ): BroadcastStartupError {
    const resource =
      resourceType === 'group'
        ? (during?.groupId ?? 'the consumer group')
        : resourceType === 'cluster'
          ? 'kafka-cluster'
          : (e.topic ?? during?.topics?.join(', ') ?? 'the broadcast topics');
    const acl = during?.acl[resourceType] ?? 'the needed';
    return BroadcastStartupError.missingAcl(
      during?.operation ?? 'an operation',
      resourceType,
      resource,
      acl,
    );
  }

  private brokers(): string {
    const { brokers } = this.kafka;
    return typeof brokers === 'function' ? 'the brokers from kafka.brokers()' : brokers.join(',');
  }
}

/** The innermost message: kafkajs wraps the socket error in retry errors that add nothing. */
function rootMessage(error: unknown): string {
  let message = errorMessage(error);
  for (const e of chain(error)) if (e.message) message = e.message;
  return message;
}

/** kafkajs prefixes; what is left is the cause in the broker's or Node's words. */
function clean(message: string | undefined): string {
  return (message ?? 'unknown error').replace(/^(Connection error|Failed to connect): /, '');
}
