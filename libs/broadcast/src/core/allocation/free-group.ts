import type { HeldLock } from '../../interfaces/advisory-lock.interface.js';

/**
 * A group of the pool this instance locked and deleted (so it starts empty), offered to the
 * caller, which joins it and then either keeps it or refuses it with a reason. A group left
 * neither kept nor refused (the caller threw or stopped) is released like a refused one.
 */
export class FreeGroup {
  private verdict: { kept: true } | { kept: false; reason: string } | undefined;

  constructor(
    readonly id: number,
    readonly groupId: string,
    readonly lock: HeldLock,
  ) {}

  /** The group is this instance's now: the lock stays held, the search ends. */
  keep(): void {
    this.verdict = { kept: true };
  }

  /** Not usable after all: the lock is released and the search goes on. */
  refuse(reason: string): void {
    this.verdict = { kept: false, reason };
  }

  /** @internal */
  get kept(): boolean {
    return this.verdict?.kept === true;
  }

  /** @internal */
  get refusal(): string {
    return this.verdict && !this.verdict.kept ? this.verdict.reason : 'not joined';
  }
}
