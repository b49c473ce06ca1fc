import { ConfluentFatalState } from './confluent-fatal-state.js';
import { RD, rdCode } from './confluent-errors.js';

/** The consume callback's error in a fatal state: the binding's code, no broker code. */
const FATAL = Object.assign(new Error('Local: Fatal error'), { code: RD.FATAL });

/** librdkafka's line of rd_kafka_set_fatal_error, as the binding's log event carries it. */
function fatalLine(words: string) {
  return {
    severity: 0,
    fac: 'FATAL',
    message: `[thrd:main]: Fatal error: ${words}: ConsumerGroupHeartbeat fatal error: ${words}`,
  };
}

describe('ConfluentFatalState, the cause of a consumer that librdkafka made fatal', () => {
  it('a refused group READ is the broker refusal with its code, the consume error its cause', async () => {
    const state = new ConfluentFatalState();
    state.noteLog(fatalLine('Broker: Group authorization failed'));
    const error = await state.explain(FATAL);
    expect(rdCode(error)).toBe(RD.GROUP_AUTHORIZATION_FAILED);
    expect(error.cause).toBe(FATAL);
  });

  it('waits for a line logged after the consume callback failed', async () => {
    const state = new ConfluentFatalState();
    const explained = state.explain(FATAL);
    setImmediate(() => state.noteLog(fatalLine('Broker: The group has reached its maximum size')));
    const error = await explained;
    expect(error.message).toBe(
      'librdkafka: Broker: The group has reached its maximum size: ConsumerGroupHeartbeat fatal error: Broker: The group has reached its maximum size',
    );
    expect(error.cause).toBe(FATAL);
  });

  it('keeps the first fatal line and passes over ordinary error lines', async () => {
    const state = new ConfluentFatalState();
    state.noteLog({ severity: 3, fac: 'FAIL', message: 'Connect to ipv4#127.0.0.1:1 failed' });
    state.noteLog(fatalLine('Broker: Unreleased instance id'));
    state.noteLog(fatalLine('Broker: Group authorization failed'));
    const error = await state.explain(FATAL);
    expect(error.message).toMatch(/^librdkafka: Broker: Unreleased instance id/);
    expect(rdCode(error)).toBe(RD.FATAL);
  });

  it('without a line within its wait, says so, the consume error its cause', async () => {
    vi.useFakeTimers();
    try {
      const explained = new ConfluentFatalState().explain(FATAL);
      await vi.advanceTimersByTimeAsync(1_000);
      const error = await explained;
      expect(error.message).toMatch(/fatal state \(no cause was logged\)/);
      expect(error.cause).toBe(FATAL);
    } finally {
      vi.useRealTimers();
    }
  });
});
