import type {
  AdvisoryLockProvider,
  HeldLock,
  LockMode,
} from '../interfaces/advisory-lock.interface.js';
import { assertLockId } from './lock-keys.js';

class LockFreeHeldLock implements HeldLock {
  constructor(readonly id: number) {}

  async isHeld(): Promise<boolean> {
    return true;
  }

  async release(): Promise<void> {
    // Nothing was taken, so there is nothing to give back.
  }
}

/**
 * Lock-free mode: every id is "granted" and stays held forever. Exclusivity then rests entirely on the
 * Kafka-side group checks.
 */
export class LockFreeProvider implements AdvisoryLockProvider {
  readonly mode = 'none' satisfies LockMode;

  async tryLock(id: number): Promise<HeldLock | null> {
    assertLockId(id);
    return new LockFreeHeldLock(id);
  }
}
