import { Logger } from '@nestjs/common';
import type { BroadcastEngine } from '../engine/broadcast.engine.js';
import { WAITS, waitingFor } from './waiting-for.js';

/** How long bootstrap may wait for a group before the module says what that wait closes. */
export const BLOCKED_BOOTSTRAP_WARN_MS = 10_000;
const CHECK_EVERY_MS = 250;

/**
 * With `waitForReady: true` (the default) the module's bootstrap hook waits for the group, and
 * `app.listen()` waits for the hook: the HTTP server, its health and metrics endpoints included,
 * stays closed meanwhile, so an orchestrator's probes and Prometheus see nothing at all. Once that
 * wait is for a pool id (possibly long: until another instance stops) or has lasted
 * BLOCKED_BOOTSTRAP_WARN_MS, this logs one warning saying so and naming `waitForReady: false`.
 * Nothing for an application context or a microservice (no HTTP server to open), nor with
 * `waitForReady: false`. Returns the function that stops watching (bootstrap settled).
 */
export function watchBlockedBootstrap(engine: BroadcastEngine, httpServer: unknown): () => void {
  const listening = (httpServer as { listening?: unknown } | undefined)?.listening;
  if (!engine.options.waitForReady || httpServer === undefined || listening) return () => undefined;
  const startedAt = Date.now();
  const timer = setInterval(() => {
    const status = engine.reader.status();
    if (status.state === 'ready') return clearInterval(timer);
    const wait = waitingFor(status);
    if (wait !== 'pool' && Date.now() - startedAt < BLOCKED_BOOTSTRAP_WARN_MS) return;
    clearInterval(timer);
    new Logger('Broadcast').warn(blockedMessage(wait, engine.options.startupTimeoutMs));
  }, CHECK_EVERY_MS);
  // The engine's start holds the process open while it runs; this watch must not.
  timer.unref();
  return () => clearInterval(timer);
}

function blockedMessage(wait: keyof typeof WAITS | undefined, startupTimeoutMs: number): string {
  const now = wait ? `, now ${WAITS[wait]}` : '';
  return (
    `Application bootstrap waits for this instance's broadcast group (waitForReady: true${now}): ` +
    `app.listen() opens the HTTP server, with its health and metrics endpoints, only once this ` +
    `instance reads, and bootstrap fails at startupTimeoutMs (${startupTimeoutMs} ms). Behind ` +
    `liveness and readiness probes, set waitForReady: false: the port opens at once and readiness ` +
    `says what the instance waits for.`
  );
}
