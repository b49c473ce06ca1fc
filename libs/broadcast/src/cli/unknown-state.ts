import {
  type OperatorGroup,
  UNKNOWN_GROUP_STATE,
} from '../interfaces/broadcast-operator.interface.js';

/** Why a group's state is unknown, and what can tell it. */
export const UNKNOWN_STATE_HINT =
  'this Kafka client cannot describe KIP-848 (consumer protocol) groups: use --client platformatic';

/** Whether the client could not describe `group` (its members are unknown, not none). */
export function stateUnknown(group: OperatorGroup): boolean {
  return group.state === UNKNOWN_GROUP_STATE;
}

/**
 * Warns on stderr (stdout stays the command's output, JSON included) when groups of unknown state
 * were listed: without the warning they would read as empty.
 */
export function warnUnknownStates(groups: readonly OperatorGroup[], command: string): void {
  const unknown = groups.filter(stateUnknown).length;
  if (unknown === 0) return;
  process.stderr.write(
    `warning: ${command}: ${unknown} group${unknown === 1 ? '' : 's'} of unknown state (${UNKNOWN_STATE_HINT})\n`,
  );
}
