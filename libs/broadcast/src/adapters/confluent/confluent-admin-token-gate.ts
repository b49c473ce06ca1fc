import type { ConfluentTokens, RdOauthToken } from './confluent-oauth-tokens.js';

/**
 * Keeps an AdminClient's requests and its SASL/OAUTHBEARER token hand-overs apart. In 1.10.1 each
 * admin request holds the client's connection lock (a write lock, `scoped_shared_write_lock` in
 * `src/admin.cc`) for its whole wait, on a libuv worker, and `setOAuthBearerToken`, which the
 * binding calls on the JavaScript thread when the refresh callback's promise resolves, takes the
 * same lock (`Connection::SetOAuthBearerToken`): a token handed over while a request waits blocks
 * the event loop until that request ends. Seen (a probe on the secured broker): the first token,
 * asked for 5 ms after the client was made, was set only once the ListGroups sent right after
 * creation had timed out, 10 s later, and the process stood still meanwhile; the request could
 * not succeed, since no connection logs in without the token. So requests wait for the first
 * token (at most their own timeout: a provider that failed or hangs leaves them to time out as
 * before), and a refreshed token is handed over once the requests in flight have answered, new
 * ones waiting for it meanwhile. The provider's own call does not hold requests back.
 */
export class AdminTokenGate {
  private running = 0;
  private readonly idle: (() => void)[] = [];
  /** Set while requests wait: until the first token, and while a new one is handed over. */
  private closed: { opened: Promise<void>; open: () => void } | undefined;

  constructor(private readonly tokens: ConfluentTokens) {
    this.close();
  }

  /** The admin client's token refresh callback. */
  config(): { oauthbearer_token_refresh_cb: () => Promise<RdOauthToken> } {
    return { oauthbearer_token_refresh_cb: () => this.handOver() };
  }

  /** Sends `request` once no token is being handed over (waiting at most `waitMs`). */
  async run<T>(request: () => Promise<T>, waitMs: number): Promise<T> {
    const deadline = Date.now() + waitMs;
    while (this.closed && Date.now() < deadline) await this.opened(this.closed, deadline);
    this.running++;
    try {
      return await request();
    } finally {
      if (--this.running === 0) for (const resume of this.idle.splice(0)) resume();
    }
  }

  private async handOver(): Promise<RdOauthToken> {
    let token: RdOauthToken;
    try {
      token = await this.tokens.forClient();
    } catch (error) {
      // Requests go on (and time out); the start heard the provider's failure.
      this.open();
      throw error;
    }
    this.close();
    if (this.running > 0) await new Promise<void>((resume) => this.idle.push(resume));
    // The binding sets the token in its then() of the promise returned here, a microtask before.
    setImmediate(() => this.open());
    return token;
  }

  private close(): void {
    if (this.closed) return;
    let open!: () => void;
    const opened = new Promise<void>((resolve) => (open = resolve));
    this.closed = { opened, open };
  }

  private open(): void {
    const closed = this.closed;
    this.closed = undefined;
    closed?.open();
  }

  /** Resolves when `closed` opens or at the deadline, leaving no timer behind. */
  private opened(closed: { opened: Promise<void> }, deadline: number): Promise<void> {
    let timer: NodeJS.Timeout | undefined;
    return Promise.race([
      closed.opened,
      new Promise<void>((resolve) => (timer = setTimeout(resolve, deadline - Date.now()))),
    ]).finally(() => clearTimeout(timer));
  }
}
