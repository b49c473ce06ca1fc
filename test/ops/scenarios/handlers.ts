// h1: handler failures, retries exhausted, dead letters (one refused), a failing onHandlerError,
// a tracing SDK that throws, then a group move forced by a foreign member.
import {
  event,
  FAULTY_TRACEPARENT,
  foreignMember,
  groupOf,
  HANDLER,
  type OpsEnv,
} from './shared.js';

export async function handlersScenario(env: OpsEnv): Promise<void> {
  const { checks, producer, live, brokers, PREFIX, TOPIC } = env;
  const h1 = live.h1!;
  const h = { broadcast_instance: 'h1' };
  const t = Date.now();
  await producer.send({
    topic: PREFIX.handlers + TOPIC,
    messages: [
      // Fails its three attempts: dead-lettered, and the webhook of onHandlerError refuses.
      event('not a number'),
      // Fails too; its dead letter is over the topic's max.message.bytes.
      event('too big', { pad: 'x'.repeat(4_000) }),
      // Handled, but the tracing SDK throws on its span: contained, counted.
      { ...event(7), headers: { traceparent: FAULTY_TRACEPARENT } },
    ],
  });
  const failing = await Promise.all([
    checks.fired(
      'BroadcastHandlerFailing',
      { ...h, broadcast_handler: HANDLER },
      t,
      '2 malformed records, 6 failed attempts',
    ),
    checks.fired('BroadcastHandlerRetriesExhausted', h, t, '2 records failed their 3 attempts'),
    checks.fired('BroadcastDeadLetters', h, t, 'a final failure dead-lettered'),
    checks.fired('BroadcastDeadLetterFailed', h, t, 'a dead letter over max.message.bytes'),
    checks.fired('BroadcastFailureHookFailed', h, t, 'onHandlerError: the webhook refused'),
    checks.fired('BroadcastInternalErrors', h, t, 'the tracing SDK threw on a span'),
  ]);
  expect(failing[0]!.labels.messaging_destination_name).toBe(PREFIX.handlers + TOPIC);
  const handler = { ...h, broadcast_handler: HANDLER };
  const resolving = Promise.all(
    [
      ['BroadcastHandlerFailing', handler] as const,
      ...[
        'BroadcastHandlerRetriesExhausted',
        'BroadcastDeadLetters',
        'BroadcastDeadLetterFailed',
        'BroadcastFailureHookFailed',
        'BroadcastInternalErrors',
      ].map((alert) => [alert, h] as const),
    ].map(([alert, labels]) =>
      checks.resolved(alert, labels, t, 'no failure since (the window passed)'),
    ),
  );

  // A foreign member in its group: h1 waits for it to leave, then moves to another id.
  const group = await groupOf(h1);
  const foreign = await foreignMember(brokers, group, PREFIX.handlers + TOPIC);
  const movedAt = Date.now();
  try {
    // Its recovery lasts less than a scrape interval: the state gauges may never show it
    // (BroadcastReaderRecovering is proven by the broker outage, which lasts).
    await checks.fired(
      'BroadcastGroupMoves',
      h,
      movedAt,
      'a foreign member made h1 move (group_moves 0)',
    );
  } finally {
    await foreign.disconnect();
  }
  const movedTo = await groupOf(h1);
  expect(movedTo).not.toBe(group);
  await Promise.all([
    resolving,
    checks.resolved('BroadcastGroupMoves', h, movedAt, 'no move since (the window passed)'),
  ]);
}
