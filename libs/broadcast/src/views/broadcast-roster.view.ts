import type { RosterEvent, RosterInstance } from '../interfaces/broadcast-roster.interface.js';
import type {
  BroadcastRoster as RosterCore,
  RosterListener,
} from '../core/features/roster/broadcast-roster.js';

/**
 * The instances live now, read from the broker: every live instance is the only member of one
 * pool group, and writes its instance id into its membership's user data. One refresh is one
 * ListGroups and one DescribeGroups, whatever the number of instances; nothing is published.
 * A new instance appears as soon as it joined its group (before it is ready); a crashed one
 * disappears when its member expires (consumer.sessionTimeoutMs). Injectable (`BroadcastModule`
 * provides it) and `engine.roster`; its polling starts and stops with the engine.
 */
export abstract class BroadcastRoster {
  /** Whether the Kafka client can list group members (both bundled adapters can). */
  abstract get supported(): boolean;

  /** When the latest refresh completed (epoch ms), or undefined before the first. */
  abstract get lastRefreshAt(): number | undefined;

  /** The instances seen by the latest refresh, by instance id. */
  abstract instances(): RosterInstance[];

  /** Calls `listener` for every instance that appears (`join`) or disappears (`leave`). */
  abstract on(event: RosterEvent, listener: RosterListener): () => void;

  /**
   * The live instances as of at most `maxAgeMs` ago, without starting the roster's polling: the
   * latest refresh when recent enough, else one look at the broker (kept for the next caller).
   */
  abstract recent(maxAgeMs: number): Promise<readonly RosterInstance[]>;

  /** Asks the broker now; concurrent callers share one request. */
  abstract refresh(): Promise<readonly RosterInstance[]>;
}

/** The view the Nest module injects: the roster without its start() and stop(). */
class RosterView extends BroadcastRoster {
  readonly #roster: RosterCore;

  constructor(roster: RosterCore) {
    super();
    this.#roster = roster;
  }

  get supported(): boolean {
    return this.#roster.supported;
  }

  get lastRefreshAt(): number | undefined {
    return this.#roster.lastRefreshAt;
  }

  instances(): RosterInstance[] {
    return this.#roster.instances();
  }

  on(event: RosterEvent, listener: RosterListener): () => void {
    return this.#roster.on(event, listener);
  }

  recent(maxAgeMs: number): Promise<readonly RosterInstance[]> {
    return this.#roster.recent(maxAgeMs);
  }

  refresh(): Promise<readonly RosterInstance[]> {
    return this.#roster.refresh();
  }
}

/** @internal The roster as applications see it: no start() or stop(). */
export function rosterView(roster: RosterCore): BroadcastRoster {
  return Object.freeze(new RosterView(roster));
}
