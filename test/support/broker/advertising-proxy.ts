// A Kafka-aware proxy (tcp-proxy.mjs) in front of every node of the run's broker, which keeps the
// clients that bootstrap at it on it: the node's own address in every Metadata, FindCoordinator
// and DescribeCluster answer is rewritten to its proxy's. startProxiedBroker() (proxied-broker.mjs)
// gets the same from a second listener of a private broker; this one serves the run's shared
// broker, which has no such listener, and costs no broker start. It is how a test sees the
// requests of a client whose sockets Node does not open (librdkafka's, opened in C, which Node's
// `net.client.socket` channel never sees), its helper processes' included.
import { TcpProxy, type FrameInfo } from './tcp-proxy.js';
import { ApiKey } from './tcp-proxy.js';
import { kafkaBrokers } from './kafka.js';

/** The answers that carry a broker's address (host string, then its port as an int32). */
const ADDRESS_ANSWERS = new Set<number>([
  ApiKey.Metadata,
  ApiKey.FindCoordinator,
  ApiKey.DescribeCluster,
]);

export interface AdvertisingProxy {
  /** The proxies' addresses, one per node, to bootstrap at. */
  brokers: string[];
  /** Called with every request frame any proxy forwards. */
  onRequest: ((frame: FrameInfo) => void) | undefined;
  /** Answers whose broker address was rewritten (none: the clients left the proxies). */
  readonly rewritten: number;
  close(): Promise<void>;
}

/**
 * Starts one proxy per node of `brokers` (the run's broker by default). Connection ids are unique
 * across the proxies.
 */
export async function startAdvertisingProxy(
  brokers: readonly string[] = kafkaBrokers(),
): Promise<AdvertisingProxy> {
  const targets = brokers.map((address) => {
    const at = address.lastIndexOf(':');
    return { host: address.slice(0, at), port: Number(address.slice(at + 1)) };
  });
  const proxies: TcpProxy[] = [];
  try {
    for (const target of targets) proxies.push(await TcpProxy.start({ target, kafka: true }));
  } catch (error) {
    await Promise.all(proxies.map((p) => p.close()));
    throw error;
  }
  // Each node's address as the broker writes it (host bytes, then the port), and its proxy's port.
  const addresses = targets.map((t, i) => ({
    pattern: Buffer.concat([Buffer.from(t.host), int32(t.port)]),
    hostBytes: Buffer.byteLength(t.host),
    proxyPort: proxies[i]!.port,
  }));
  const handle: AdvertisingProxy = {
    brokers: targets.map((t, i) => `${t.host}:${proxies[i]!.port}`),
    onRequest: undefined,
    rewritten: 0,
    close: async () => void (await Promise.all(proxies.map((p) => p.close()))),
  };
  let rewritten = 0;
  Object.defineProperty(handle, 'rewritten', { get: () => rewritten });
  proxies.forEach((proxy, index) => {
    proxy.onFrame = (frame) => {
      if (frame.direction === 'request') {
        // Ids of one proxy's connections count from 1: made unique across the proxies.
        handle.onRequest?.({ ...frame, connectionId: frame.connectionId * proxies.length + index });
        return undefined;
      }
      if (!ADDRESS_ANSWERS.has(frame.apiKey)) return undefined;
      return {
        kind: 'rewrite',
        rewrite: (bytes) => {
          const copy = Buffer.from(bytes);
          let changed = false;
          for (const a of addresses) {
            // The same length (a port is an int32 either way): the frame's sizes stay right.
            for (let at = copy.indexOf(a.pattern); at >= 0; at = copy.indexOf(a.pattern, at + 1)) {
              copy.writeInt32BE(a.proxyPort, at + a.hostBytes);
              changed = true;
            }
          }
          if (changed) rewritten++;
          return copy;
        },
      };
    };
  });
  return handle;
}

function int32(value: number): Buffer {
  const b = Buffer.alloc(4);
  b.writeInt32BE(value);
  return b;
}
