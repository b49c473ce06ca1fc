/**
 * Consumer timings of every broker test: a dead member is noticed in seconds, not the broker's
 * 45 s, and an idle fetch returns within 100 ms. One definition for the engine, Nest and fault kits.
 */
export const FAST_CONSUMER = {
  sessionTimeoutMs: 6_000,
  heartbeatIntervalMs: 500,
  maxWaitTimeMs: 100,
} as const;

/** How often the tests that lose locks check them. */
export const LOCK_CHECK_INTERVAL_MS = 500;
