import type { BroadcastSaslOptions } from '../interfaces/broadcast-kafka-options.interface.js';

/** Every user-facing error text of the module, in one place. */
export const BroadcastMessages = {
  invalidOption: (option: string, accepted: string, got: unknown) =>
    `Invalid BroadcastModule option "${option}": expected ${accepted}, got ${describe(got)}.`,
  unknownOption: (option: string, meant: string | undefined, known: readonly string[]) =>
    meant === undefined
      ? `Unknown BroadcastModule option "${option}": expected one of ${known.join(', ')} at that level.`
      : `Unknown BroadcastModule option "${option}": did you mean "${meant}"?`,
  allocationFailed: (elapsedMs: number, attempts: string[]) =>
    `Could not allocate a broadcast consumer group within ${elapsedMs} ms. Tried: ${
      attempts.length ? attempts.join('; ') : 'no group (no attempt finished)'
    }.`,
  poolExhausted: (limit: number) =>
    `Broadcast group pool exhausted: every id 0..${limit - 1} (maxGroups ${limit}) is held by another instance or was refused; raise maxGroups or stop an instance.`,
  stopped: () => 'The broadcast reader was stopped before it became ready.',
  kafkaClientClosed: () =>
    'The broadcast engine was stopped: its Kafka client is disconnected and does not connect again.',
  notAliveStopped: () => 'the broadcast engine is stopped',
  notAliveStartupFailed: (cause: string) => `the broadcast engine failed to start: ${cause}`,
  notAliveUnready: (state: string, forMs: number, limit: number) =>
    `reader has been ${state} for ${forMs} ms (health.maxUnreadyMs ${limit})`,
  handlersFrozen: (topic: string) =>
    `Cannot add a handler for the new topic "${topic}" after the broadcast reader has started; register it before startup.`,
  unknownDataSourceAccepted: () =>
    'the name of a registered TypeORM DataSource (TypeOrmModule.forRoot({ name, ... })), or lock: false',
  notSerializable: (topic: string) =>
    `Cannot publish to "${topic}": the payload is not JSON-serializable.`,
  invalidPublishOption: (option: string, accepted: string, got: unknown) =>
    `Invalid publish option "${option}": expected ${accepted}, got ${describe(got)}.`,
  invalidPayload: (topic: string, issues: string) =>
    `Invalid payload for broadcast "${topic}": ${issues}.`,
  receiptsNeedReader: (topic: string) =>
    `Cannot publish "${topic}" with receipts: this engine is not reading yet (start() it first), so it could not see the acknowledgements.`,
  receiptsUnsupported: () =>
    'Receipts need a Kafka client that can list group members (the bundled kafkajs adapter), and receipts enabled.',
  notConfirmed: (topic: string, summary: string) =>
    `Broadcast "${topic}" was not confirmed by every expected instance: ${summary}.`,
  kafkaUnreachable: (brokers: string, attempts: number, elapsedMs: number, cause: string) =>
    `Could not reach Kafka at ${brokers}: ${cause} (tried ${attempts} time(s) over ${seconds(elapsedMs)} s, until startupTimeoutMs). Check the option kafka.brokers (host:port of brokers reachable from this host) and that the brokers run.`,
  /** The first failed attempt of a start: logged at once, while the engine keeps trying. */
  kafkaUnreachableRetrying: (brokers: string, cause: string, until: string) =>
    `Could not reach Kafka at ${brokers}: ${cause}. Still trying until startupTimeoutMs ends, at ${until}; check the option kafka.brokers (host:port of brokers reachable from this host) and that the brokers run.`,
  kafkaLoginRefused: (brokers: string, who: string, cause: string) =>
    `Kafka at ${brokers} refused the SASL login of ${who}: ${cause}. Check the option kafka.sasl (mechanism, username, password); retrying cannot fix this.`,
  /** The login refusal for the configured SASL option: a user name, or a token provider. */
  kafkaSaslRefused: (sasl: BroadcastSaslOptions | undefined, brokers: string, cause: string) =>
    sasl?.mechanism === 'oauthbearer'
      ? BroadcastMessages.kafkaTokenRefused(brokers, cause)
      : BroadcastMessages.kafkaLoginRefused(
          brokers,
          sasl ? `user "${sasl.username}" (${sasl.mechanism})` : 'this client',
          cause,
        ),
  tokenProviderFailed: (cause: string) =>
    `The OAUTHBEARER token provider failed: ${cause}. Check the option kafka.sasl.oauthBearerProvider (it must resolve to { value: token }; the engine does not retry it).`,
  kafkaTokenRefused: (brokers: string, cause: string) =>
    `Kafka at ${brokers} refused the SASL/OAUTHBEARER token of kafka.sasl.oauthBearerProvider: ${cause}. Check the option kafka.sasl (the token the provider returns: not expired, the subject and audience the broker expects); retrying cannot fix this.`,
  kafkaTlsFailed: (brokers: string, cause: string) =>
    `The TLS connection to Kafka at ${brokers} failed: ${cause}. Check the option kafka.ssl (ssl.ca must hold the CA that signed the broker certificates; the host name must match them); retrying cannot fix this.`,
  missingAcl: (operation: string, resourceType: string, resource: string, acl: string) =>
    `Kafka denied ${operation} on ${resourceType} "${resource}": the principal lacks the ${acl} ACL on that ${resourceType} (kafka-acls --add --operation ${acl} --${resourceType} ${resource}). See "Running against a secured cluster" in the README.`,
  lockQueryFailed: (cause: string) =>
    `Could not query the broadcast advisory lock database: ${cause}.`,
  lockDatabaseUnreachable: (attempts: number, elapsedMs: number, cause: string) =>
    `Could not query the advisory lock database: ${cause} (tried ${attempts} time(s) over ${seconds(elapsedMs)} s, until startupTimeoutMs). Check the option lock.dataSource (the TypeORM DataSource that holds the locks) and that its database is reachable.`,
  scopedHandlers: (handlers: string[]) =>
    `@OnBroadcast handlers must be methods of singleton providers (the default scope): a broadcast is handled outside any request, by the one instance of the provider in the application. Not registered: ${handlers.join('; ')}. Move each to a singleton provider whose dependencies are singletons too; if it needs a request-scoped service, inject ModuleRef and call moduleRef.resolve(Service, ContextIdFactory.create()) per message.`,
  noKafkaClient: () =>
    'No Kafka client is installed: install @platformatic/kafka (npm install @platformatic/kafka), @confluentinc/kafka-javascript (npm install @confluentinc/kafka-javascript) or kafkajs (npm install kafkajs). The option kafka.client chooses between them when several are.',
  /** What kafka.groupProtocol accepts with kafkajs, which cannot speak KIP-848. */
  kafkajsGroupProtocols:
    "'classic' or 'auto' with kafkajs (the KIP-848 protocol 'consumer' needs kafka.client 'platformatic', @platformatic/kafka)",
  groupProtocolUnsupported: (brokers: string) =>
    `The option kafka.groupProtocol is 'consumer' but the broker (${brokers}) does not offer the KIP-848 consumer group protocol (ConsumerGroupHeartbeat v1, Apache Kafka 4.0+ with group.coordinator.rebalance.protocols including consumer): set kafka.groupProtocol to 'auto' or 'classic'.`,
  nativeClientUnloadable: (pkg: string, reason: string) =>
    `${pkg} is installed but its native addon does not load: ${reason}. Rebuild it for this Node (npm rebuild ${pkg}; without a reachable prebuilt binary: CKJS_LINKING=dynamic with a C/C++ toolchain, python3, make, libssl-dev and zlib1g-dev, see the README), or set kafka.client to another installed client.`,
  kafkaClientMissing: (client: string, pkg: string) =>
    `The option kafka.client is '${client}' but ${pkg} is not installed: npm install ${pkg}, or set kafka.client to the client that is.`,
} as const;

function seconds(ms: number): string {
  return (ms / 1000).toFixed(1);
}

const SECRET_KEY = /password|secret|token|credential/i;

/** `scheme://user:password@host` → `scheme://user:***@host`. */
function maskUrl(text: string): string {
  return text.replace(/(\/\/[^/:@\s]*:)[^@\s]*@/g, '$1***@');
}

function describe(value: unknown): string {
  if (typeof value === 'string') return maskUrl(JSON.stringify(value));
  if (value === undefined) return 'undefined';
  try {
    // An option value quoted back must never carry a credential (kafka.sasl, connection strings).
    const json = JSON.stringify(value, (key, v: unknown) => (SECRET_KEY.test(key) ? '***' : v));
    return maskUrl(json ?? String(value));
  } catch {
    return String(value);
  }
}
