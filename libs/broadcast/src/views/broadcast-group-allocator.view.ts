import type { BroadcastGroupAllocator as AllocatorCore } from '../core/allocation/broadcast-group.allocator.js';

/**
 * What the allocator shows of the pool of consumer groups this instance claims its group from:
 * the pool's name and whether it ran out. Injectable (`BroadcastModule` provides it) and
 * `engine.allocator`. A view only: groups are claimed and given up by the engine's reader.
 */
export abstract class BroadcastGroupAllocator {
  /** The pool's base name in the current lock mode: what targeting calls the service. */
  abstract get base(): string;

  /** True while the latest full pass over the pool found no id to claim; a claim clears it. */
  abstract get exhausted(): boolean;

  /** Full passes that found no id to claim, since the engine was built (a counter for metrics). */
  abstract get exhaustions(): number;

  /** The name of the pool's group `id`: `<topicPrefix><base>-<id>`. */
  abstract groupName(id: number): string;
}

/** The view the Nest module injects: it reaches the allocator through these reads only. */
class AllocatorView extends BroadcastGroupAllocator {
  readonly #allocator: AllocatorCore;

  constructor(allocator: AllocatorCore) {
    super();
    this.#allocator = allocator;
  }

  get base(): string {
    return this.#allocator.base;
  }

  get exhausted(): boolean {
    return this.#allocator.exhausted;
  }

  get exhaustions(): number {
    return this.#allocator.exhaustions;
  }

  groupName(id: number): string {
    return this.#allocator.groupName(id);
  }
}

/** @internal The read-only view of the engine's allocator. */
export function allocatorView(allocator: AllocatorCore): BroadcastGroupAllocator {
  return Object.freeze(new AllocatorView(allocator));
}
