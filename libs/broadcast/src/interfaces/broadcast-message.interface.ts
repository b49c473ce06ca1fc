/** A broadcast as delivered to a handler. */
export interface BroadcastMessage<T = unknown> {
  /** The logical topic, without the configured topicPrefix. */
  readonly topic: string;
  readonly key: string | null;
  /** Header values decoded as UTF-8. */
  readonly headers: Readonly<Record<string, string>>;
  /** Broker timestamp, milliseconds since the epoch. */
  readonly timestamp: number;
  readonly partition: number;
  readonly offset: string;
  readonly payload: T;
}

/** A function that handles one broadcast. */
export type BroadcastHandler<T = unknown> = (payload: T, message: BroadcastMessage<T>) => unknown;
