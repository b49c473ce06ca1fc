import type { Admin } from '@platformatic/kafka';

/** A broker address, as FindCoordinator answers it. */
export interface BrokerAddress {
  host: string;
  port: number;
}

const GROUP_KEY = 0;

/**
 * Group coordinators, found once per group and kept until a request to one fails.
 *
 * Why: one start asked FindCoordinator for its group four times (the delete, the describe before
 * the join, the heartbeat, the describe that verifies) and a roster read once per pool group.
 * A coordinator that moved answers NOT_COORDINATOR to every group request, so a stale address
 * costs one failed request: the caller then forgets it (`fresh`, or `forget` after a failure) and
 * the next lookup asks the broker again.
 */
export class PlatformaticCoordinators {
  private readonly found = new Map<string, Promise<BrokerAddress>>();

  constructor(private readonly admin: Admin) {}

  /** The coordinator of `groupId`; `fresh` asks the broker even when one is known. */
  of(groupId: string, fresh = false): Promise<BrokerAddress> {
    if (fresh) this.found.delete(groupId);
    let address = this.found.get(groupId);
    if (!address) {
      address = this.lookUp(groupId);
      this.found.set(groupId, address);
      const asked = address;
      asked.catch(() => this.forget(groupId, asked));
    }
    return address;
  }

  /** Forgets the coordinator of `groupId` (only `known`, when given: a newer lookup stays). */
  forget(groupId: string, known?: Promise<BrokerAddress>): void {
    if (known === undefined || this.found.get(groupId) === known) this.found.delete(groupId);
  }

  /**
   * Runs `request` against the group's coordinator. A failure forgets that coordinator; when it
   * was a known one (it may have moved), the request goes once more to a freshly found one, so a
   * caller sees no failure a lookup per request would have spared it.
   */
  async request<T>(
    groupId: string,
    request: (coordinator: BrokerAddress) => Promise<T>,
  ): Promise<T> {
    const known = this.found.has(groupId);
    const address = this.of(groupId);
    try {
      return await request(await address);
    } catch (error) {
      this.forget(groupId, address);
      if (!known) throw error;
      const again = this.of(groupId);
      try {
        return await request(await again);
      } catch (failure) {
        this.forget(groupId, again);
        throw failure;
      }
    }
  }

  private async lookUp(groupId: string): Promise<BrokerAddress> {
    const [found] = await this.admin.findCoordinator({ keyType: GROUP_KEY, keys: [groupId] });
    if (!found) throw new Error(`no coordinator found for group ${groupId}`);
    return { host: found.host, port: found.port };
  }
}
