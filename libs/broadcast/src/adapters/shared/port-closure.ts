import { BroadcastMessages } from '../../errors/broadcast.messages.js';
import type { KafkaAdminPort } from '../../interfaces/kafka-port.interface.js';
import { withTimeout } from '../../shared/async.utils.js';

/**
 * How long disconnect() lets the calls in flight (a publish during stop, the stop-time delete)
 * finish before it cuts them, and how long it waits for the clients to close: against a broker
 * that stopped answering, disconnect() ends after these, never after the clients' request timeout.
 */
export const CLOSE_BOUND_MS = 5_000;

/** What every port answers to a call after disconnect() (the contract's closed-port fact). */
export function clientClosedError(cause?: unknown): Error {
  return new Error(BroadcastMessages.kafkaClientClosed(), cause === undefined ? {} : { cause });
}

/** Something the port made that must stop when it closes (a group consumer). */
export interface Stoppable {
  stop(): Promise<void>;
}

/**
 * The closed state every port shares (the kafkajs and @platformatic/kafka adapters, the engine's
 * lazy port, the in-memory broker's): once disconnect() began, every call (a send, an admin call,
 * a group consumer made or started) is refused with clientClosedError(), so no client connects
 * again. Calls already under way are let finish, up to CLOSE_BOUND_MS, then cut; the group
 * consumers still running are stopped; then the clients close.
 */
export class PortClosure {
  private closing: Promise<void> | undefined;
  private cut = false;
  private readonly calls = new Set<Promise<unknown>>();
  private readonly consumers = new Set<Stoppable>();
  private readonly aborter = new AbortController();

  /**
   * @param drains whether close() waits for the calls in flight; false for a port that forwards
   *   each call to one that waits for them itself (the engine's lazy port), so that a call stuck
   *   on a silent broker is waited for once, not twice.
   */
  constructor(private readonly drains = true) {}

  /** True once disconnect() began. */
  get closed(): boolean {
    return this.closing !== undefined;
  }

  /** Aborts when disconnect() begins: the retry loops of calls in flight end at once. */
  get signal(): AbortSignal {
    return this.aborter.signal;
  }

  /** `signal`, also aborted when disconnect() begins. */
  signalWith(signal: AbortSignal | undefined): AbortSignal {
    return signal ? AbortSignal.any([signal, this.signal]) : this.signal;
  }

  /** Throws clientClosedError() once disconnect() began. */
  refuse(): void {
    if (this.closed) throw clientClosedError();
  }

  /**
   * Runs one call of the port: refused once disconnect() began, else counted until it settles
   * (disconnect() waits for it). A call that fails because disconnect() cut it fails as closed.
   */
  run<T>(call: () => Promise<T>): Promise<T> {
    if (this.closed) return Promise.reject(clientClosedError());
    const running = (async () => call())();
    this.calls.add(running);
    const done = () => void this.calls.delete(running);
    running.then(done, done);
    return running.catch((error: unknown) => {
      throw this.cut ? clientClosedError(error) : error;
    });
  }

  /** A group consumer of this port: stopped by close() unless it stopped before. */
  track(consumer: Stoppable): void {
    this.refuse();
    this.consumers.add(consumer);
  }

  untrack(consumer: Stoppable): void {
    this.consumers.delete(consumer);
  }

  /**
   * Closes for good, once (later calls share the first): refuses every call from now on, stops the
   * group consumers still running and lets the calls in flight finish, up to CLOSE_BOUND_MS, then
   * runs `closeClients`, which cuts whatever is still in flight and closes every socket (bounded
   * the same way).
   */
  close(closeClients: () => Promise<void>): Promise<void> {
    this.closing ??= (async () => {
      this.aborter.abort(clientClosedError());
      const consumers = [...this.consumers].map((c) => c.stop().catch(() => undefined));
      if (this.drains) {
        const calls = Promise.allSettled(this.calls);
        await withTimeout(calls, CLOSE_BOUND_MS, 'calls in flight').catch(() => undefined);
      }
      // What is still in flight is cut by closeClients: it fails as closed.
      this.cut = this.drains;
      await Promise.all([
        ...consumers,
        withTimeout(closeClients(), CLOSE_BOUND_MS, 'closing the Kafka clients').catch(
          () => undefined,
        ),
      ]);
    })();
    return this.closing;
  }
}

/**
 * `admin` with every call run through `closure` (refused after disconnect(), counted while in
 * flight), its waits aborted when disconnect() begins. Its own disconnect() is the port's.
 */
export function guardedAdmin(
  admin: KafkaAdminPort,
  closure: PortClosure,
  disconnect: () => Promise<void>,
): KafkaAdminPort {
  const run = <T>(call: () => Promise<T>) => closure.run(call);
  return {
    ensureTopics: (topics, signal) =>
      run(() => admin.ensureTopics(topics, closure.signalWith(signal))),
    deleteGroup: (groupId, deadline, signal) =>
      run(() => admin.deleteGroup(groupId, deadline, closure.signalWith(signal))),
    describeGroup: (groupId) => run(() => admin.describeGroup(groupId)),
    latestOffsets: (topics) => run(() => admin.latestOffsets(topics)),
    offsetBounds: (topic) => run(() => admin.offsetBounds(topic)),
    ...(admin.logStartOffsets && {
      logStartOffsets: (topic: string) => run(() => admin.logStartOffsets!(topic)),
    }),
    offsetsForTimestamp: (topic, timestamp) =>
      run(() => admin.offsetsForTimestamp(topic, timestamp)),
    liveMembers: (groupPrefix) => run(() => admin.liveMembers(groupPrefix)),
    occupiedGroups: (groupPrefix) => run(() => admin.occupiedGroups(groupPrefix)),
    disconnect,
  };
}
