import type {
  AdvisoryLockProvider,
  HeldLock,
  LockMode,
} from '../interfaces/advisory-lock.interface.js';
import { LockFreeProvider } from './lock-free.js';

/**
 * A provider chosen late: the DataSource of a Nest application exists only once every
 * provider is created, after the engine itself. Lock-free until bound.
 */
export class LockBinding implements AdvisoryLockProvider {
  private provider: AdvisoryLockProvider = new LockFreeProvider();
  private isBound = false;

  get mode(): LockMode {
    return this.provider.mode;
  }

  get bound(): boolean {
    return this.isBound;
  }

  bind(provider: AdvisoryLockProvider): void {
    this.provider = provider;
    this.isBound = true;
  }

  tryLock(id: number): Promise<HeldLock | null> {
    return this.provider.tryLock(id);
  }

  /** Present only when the bound provider has it. */
  get tryLockLowest(): AdvisoryLockProvider['tryLockLowest'] {
    const provider = this.provider;
    return provider.tryLockLowest?.bind(provider);
  }
}
