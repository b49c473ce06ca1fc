/** Resolves after `ms`, or at once when the signal aborts. Never rejects. */
export function pause(ms: number, signal?: AbortSignal): Promise<void> {
  if (signal?.aborted) return Promise.resolve();
  return new Promise((resolve) => {
    const timer = setTimeout(done, ms);
    timer.unref?.();
    signal?.addEventListener('abort', done, { once: true });
    function done() {
      clearTimeout(timer);
      signal?.removeEventListener('abort', done);
      resolve();
    }
  });
}

/** Exponential backoff with full jitter, capped. */
export function backoffDelay(attempt: number, baseMs = 100, capMs = 2_000): number {
  const ceiling = Math.min(capMs, baseMs * 2 ** Math.min(attempt, 16));
  return Math.round(ceiling / 2 + (Math.random() * ceiling) / 2);
}

/** Rejects with "`what` timed out after `ms` ms" if `promise` does not settle within `ms`. */
export async function withTimeout<T>(promise: Promise<T>, ms: number, what: string): Promise<T> {
  // The losing promise may still reject later; it must not become an unhandled rejection.
  promise.catch(() => undefined);
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`${what} timed out after ${ms} ms`)), ms);
  });
  try {
    return await Promise.race([promise, timeout]);
  } finally {
    clearTimeout(timer);
  }
}

/** The message of an Error, or the string form of anything else that was thrown. */
export function errorMessage(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

/** Anything thrown, as an Error. */
export function asError(error: unknown): Error {
  return error instanceof Error ? error : new Error(String(error));
}

export interface Deferred<T> {
  promise: Promise<T>;
  resolve(value: T): void;
  reject(reason: unknown): void;
}

/** Promise.withResolvers, which Node 20 lacks. */
export function deferred<T>(): Deferred<T> {
  let resolve!: (value: T) => void;
  let reject!: (reason: unknown) => void;
  const promise = new Promise<T>((res, rej) => {
    resolve = res;
    reject = rej;
  });
  return { promise, resolve, reject };
}

/** What settleUnlessAborted answers once the signal aborted first. */
export const ABORTED = Symbol('aborted');

/** The promise's outcome, or ABORTED as soon as `signal` aborts (the promise is then left to settle alone). */
export function settleUnlessAborted(
  promise: Promise<void>,
  signal: AbortSignal,
): Promise<{ ok: true } | { ok: false; error: unknown } | typeof ABORTED> {
  const outcome = promise.then(
    () => ({ ok: true as const }),
    (error: unknown) => ({ ok: false as const, error }),
  );
  if (signal.aborted) return Promise.resolve(ABORTED);
  return new Promise((resolve) => {
    const onAbort = () => resolve(ABORTED);
    signal.addEventListener('abort', onAbort, { once: true });
    void outcome.then((result) => {
      signal.removeEventListener('abort', onAbort);
      resolve(result);
    });
  });
}

/**
 * Keeps the process alive until the returned function is called: a ref'd timer that never fires.
 * The engine's own waits use unref'd timers (they must never hold a process open after stop()),
 * so without it a script whose only work is a pending start() would end silently, before start()
 * could report anything.
 */
export function holdProcessOpen(): () => void {
  const timer = setInterval(() => undefined, 1 << 30);
  return () => clearInterval(timer);
}
