// Types for test/support/broker/tcp-proxy.mjs.

/** What the proxy does with one frame. */
export type FaultAction =
  /** hold this frame and everything after it in the same direction for `ms` */
  | { kind: 'stall'; ms: number }
  /** never forward this frame; the connection stays open (the peer waits for its timeout) */
  | { kind: 'drop' }
  /** forward the first `afterBytes` bytes of this frame (0 when omitted), then reset both sides */
  | { kind: 'reset'; afterBytes?: number }
  /**
   * forward what `rewrite` makes of this whole frame (size prefix included) instead; `info` says
   * which request it answers (api key and version)
   */
  | { kind: 'rewrite'; rewrite: (frame: Buffer, info: FrameInfo) => Buffer };

export interface FrameInfo {
  connectionId: number;
  direction: 'request' | 'response';
  apiKey: number;
  apiVersion: number;
  correlationId: number;
  /** whole frame length, size prefix included */
  bytes: number;
  /** Fetch responses: the size of all the records they carry (0: none) */
  recordBytes?: number;
  /** Fetch responses that carry records: the frame position of the first record byte */
  recordsAt?: number;
}

export interface TcpProxyOptions {
  /** port to listen on (0: any free port) */
  port?: number;
  host?: string;
  target: { host: string; port: number };
  /** parse Kafka frames and consult `onFrame` for each */
  kafka?: boolean;
}

export declare class TcpProxy {
  /** Consulted for every frame in kafka mode; return undefined to forward it unchanged. */
  onFrame: ((frame: FrameInfo) => FaultAction | undefined) | undefined;
  /** Frames seen per `direction:apiKey`, for diagnostics. */
  readonly seen: Map<string, number>;
  /** Every fault applied, in order. */
  readonly applied: { at: number; frame: FrameInfo; action: FaultAction }[];
  static start(options: TcpProxyOptions): Promise<TcpProxy>;
  readonly port: number;
  /** Open client connections. */
  readonly connections: number;
  /** Holds all traffic of every open connection for `ms`. */
  stallAll(ms: number): void;
  /** Resets (RST) every open connection, both sides; returns how many there were. */
  resetAll(): number;
  close(): Promise<void>;
}
