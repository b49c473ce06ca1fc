import * as client from '@platformatic/kafka';
import type { Admin, Callback, Connection, ConnectionPool, Consumer } from '@platformatic/kafka';
import type { BrokerApi } from './platformatic-consumer-group-describe.js';

/**
 * The client's hooks through which a client finds its connections, its APIs and its metadata
 * (symbols its Base class exports: clients/base/index.js in 2.12.1), looked up at run time: the
 * 1.x line the peer range takes (~1.35) may export none, and a named import would fail the
 * adapter's load there. Without them every client keeps its own connections, as before.
 */
const exported = client as unknown as Record<string, symbol | undefined>;
const hooks = () => {
  // The Fetch option `connectionPool` is a 2.x one: the exported API functions tell that line.
  if (!exported['listOffsetsV4']) return undefined;
  const [bootstrap, connection, listApis, metadata] = [
    exported['kGetBootstrapConnection'],
    exported['kGetConnection'],
    exported['kListApis'],
    exported['kMetadata'],
  ];
  return bootstrap && connection && listApis && metadata
    ? { bootstrap, connection, listApis, metadata }
    : undefined;
};

type Hooked = Record<symbol, (...args: unknown[]) => unknown>;

/**
 * One engine's control connection to each broker: the admin's pool, which the connection probe
 * and the KIP-848 group consumers (their heartbeats and metadata) borrow; the consumer's own pool
 * carries its fetches alone (issue #39: an engine opened three connections to one broker, each
 * with its ApiVersions, and the consumer read again the metadata the topic check had just read).
 *
 * The admin owns its pool: it alone closes it, when the port disconnects; closing a consumer
 * closes its own pool, its fetch connections, and nothing shared. A cut (a close that outlasted
 * its bound) must still fail a heartbeat in flight: it closes the admin pool's connections too,
 * which the admin's next request opens again.
 */
export class PlatformaticSharedConnections {
  private readonly hooks = hooks();

  constructor(
    private readonly admin: Admin,
    /** The broker's APIs, once the probe read them: no client asks ApiVersions again. */
    private readonly apis: () => readonly BrokerApi[] | undefined,
  ) {
    // The admin's first call would ask ApiVersions again on the probe's connection.
    this.answerApis(admin);
  }

  /** `client` takes the probe's answer for its APIs, once there is one, instead of asking. */
  private answerApis(client: Admin | Consumer): void {
    const { hooks } = this;
    if (!hooks) return;
    const hooked = client as unknown as Hooked;
    const ownApis = hooked[hooks.listApis]!.bind(client);
    hooked[hooks.listApis] = (callback) => {
      const apis = this.apis();
      if (!apis) return ownApis(callback);
      (callback as Callback<readonly BrokerApi[]>)(null, apis);
    };
  }

  /**
   * The probe on the admin's own bootstrap connection: connected once, without the client's
   * retries (see platformatic-connection-probe.ts), then its ApiVersions, which the admin keeps.
   * `undefined` when the hooks are missing (the caller probes with a client of its own).
   */
  async probe(): Promise<BrokerApi[] | undefined> {
    const { hooks } = this;
    if (!hooks) return undefined;
    await new Promise<void>((resolve, reject) =>
      (this.admin as unknown as Hooked)[hooks.bootstrap]!((error: Error | null) =>
        error ? reject(error) : resolve(),
      ),
    );
    return this.admin.listApis();
  }

  /**
   * Makes `consumer` borrow the admin's connections and metadata (a no-op without the hooks): its
   * metadata reads and the heartbeats sent through `pool()` go over the admin's connections, and
   * its APIs are the probe's answer. Its Fetch keeps the consumer's own pool (and needs no
   * ApiVersions there): a broker reads a connection's next request only once it answered the one
   * before, and a Fetch is a long poll (consumer.maxWaitTimeMs), which every admin read and
   * heartbeat behind it would wait for; the client's own MessagesStream fetches on a pool of its
   * own for the same reason.
   */
  lend(consumer: Consumer): void {
    const { hooks, admin } = this;
    if (!hooks) return;
    const borrower = consumer as unknown as Hooked;
    const owner = admin as unknown as Hooked;
    const adminPool = admin.connections;
    borrower[hooks.connection] = (broker, callback) =>
      adminPool.get(broker as never, callback as Callback<Connection>);
    borrower[hooks.bootstrap] = (callback, attempt) => owner[hooks.bootstrap]!(callback, attempt);
    borrower[hooks.metadata] = (options, callback) => owner[hooks.metadata]!(options, callback);
    this.answerApis(consumer);
    consumer.metadata = admin.metadata.bind(admin) as Consumer['metadata'];
    consumer.clearMetadata = () => admin.clearMetadata();
  }

  /** The pool a consumer's own requests (the KIP-848 heartbeat) go through. */
  pool(consumer: Consumer): ConnectionPool {
    return this.hooks ? this.admin.connections : consumer.connections;
  }

  /** Fails every request in flight on the shared connections (a cut); they reopen on demand. */
  async cut(): Promise<void> {
    if (!this.hooks) return;
    await Promise.all(
      [...this.admin.connections].map(([, connection]) => connection.close().catch(() => {})),
    );
  }
}
