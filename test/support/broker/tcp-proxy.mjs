// A TCP proxy for fault injection: it forwards every connection it accepts to one target and can
// stall, drop, reset or rewrite traffic at a chosen moment. In `kafka` mode it cuts both
// directions into Kafka frames (kafka-frames.mjs), matches responses to their requests, and asks a
// hook what to do with each frame, e.g. "reset the connection halfway through the 2nd Fetch
// response" or "answer this Fetch with OFFSET_OUT_OF_RANGE". In raw mode (a database) it
// forwards chunks and offers stallAll()/resetAll(). Plain JavaScript (types in tcp-proxy.d.mts)
// so that scripts/soak.mjs can use it too.
//
//   const proxy = await TcpProxy.start({ port, target: { host: '127.0.0.1', port: real }, kafka: true });
//   proxy.onFrame = (f) => (f.direction === 'response' && f.apiKey === ApiKey.SyncGroup ? { kind: 'reset' } : undefined);
//   ...
//   await proxy.close();
import { createConnection, createServer } from 'node:net';
import { setTimeout as delay } from 'node:timers/promises';
import {
  ApiKey,
  FrameSplitter,
  fetchResponsePartitions,
  requestHeader,
  responseCorrelationId,
} from './kafka-frames.mjs';

export class TcpProxy {
  /** Consulted for every frame in kafka mode; return undefined to forward it unchanged. */
  onFrame = undefined;
  /** Frames seen per `direction:apiKey`, for diagnostics. */
  seen = new Map();
  /** Every fault applied, in order. */
  applied = [];
  #links = new Set();
  #nextId = 1;
  #server;
  #options;

  constructor(server, options) {
    this.#server = server;
    this.#options = options;
  }

  static async start(options) {
    const server = createServer();
    const proxy = new TcpProxy(server, options);
    server.on('connection', (client) => proxy.#accept(client));
    await new Promise((resolve, reject) => {
      server.once('error', reject);
      server.listen({ port: options.port ?? 0, host: options.host ?? '127.0.0.1' }, resolve);
    });
    return proxy;
  }

  get port() {
    const address = this.#server.address();
    return typeof address === 'object' && address ? address.port : 0;
  }

  /** Open client connections. */
  get connections() {
    return this.#links.size;
  }

  /** Holds all traffic of every open connection for `ms`. */
  stallAll(ms) {
    for (const link of this.#links) link.gate = Promise.all([link.gate, delay(ms)]);
  }

  /** Resets (RST) every open connection, both sides; returns how many there were. */
  resetAll() {
    const count = this.#links.size;
    for (const link of this.#links) this.#reset(link); // deleting the visited entry is safe
    return count;
  }

  async close() {
    this.onFrame = undefined;
    this.resetAll();
    await new Promise((resolve) => this.#server.close(() => resolve()));
  }

  #accept(client) {
    const server = createConnection(this.#options.target);
    const link = {
      id: this.#nextId++,
      client,
      server,
      gate: Promise.resolve(),
      inFlight: new Map(),
      closed: false,
    };
    this.#links.add(link);
    client.setNoDelay(true);
    server.setNoDelay(true);
    const end = () => this.#reset(link);
    for (const socket of [client, server]) {
      socket.on('error', end);
      socket.on('close', end);
    }
    this.#pipe(link, client, server, 'request');
    this.#pipe(link, server, client, 'response');
  }

  /** Forwards `from` → `to` one frame (or raw chunk) at a time, in order, applying faults. */
  #pipe(link, from, to, direction) {
    const splitter = this.#options.kafka ? new FrameSplitter() : undefined;
    let chain = Promise.resolve();
    from.on('data', (chunk) => {
      const units = splitter ? splitter.push(chunk) : [chunk];
      for (const unit of units) chain = chain.then(() => this.#forward(link, unit, to, direction));
    });
  }

  async #forward(link, unit, to, direction) {
    await link.gate;
    if (link.closed) return;
    if (!this.#options.kafka) {
      to.write(unit);
      return;
    }
    const frame = this.#describe(link, unit, direction);
    const key = `${direction}:${frame.apiKey}`;
    this.seen.set(key, (this.seen.get(key) ?? 0) + 1);
    const action = this.onFrame?.(frame);
    if (action) this.applied.push({ at: Date.now(), frame, action });
    switch (action?.kind) {
      case undefined:
        to.write(unit);
        return;
      case 'drop':
        return;
      case 'stall':
        link.gate = Promise.all([link.gate, delay(action.ms)]);
        await link.gate;
        if (!link.closed) to.write(unit);
        return;
      case 'rewrite':
        to.write(action.rewrite(unit, frame));
        return;
      case 'reset': {
        const head = Math.min(action.afterBytes ?? 0, unit.length);
        if (head > 0)
          await new Promise((resolve) => to.write(unit.subarray(0, head), () => resolve()));
        this.#reset(link);
        return;
      }
      default:
        throw new Error(`unknown fault action ${JSON.stringify(action)}`);
    }
  }

  #describe(link, unit, direction) {
    if (direction === 'request') {
      const header = requestHeader(unit);
      link.inFlight.set(header.correlationId, header);
      return { connectionId: link.id, direction, ...header, bytes: unit.length };
    }
    const correlationId = responseCorrelationId(unit);
    const request = link.inFlight.get(correlationId);
    link.inFlight.delete(correlationId);
    return {
      connectionId: link.id,
      direction,
      apiKey: request?.apiKey ?? -1,
      apiVersion: request?.apiVersion ?? -1,
      correlationId,
      bytes: unit.length,
      ...(request?.apiKey === ApiKey.Fetch && fetchRecords(unit, request.apiVersion)),
    };
  }

  #reset(link) {
    if (link.closed) return;
    link.closed = true;
    this.#links.delete(link);
    for (const socket of [link.client, link.server]) {
      if (socket.destroyed) continue;
      // RST where the socket is connected; a plain destroy while it is still connecting.
      if (socket.readyState === 'open') socket.resetAndDestroy();
      else socket.destroy();
    }
  }
}

/**
 * Where a Fetch response's records are: their total size and the frame position of the first
 * non-empty record set (so that a fault can cut inside a batch, whatever the client's Fetch
 * version); nothing when the frame does not parse.
 */
function fetchRecords(unit, apiVersion) {
  try {
    const partitions = fetchResponsePartitions(unit, apiVersion);
    const first = partitions.find((p) => p.recordBytes > 0);
    return {
      recordBytes: partitions.reduce((sum, p) => sum + p.recordBytes, 0),
      recordsAt: first?.recordsAt,
    };
  } catch {
    return undefined;
  }
}
