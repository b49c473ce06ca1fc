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
    return this.found.get(groupId) ?? this.remember(groupId, this.lookUp(groupId));
  }

  /**
   * The coordinators of `groupIds` (a group whose lookup failed is left out), the unknown ones
   * found by one FindCoordinator naming them all. Why: a roster read looked each pool group up in
   * its own request, so every start of a fleet of N asked N of them. A batch that fails (one
   * group's coordinator is loading, say) is asked again group by group.
   */
  async ofAll(groupIds: readonly string[]): Promise<Map<string, BrokerAddress>> {
    const unknown = groupIds.filter((groupId) => !this.found.has(groupId));
    if (unknown.length > 1) {
      const batch = this.lookUpAll(unknown).catch(() => new Map<string, BrokerAddress>());
      for (const groupId of unknown)
        this.remember(
          groupId,
          batch.then((found) => found.get(groupId) ?? this.lookUp(groupId)),
        );
    }
    const found = new Map<string, BrokerAddress>();
    await Promise.all(
      groupIds.map(async (groupId) => {
        const address = await this.of(groupId).catch(() => undefined);
        if (address) found.set(groupId, address);
      }),
    );
    return found;
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
    try {
      return await this.attempt(groupId, request);
    } catch (error) {
      if (!known) throw error;
      return this.attempt(groupId, request);
    }
  }

  /** `request` to the coordinator known or found now; a failure forgets it. */
  private async attempt<T>(
    groupId: string,
    request: (coordinator: BrokerAddress) => Promise<T>,
  ): Promise<T> {
    const address = this.of(groupId);
    try {
      return await request(await address);
    } catch (error) {
      this.forget(groupId, address);
      throw error;
    }
  }

  /** Keeps a lookup in flight or done; a failed one is forgotten, so the next asks again. */
  private remember(groupId: string, address: Promise<BrokerAddress>): Promise<BrokerAddress> {
    this.found.set(groupId, address);
    address.catch(() => this.forget(groupId, address));
    return address;
  }

  private async lookUpAll(groupIds: string[]): Promise<Map<string, BrokerAddress>> {
    const found = await this.admin.findCoordinator({ keyType: GROUP_KEY, keys: groupIds });
    return new Map(found.map((c) => [c.key, { host: c.host, port: c.port }]));
  }

  private async lookUp(groupId: string): Promise<BrokerAddress> {
    const [found] = await this.admin.findCoordinator({ keyType: GROUP_KEY, keys: [groupId] });
    if (!found) throw new Error(`no coordinator found for group ${groupId}`);
    return { host: found.host, port: found.port };
  }
}
