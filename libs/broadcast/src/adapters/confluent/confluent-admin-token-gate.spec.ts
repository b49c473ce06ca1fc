import { AdminTokenGate } from './confluent-admin-token-gate.js';
import { ConfluentTokens } from './confluent-oauth-tokens.js';

/** A gate over a provider whose answers the test releases one by one. */
function gated() {
  const answers: ((value: string) => void)[] = [];
  const tokens = ConfluentTokens.of(
    {
      mechanism: 'oauthbearer',
      oauthBearerProvider: () =>
        new Promise((resolve) => answers.push((value) => resolve({ value }))),
    },
    () => undefined,
  )!;
  const gate = new AdminTokenGate(tokens);
  const events: string[] = [];
  /** What the binding does with the callback's promise: sets the token in its then(). */
  const refresh = () =>
    gate
      .config()
      .oauthbearer_token_refresh_cb()
      .then((token) => events.push(`set ${token.tokenValue}`));
  const request = (name: string, answered: Promise<void>) =>
    gate.run(async () => {
      events.push(`send ${name}`);
      await answered;
      events.push(`answered ${name}`);
    }, 5_000);
  return { answers, events, refresh, request };
}

const turn = () => new Promise((resolve) => setImmediate(resolve));

describe('AdminTokenGate', () => {
  it('requests wait for the first token; the gate opens after the binding has set it', async () => {
    const { answers, events, refresh, request } = gated();
    const first = refresh();
    const sent = request('a', Promise.resolve());
    await turn();
    expect(events).toEqual([]);
    answers[0]!('t1');
    await Promise.all([first, sent]);
    expect(events).toEqual(['set t1', 'send a', 'answered a']);
  });

  it('a refreshed token is handed over once the requests in flight answered, new ones waiting', async () => {
    const { answers, events, refresh, request } = gated();
    const first = refresh();
    answers[0]!('t1');
    await first;
    await turn();
    let answer!: () => void;
    const slow = request('slow', new Promise<void>((resolve) => (answer = resolve)));
    await turn();
    const second = refresh();
    answers[1]!('t2');
    await turn();
    const later = request('later', Promise.resolve());
    await turn();
    expect(events).toEqual(['set t1', 'send slow']);
    answer();
    await Promise.all([slow, second, later]);
    expect(events).toEqual([
      'set t1',
      'send slow',
      'answered slow',
      'set t2',
      'send later',
      'answered later',
    ]);
  });

  it('a request waits for the first token at most its own timeout', async () => {
    const events: string[] = [];
    const started = Date.now();
    const tokens = ConfluentTokens.of(
      { mechanism: 'oauthbearer', oauthBearerProvider: () => new Promise(() => undefined) },
      () => undefined,
    )!;
    const gate = new AdminTokenGate(tokens);
    await gate.run(async () => void events.push('sent'), 50);
    expect(events).toEqual(['sent']);
    expect(Date.now() - started).toBeGreaterThanOrEqual(45);
  });

  it('a provider that fails opens the gate: requests go on', async () => {
    const tokens = ConfluentTokens.of(
      { mechanism: 'oauthbearer', oauthBearerProvider: () => Promise.reject(new Error('down')) },
      () => undefined,
    )!;
    const gate = new AdminTokenGate(tokens);
    await expect(gate.config().oauthbearer_token_refresh_cb()).rejects.toThrow(/down/);
    const started = Date.now();
    await gate.run(() => Promise.resolve(), 5_000);
    expect(Date.now() - started).toBeLessThan(1_000);
  });
});
