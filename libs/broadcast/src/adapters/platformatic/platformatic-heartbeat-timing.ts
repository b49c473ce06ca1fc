/**
 * The timing of one KIP-848 member's heartbeats: how long the broker surely holds the member
 * after a heartbeat it answered, and when the next heartbeat goes so that this never lapses
 * while the coordinator answers.
 */
export class HeartbeatTiming {
  /** When the last heartbeat the broker answered was sent, and the interval it asks for. */
  private answeredSentAt = 0;
  private intervalMs = 0;
  /** How long the last answered heartbeat took, sent to answered. */
  private roundTripMs = 0;
  /** The broker's session for this member, once read. */
  private sessionMs: number | undefined;
  /** The session was read, refused, or is being read: it is not asked again. */
  private sessionAsked = false;
  /** When the first answered heartbeat (the join) was sent. */
  private joinSentAt: number | undefined;

  constructor(
    /**
     * The session the broker gives the group's members (platformatic-group-session.ts): null when
     * the broker will not tell; rejects when it could not be asked (asked again later).
     */
    private readonly readSessionMs?: () => Promise<number | null>,
  ) {}

  /** A heartbeat sent at `sentAt` was answered now, asking for `intervalMs` until the next. */
  answered(sentAt: number, intervalMs: number): void {
    this.answeredSentAt = sentAt;
    this.roundTripMs = Date.now() - sentAt;
    this.intervalMs = intervalMs;
    this.joinSentAt ??= sentAt;
    if (sentAt - this.joinSentAt >= intervalMs) this.askSession();
  }

  /**
   * The broker surely still holds the member: the last answered heartbeat was sent less than the
   * broker's session ago, less a margin, as Kafka's Java consumer counts on (it fetches on while
   * its heartbeats fail). The broker keeps a KIP-848 member until a session passes without a
   * heartbeat received (the group's `consumer.session.timeout.ms`, else the broker's
   * `group.consumer.session.timeout.ms`, 45 s by default), and that heartbeat was received after
   * it was sent; a coordinator that takes the group over (a broker restart) starts every member's
   * session anew once it loaded the group. The margin, a tenth of the session or two round trips
   * if more, covers timer and scheduling slack on both sides. Until the session is known (or when
   * the broker will not tell) the bound is one heartbeat interval, which Kafka requires to be
   * shorter than the session; it is the floor either way. The session is read once: one an
   * operator lowers later counts from the next member on, and the broker's default minimum
   * (group.consumer.min.session.timeout.ms, 45 s) keeps any group's at 45 s or more.
   *
   * Why this is safe: while the broker holds the member, no other instance can take its group.
   * Lock-free, the member's static instance id is the claim (KafkaPort.claimsByInstanceId): the
   * broker refuses any other join with that id (UNRELEASED_INSTANCE_ID) and the DeleteGroups of
   * a non-empty group, until the member is gone. With locks, the database lock keeps the other
   * instances out besides. Why not the interval alone: when a coordinator moved, the new one
   * answered NOT_COORDINATOR, then COORDINATOR_LOAD_IN_PROGRESS for seconds (3.7 s in one
   * rolling restart), and records were held once the last answer was 5 s old: KIP-848 handlers
   * went silent up to 1.2 s longer than the publisher was stalled, kafkajs's 0.3 s (issue #37).
   */
  surelyHeld(now = Date.now()): boolean {
    return now - this.answeredSentAt < this.surelyHeldMs();
  }

  private surelyHeldMs(): number {
    const session = this.sessionMs;
    if (session === undefined) return this.intervalMs;
    const margin = Math.max(session / 10, 2 * this.roundTripMs);
    return Math.max(this.intervalMs, session - margin);
  }

  /**
   * When the next heartbeat goes: ahead of the end of the last answered one's interval, by a
   * fifth of the interval or twice its round trip (at most half the interval), so that its answer
   * is usually back before the interval ends (the bound until the session is known). Sent a whole
   * interval after the answer, as before 2026-12-05, every interval left a gap of a round trip and
   * more in which records waited for the answer: the full bench's paired fan-out had 10 engines'
   * p99 at 155 ms against 19 ms for raw consumers beside them.
   */
  untilNextBeat(): number {
    const { intervalMs, roundTripMs } = this;
    const lead = Math.min(intervalMs / 2, Math.max(intervalMs / 5, 2 * roundTripMs));
    return Math.max(0, this.answeredSentAt + intervalMs - lead - Date.now());
  }

  /**
   * Reads the broker's session once, in the background, at the answer of the first heartbeat sent
   * a whole interval after the join: after the start, whose requests
   * test/port/start-requests.spec.ts pins (the join and the heartbeat that acknowledges its
   * assignment at once both fall in it), and long before the bound matters. A read without an
   * answer is tried again at the next answered heartbeat; a refusal is final (the interval stays
   * the bound).
   */
  private askSession(): void {
    const read = this.readSessionMs;
    if (!read || this.sessionAsked) return;
    this.sessionAsked = true;
    read().then(
      (ms) => void (ms !== null && (this.sessionMs = ms)),
      () => void (this.sessionAsked = false),
    );
  }
}
