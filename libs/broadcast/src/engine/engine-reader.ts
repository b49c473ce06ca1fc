import type { BroadcastStatus } from '../interfaces/broadcast-status.interface.js';

/** What the engine shows of its reader (the public BroadcastReader view's shape). */
export interface EngineReader {
  /** The consumer group in use; undefined until one is allocated. */
  readonly groupId: string | undefined;
  /** The engine's status (see BroadcastEngine.status()). */
  status(): BroadcastStatus;
  /** Resolves once a group is held exclusively and positioned; rejects if startup fails. */
  whenReady(): Promise<void>;
}
