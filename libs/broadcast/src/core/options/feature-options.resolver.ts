import { BroadcastOptionsError } from '../../errors/broadcast-options.error.js';
import type { TelemetrySignals } from '../../interfaces/broadcast-instrumentation.interface.js';
import type { BroadcastModuleOptions } from '../../interfaces/broadcast-module-options.interface.js';
import { bool, isObject, nonEmptyName } from './option-checks.js';

export const DEFAULT_ROSTER_INTERVAL_MS = 3_000;
export const DEFAULT_RECEIPTS_TOPIC = 'broadcast.receipts.v1';

/** Roster, receipts, replay and telemetry options, checked. */
export interface ResolvedFeatureOptions {
  roster: { intervalMs: number };
  receipts: { topic: string } | false;
  /** Logical topic → replay window in ms. */
  replay: Map<string, number>;
  /** What the OpenTelemetry instrumentation records. */
  telemetry: TelemetrySignals;
}

export function resolveFeatureOptions(options: BroadcastModuleOptions): ResolvedFeatureOptions {
  const { roster, receipts, replay, telemetry } = options;
  if (roster !== undefined && !isObject(roster))
    throw new BroadcastOptionsError('roster', '{ intervalMs?: number }', roster);
  const intervalMs = roster?.intervalMs ?? DEFAULT_ROSTER_INTERVAL_MS;
  if (!Number.isInteger(intervalMs) || intervalMs < 0)
    throw new BroadcastOptionsError(
      'roster.intervalMs',
      'an integer ≥ 0 (0: on demand only)',
      intervalMs,
    );
  if (receipts !== undefined && receipts !== false && !isObject(receipts))
    throw new BroadcastOptionsError('receipts', '{ topic?: string } or false', receipts);
  if (replay !== undefined && !isObject(replay))
    throw new BroadcastOptionsError('replay', '{ [topic]: windowMs }', replay);
  const windows = new Map<string, number>();
  for (const [topic, windowMs] of Object.entries(replay ?? {})) {
    nonEmptyName(`replay["${topic}"] (topic)`, topic);
    if (!Number.isInteger(windowMs) || (windowMs as number) < 1)
      throw new BroadcastOptionsError(
        `replay["${topic}"]`,
        'a window in ms (integer ≥ 1)',
        windowMs,
      );
    windows.set(topic, windowMs as number);
  }
  if (telemetry !== undefined && telemetry !== false && !isObject(telemetry))
    throw new BroadcastOptionsError(
      'telemetry',
      '{ traces?: boolean, metrics?: boolean } or false',
      telemetry,
    );
  return {
    roster: { intervalMs },
    receipts:
      receipts === false
        ? false
        : { topic: nonEmptyName('receipts.topic', receipts?.topic ?? DEFAULT_RECEIPTS_TOPIC) },
    replay: windows,
    telemetry: {
      traces: telemetry !== false && bool('telemetry.traces', telemetry?.traces, true),
      metrics: telemetry !== false && bool('telemetry.metrics', telemetry?.metrics, true),
    },
  };
}
