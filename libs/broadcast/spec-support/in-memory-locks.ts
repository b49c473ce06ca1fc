// Advisory locks in memory, for the unit specs of the reader's state machine (reader-harness.ts).
import type {
  AdvisoryLockProvider,
  HeldLock,
  LockMode,
} from '../src/interfaces/advisory-lock.interface.js';
import { networkTurns } from '../src/testing/in-memory-manual-consumer.js';

/**
 * Advisory locks in memory. `lose(id)` is a killed lock session whose id another instance took
 * at once: the old holder's checks read false, and its release frees nothing.
 */
export class InMemoryLocks implements AdvisoryLockProvider {
  /** id → the token of the session holding it. */
  private readonly owners = new Map<number, symbol>();

  constructor(readonly mode: LockMode = 'postgres') {}

  get held(): Set<number> {
    return new Set(this.owners.keys());
  }

  async tryLock(id: number): Promise<HeldLock | null> {
    await networkTurns();
    if (this.owners.has(id)) return null;
    const token = Symbol(`lock-${id}`);
    this.owners.set(id, token);
    const owners = this.owners;
    return {
      id,
      async isHeld() {
        return owners.get(id) === token;
      },
      async release() {
        if (owners.get(id) === token) owners.delete(id);
      },
    };
  }

  lose(id: number): void {
    this.owners.set(id, Symbol(`lock-${id}-taken-over`));
  }

  /** Another instance gives up an id it took over. */
  free(id: number): void {
    this.owners.delete(id);
  }
}
