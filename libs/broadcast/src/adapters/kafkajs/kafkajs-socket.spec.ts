// The socket every kafkajs client of the library gets (kafkajs-socket.ts), against a local TCP
// server that plays a broker cutting its answer: no Kafka, no kafkajs. Proven with kafkajs on
// the real broker, through the fault proxy, in test/faults/mid-frame-reset.spec.ts.
import { createServer, type Server, type Socket } from 'node:net';
import { once } from 'node:events';
import { framedSocketFactory } from './kafkajs-socket.js';

function frame(payload: string): Buffer {
  const body = Buffer.from(payload);
  const size = Buffer.alloc(4);
  size.writeInt32BE(body.length);
  return Buffer.concat([size, body]);
}

/** A server that, like a broker, answers a request: it runs `answer` on the first bytes. */
async function serve(answer: (socket: Socket) => void): Promise<{ server: Server; port: number }> {
  const server = createServer((socket) => socket.once('data', () => answer(socket)));
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  return { server, port: (server.address() as { port: number }).port };
}

/** Connects through the factory and records what kafkajs's listeners would see, until 'close'. */
async function observe(port: number, onData?: (data: Buffer) => void) {
  const seen: string[] = [];
  const data: Buffer[] = [];
  let error: (Error & { code?: string }) | undefined;
  const socket = framedSocketFactory()({
    host: '127.0.0.1',
    port,
    ssl: undefined as never,
    onConnect: () => {
      seen.push('connect');
      socket.write('request');
    },
  });
  socket.on('data', (chunk: Buffer) => {
    seen.push('data');
    data.push(chunk);
    onData?.(chunk);
  });
  socket.on('end', () => seen.push('end'));
  socket.on('error', (e) => {
    seen.push('error');
    error = e;
  });
  await new Promise((resolve) => socket.on('close', resolve));
  return { seen, data: Buffer.concat(data), error };
}

const a = frame('a whole response');
const b = frame('a response the server cuts in the middle');
const servers: Server[] = [];
afterEach(async () => {
  for (const server of servers.splice(0)) server.close();
});

describe('framedSocketFactory', () => {
  it('a reset in the middle of a frame: the whole frame before it, then an error, never the half frame', async () => {
    const { server, port } = await serve((socket) =>
      socket.write(Buffer.concat([a, b.subarray(0, 20)]), () => socket.resetAndDestroy()),
    );
    servers.push(server);
    const { seen, data, error } = await observe(port);
    expect(seen).not.toContain('end');
    expect(seen.at(-1)).toBe('error');
    expect(error?.code).toBe('ECONNRESET');
    expect(data).toEqual(a);
  });

  it('an end of stream (FIN) in the middle of a frame is an error, as a reset is', async () => {
    const { server, port } = await serve((socket) => socket.end(b.subarray(0, 20)));
    servers.push(server);
    const { seen, data, error } = await observe(port);
    expect(seen).toEqual(['connect', 'error']);
    expect(error?.message).toBe(
      `the connection ended in the middle of a response frame (20 of ${b.length} bytes received)`,
    );
    expect(error?.code).toBe('ECONNRESET');
    expect(data.length).toBe(0);
  });

  it('an end of stream between frames stays an end', async () => {
    const { server, port } = await serve((socket) => socket.end(a));
    servers.push(server);
    const { seen, data } = await observe(port);
    expect(seen).toEqual(['connect', 'data', 'end']);
    expect(data).toEqual(a);
  });

  it('a data handler that throws, or a negative frame size, destroys the socket with that error instead of escaping', async () => {
    const negative = Buffer.alloc(8);
    negative.writeInt32BE(-1);
    const { server, port } = await serve((socket) => socket.write(a));
    servers.push(server);
    const thrown = await observe(port, () => {
      throw new RangeError('Attempt to access memory outside buffer bounds');
    });
    expect(thrown.seen).toEqual(['connect', 'data', 'error']);
    expect(thrown.error).toBeInstanceOf(RangeError);

    const bad = await serve((socket) => socket.write(negative));
    servers.push(bad.server);
    const refused = await observe(bad.port);
    expect(refused.seen).toEqual(['connect', 'error']);
    expect(refused.error?.message).toBe('a Kafka response frame announced -1 bytes');
  });
});
