import type { HandlerErrorHook } from 'nestjs-kafka-broadcast';

/**
 * The module's onHandlerError for DEMO_FAILURE_WEBHOOK: each broadcast whose handler failed for
 * good (after its retries; it also went to the dead-letter topic) is POSTed to that URL, as a
 * chat or paging webhook would take it. A refused or failed POST rejects: the library logs it
 * and counts it (broadcast_hook_failed_total, alert BroadcastFailureHookFailed).
 */
export function failureWebhook(url: string, instanceName: string): HandlerErrorHook {
  return async (error, { topic, handler, message, attempts }) => {
    const response = await fetch(url, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({
        instance: instanceName,
        topic,
        handler,
        attempts,
        partition: message.partition,
        offset: message.offset,
        error: error instanceof Error ? error.message : String(error),
      }),
    });
    if (!response.ok) throw new Error(`failure webhook ${url} answered ${response.status}`);
  };
}
