import type { BroadcastStatus } from '../interfaces/broadcast-status.interface.js';
import type { EngineReader as ReaderCore } from '../engine/engine-reader.js';

/**
 * What this instance's reader shows: its state (in `status()`), its consumer group and when it
 * became ready. Injectable (`BroadcastModule` provides it) and `engine.reader`. A view only: the
 * reader starts and stops with the engine, which the module starts and stops.
 */
export abstract class BroadcastReader {
  /** The consumer group in use; undefined until one is allocated. */
  abstract get groupId(): string | undefined;

  /** A snapshot of the reader's state and counters, for health checks and dashboards. */
  abstract status(): BroadcastStatus;

  /** Resolves once a group is held exclusively and positioned; rejects if startup fails. */
  abstract whenReady(): Promise<void>;
}

/** The view the Nest module injects: it reaches the reader through these three reads only. */
class ReaderView extends BroadcastReader {
  readonly #reader: ReaderCore;

  constructor(reader: ReaderCore) {
    super();
    this.#reader = reader;
  }

  get groupId(): string | undefined {
    return this.#reader.groupId;
  }

  status(): BroadcastStatus {
    return this.#reader.status();
  }

  whenReady(): Promise<void> {
    return this.#reader.whenReady();
  }
}

/** @internal The read-only view of the engine's reader. */
export function readerView(reader: ReaderCore): BroadcastReader {
  return Object.freeze(new ReaderView(reader));
}
