// The timeout side of HandlerCalls: a call still running is tracked, and the wait for it is
// bounded by its handler's timeoutMs. Kept apart because these two share one rule that
// HandlerCalls must not see twice: each call gets ONE verdict (handled, failed or timed out), so a
// late settle after a timeout is ignored. Calls are never cancelled, only no longer waited for.
import type { HandlerObservation } from '../../interfaces/broadcast-instrumentation.interface.js';
import type { Call, TrackedCall } from './handler-call.types.js';

/** Where a call's one verdict goes. */
export interface CallVerdicts {
  succeeded(call: Call, observed: HandlerObservation): void;
  failed(
    call: Call,
    error: unknown,
    observed: HandlerObservation,
    outcome: 'failed' | 'timed-out',
  ): void;
}

/** Marks the call settled so a late rejection after a timeout is not counted twice. */
export function trackCall(
  call: Call,
  result: PromiseLike<unknown>,
  observed: HandlerObservation,
  verdicts: CallVerdicts,
): TrackedCall {
  const state = { settled: false };
  const done = Promise.resolve(result).then(
    () => {
      if (!state.settled) verdicts.succeeded(call, observed);
      state.settled = true;
    },
    (error: unknown) => {
      if (!state.settled) verdicts.failed(call, error, observed, 'failed');
      state.settled = true;
    },
  );
  return Object.assign(done, { state, call, observed });
}

/** Waits for the calls, each at most its handler's timeout (one timer per distinct timeout). */
export async function awaitBounded(pending: TrackedCall[], verdicts: CallVerdicts): Promise<void> {
  const byTimeout = new Map<number, TrackedCall[]>();
  for (const p of pending) {
    const group = byTimeout.get(p.call.policy.timeoutMs);
    if (group) group.push(p);
    else byTimeout.set(p.call.policy.timeoutMs, [p]);
  }
  await Promise.all([...byTimeout].map(([ms, group]) => within(group, ms, verdicts)));
}

async function within(
  pending: TrackedCall[],
  timeoutMs: number,
  verdicts: CallVerdicts,
): Promise<void> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<void>((resolve) => (timer = setTimeout(resolve, timeoutMs)));
  await Promise.race([Promise.all(pending), timeout]);
  clearTimeout(timer);
  for (const p of pending) {
    if (p.state.settled) continue;
    p.state.settled = true;
    const error = new Error(`timed out after ${timeoutMs} ms`);
    verdicts.failed(p.call, error, p.observed, 'timed-out');
  }
}
