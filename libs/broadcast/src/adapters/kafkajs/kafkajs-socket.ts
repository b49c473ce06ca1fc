import { connect as connectTcp, isIP, type Socket } from 'node:net';
import { connect as connectTls } from 'node:tls';
import type { ISocketFactory } from 'kafkajs';
import { KafkaResponseFrames } from './kafka-response-frames.js';

/** kafkajs's own socket factory enables TCP keep-alive with this delay (network/socketFactory.js). */
const KEEP_ALIVE_DELAY_MS = 60_000;

/**
 * The socket factory (kafkajs's public `socketFactory` option) of every kafkajs client the
 * library makes. It opens the socket as kafkajs's default factory does, and hands kafkajs whole
 * response frames only.
 *
 * Why: kafkajs 2.2.4 keeps the bytes of a frame it has not finished in its Connection, which
 * outlives the socket (network/connection.js `processData`; `connect()` never clears them).
 * When a connection breaks in the middle of a response, the next socket's bytes are read as
 * the rest of that frame, every later frame boundary is wrong, requests time out ("Response
 * without match") and a size read from the middle of a response can throw `RangeError: Attempt
 * to access memory outside buffer bounds` from the socket's data handler: an uncaught exception
 * that can end the application. On Node 20 a reset that arrives with data is mostly reported
 * as an end of stream (libuv 1.46 skips the last read after a partial read with POLLHUP), and
 * kafkajs's consumer then throws the whole Broker away; Node 24 (libuv 1.52, which reads on and
 * gets ECONNRESET) reports the reset as an error and the Connection is reused.
 *
 * Here the incomplete frame is kept per socket and dies with it, and a stream that ends in the
 * middle of a frame (the peer's FIN or a reset reported as one) is reported as an error, the
 * same on every Node: kafkajs fails the requests in flight and reconnects. A frame kafkajs
 * cannot read (it throws from its data handler) or a negative frame size destroys the socket
 * with that error instead of escaping as an uncaught exception.
 */
export function framedSocketFactory(): ISocketFactory {
  return ({ host, port, ssl, onConnect }) => {
    const socket = ssl
      ? connectTls({ host, port, ...(isIP(host) === 0 && { servername: host }), ...ssl }, onConnect)
      : connectTcp({ host, port }, onConnect);
    socket.setKeepAlive(true, KEEP_ALIVE_DELAY_MS);
    deliverWholeFrames(socket);
    return socket;
  };
}

/** Makes `socket` emit 'data' with whole Kafka frames only (see framedSocketFactory). */
function deliverWholeFrames(socket: Socket): void {
  const frames = new KafkaResponseFrames();
  let endedHere = false;
  const end = socket.end;
  socket.end = function (this: Socket, ...args: unknown[]) {
    endedHere = true;
    return (end as (...a: unknown[]) => Socket).apply(this, args);
  } as Socket['end'];

  const emit = socket.emit as (event: string | symbol, ...args: unknown[]) => boolean;
  const emitOriginal = (event: string | symbol, ...args: unknown[]) =>
    emit.call(socket, event, ...args);
  socket.emit = function (event: string | symbol, ...args: unknown[]): boolean {
    if (event === 'data') {
      let whole: Buffer | undefined;
      try {
        whole = frames.push(args[0] as Buffer);
      } catch (error) {
        socket.destroy(asError(error));
        return true;
      }
      if (!whole) return true;
      try {
        return emitOriginal('data', whole);
      } catch (error) {
        socket.destroy(asError(error));
        return true;
      }
    }
    if (event === 'end' && frames.partial && !endedHere) {
      const cut = Object.assign(
        new Error(
          `the connection ended in the middle of a response frame (${frames.describePartial()} received)`,
        ),
        { code: 'ECONNRESET' },
      );
      socket.destroy(cut);
      return true;
    }
    return emitOriginal(event, ...args);
  } as Socket['emit'];
}

function asError(error: unknown): Error {
  return error instanceof Error ? error : new Error(String(error));
}
