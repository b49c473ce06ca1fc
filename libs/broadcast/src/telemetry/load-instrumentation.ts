import type {
  BroadcastInstrumentation,
  BroadcastTelemetrySource,
} from '../interfaces/broadcast-instrumentation.interface.js';
import type { BroadcastLogger } from '../interfaces/broadcast-logger.interface.js';
import { errorMessage } from '../shared/async.utils.js';
import { NO_INSTRUMENTATION } from './no-instrumentation.js';

/**
 * The instrumentation an engine uses: the one given, none for `false`, otherwise the
 * OpenTelemetry one when `@opentelemetry/api` can be imported. The import is dynamic so
 * that @opentelemetry/api stays an optional peer: without it the engine runs uninstrumented.
 */
export async function loadInstrumentation(
  given: BroadcastInstrumentation | false | undefined,
  source: BroadcastTelemetrySource,
  logger: BroadcastLogger,
): Promise<BroadcastInstrumentation> {
  if (given === false) return NO_INSTRUMENTATION;
  if (given) return given;
  try {
    const { OpenTelemetryInstrumentation } = await import('./open-telemetry.instrumentation.js');
    return new OpenTelemetryInstrumentation(source);
  } catch (error) {
    const missing =
      (error as NodeJS.ErrnoException).code === 'ERR_MODULE_NOT_FOUND' &&
      errorMessage(error).includes('@opentelemetry/api');
    if (!missing)
      logger.warn(`Broadcast telemetry is off: ${errorMessage(error)}`, {
        reason: errorMessage(error),
      });
    return NO_INSTRUMENTATION;
  }
}
