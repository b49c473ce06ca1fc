import type { DeleteGroupOutcome } from '../../interfaces/kafka-port.interface.js';
import { backoffDelay, pause } from '../../shared/async.utils.js';
import type { ClientErrors } from './client-errors.js';

/**
 * Deletes a consumer group (the allocator deletes a candidate before it joins, so the group starts
 * fresh; a stopping engine deletes the group it left): a non-empty or missing group is an answer,
 * a refusal names the ACL the call needed, and everything else (the coordinator moving or loading,
 * timeouts, lost connections) is retried until `deadline`. `signal` ends it at once: the request
 * in flight is left to its client, which the port cuts when it closes. An attempt either resolves
 * with the answer itself ('non-empty', 'not-found') or throws it as its client's error.
 */
export async function deleteGroupRetrying(
  attempt: () => Promise<unknown>,
  errors: Pick<ClientErrors, 'deleteAnswer' | 'fatalForGroup'>,
  groupId: string,
  deadline: number,
  signal?: AbortSignal,
): Promise<DeleteGroupOutcome> {
  for (let n = 0; ; n++) {
    signal?.throwIfAborted();
    try {
      const answer = await untilAborted(attempt(), signal);
      return answer === 'non-empty' || answer === 'not-found' ? answer : 'deleted';
    } catch (error) {
      signal?.throwIfAborted();
      const answer = errors.deleteAnswer(error, groupId);
      if (answer) return answer;
      const denied = await errors.fatalForGroup(error, {
        operation: 'delete consumer group',
        acl: { group: 'DELETE' },
        groupId,
      });
      if (denied) throw denied;
      const delay = backoffDelay(n);
      if (Date.now() + delay >= deadline) throw error;
      await pause(delay, signal);
    }
  }
}

/** `work`, or its signal's reason as soon as `signal` aborts (`work` is left to settle alone). */
export function untilAborted<T>(work: Promise<T>, signal: AbortSignal | undefined): Promise<T> {
  if (!signal) return work;
  work.catch(() => undefined);
  if (signal.aborted) return Promise.reject(signal.reason);
  return new Promise<T>((resolve, reject) => {
    const onAbort = () => reject(signal.reason);
    signal.addEventListener('abort', onAbort, { once: true });
    work.then(resolve, reject).finally(() => signal.removeEventListener('abort', onAbort));
  });
}
