import type { BroadcastLogger } from '../../../interfaces/broadcast-logger.interface.js';
import type { RosterInstance } from '../../../interfaces/broadcast-roster.interface.js';
import type { BroadcastTarget } from './targeting.js';

/**
 * The names in `to` (instance ids and services) that no live instance reading `topic` answers
 * to: a publish targeted at them reaches nobody, most often a typo or an instance that is gone.
 */
export function unmatchedTargets(
  to: BroadcastTarget | undefined,
  live: readonly RosterInstance[],
  topic: string,
): string[] {
  if (!to) return [];
  const readers = live.filter((i) => i.topics.includes(topic));
  return [
    ...(to.instances ?? []).filter((id) => !readers.some((i) => i.instanceId === id)),
    ...(to.services ?? []).filter((s) => !readers.some((i) => i.service === s)),
  ];
}

/** Warns once per topic and set of unmatched names: a loop of such publishes logs one line. */
export class UnmatchedTargetWarnings {
  private readonly warned = new Set<string>();

  constructor(private readonly logger: BroadcastLogger) {}

  warn(topic: string, unmatched: readonly string[], matchedAny: boolean): void {
    if (unmatched.length === 0) return;
    const key = `${topic}\n${unmatched.join(',')}`;
    if (this.warned.has(key)) return;
    this.warned.add(key);
    const names = unmatched.join(', ');
    const outcome = matchedAny ? 'they will not receive it' : 'it reaches no instance';
    this.logger.warn(
      `Targeted broadcast on ${topic}: no live instance reading it has the id or service ${names}; ${outcome}.`,
      { topic, unmatched: names, reason: 'target matches no live instance' },
    );
  }
}
