import type {
  BroadcastInstrumentation,
  BroadcastTelemetrySource,
  TelemetrySignals,
} from '../interfaces/broadcast-instrumentation.interface.js';
import type { BroadcastLogger } from '../interfaces/broadcast-logger.interface.js';
import { errorMessage } from '../shared/async.utils.js';
import { NO_INSTRUMENTATION } from '../interfaces/no-instrumentation.js';

/**
 * The instrumentation an engine uses: the one given, none for `false` or when the `telemetry`
 * option turns traces and metrics off, otherwise the OpenTelemetry one with what `telemetry`
 * keeps, when `@opentelemetry/api` can be imported. The import is dynamic so that
 * @opentelemetry/api stays an optional peer: without it the engine runs uninstrumented.
 */
export async function loadInstrumentation(
  given: BroadcastInstrumentation | false | undefined,
  source: BroadcastTelemetrySource,
  logger: BroadcastLogger,
  telemetry: TelemetrySignals,
): Promise<BroadcastInstrumentation> {
  if (given === false) return NO_INSTRUMENTATION;
  if (given) return given;
  if (!telemetry.traces && !telemetry.metrics) return NO_INSTRUMENTATION;
  try {
    const { OpenTelemetryInstrumentation } = await import('./open-telemetry.instrumentation.js');
    return new OpenTelemetryInstrumentation(source, telemetry);
  } catch (error) {
    // ERR_MODULE_NOT_FOUND from the ESM build's import(), MODULE_NOT_FOUND from the CommonJS
    // build's require(): either way the optional peer is simply not installed.
    const code = (error as NodeJS.ErrnoException).code;
    const missing =
      (code === 'ERR_MODULE_NOT_FOUND' || code === 'MODULE_NOT_FOUND') &&
      errorMessage(error).includes('@opentelemetry/api');
    if (!missing)
      logger.warn(`Broadcast telemetry is off: ${errorMessage(error)}`, {
        reason: errorMessage(error),
      });
    return NO_INSTRUMENTATION;
  }
}
