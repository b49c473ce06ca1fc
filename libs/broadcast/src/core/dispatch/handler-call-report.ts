import type { BroadcastLogger } from '../../interfaces/broadcast-logger.interface.js';
import { errorMessage } from '../../shared/async.utils.js';
import type { Call } from './handler-call.types.js';

/** The log line of a failed handler call: a warning when it is retried, an error when final. */
export function reportFailure(
  logger: BroadcastLogger,
  level: 'warn' | 'error',
  call: Call,
  error: unknown,
  note: string,
): void {
  const { handler, message, policy } = call;
  const where = `${message.topic}[${message.partition}]@${message.offset}`;
  const attempt = policy.attempts > 1 ? ` (attempt ${call.attempt} of ${policy.attempts})` : '';
  const text = `Broadcast handler ${handler.name} failed on ${where}${attempt}: ${errorMessage(error)}${note}`;
  const fields = {
    topic: message.topic,
    partition: message.partition,
    offset: message.offset,
    handler: handler.name,
    // Only for handlers with retries: the fields of a plain handler's failure stay as they were.
    ...(policy.attempts > 1 && { attempt: call.attempt, attempts: policy.attempts }),
    reason: errorMessage(error),
  };
  if (level === 'warn') logger.warn(text, fields);
  else logger.error(text, error instanceof Error ? error.stack : undefined, fields);
}
