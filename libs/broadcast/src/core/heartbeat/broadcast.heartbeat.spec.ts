import { BroadcastHeartbeat, type HeartbeatPayload } from './broadcast.heartbeat.js';
import { heartbeatDelay, heartbeatWait, spreadPosition } from './heartbeat-timing.js';
import { StaleSender } from './stale-sender.js';

const silent = { log() {}, warn() {}, error() {} };
const INTERVAL = 10_000;
const JITTER = 0.25;
/** Health's default bound: 2 × interval. */
const MAX_STALENESS = 2 * INTERVAL;

/** A small seeded generator, so every run of the simulation is the same run. */
function seeded(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4_294_967_296;
  };
}

/** `first`, then `rest`'s draws. */
function firstDraw(first: number, rest: () => number): () => number {
  let drawn = false;
  return () => (drawn ? rest() : ((drawn = true), first));
}

describe('heartbeatDelay', () => {
  it('sends at once when nothing was sent or received', () => {
    expect(heartbeatDelay(10_000, undefined, undefined, 1_000)).toBe(0);
  });

  it('waits out the rest of the wanted gap after the latest activity', () => {
    expect(heartbeatDelay(10_000, 9_700, undefined, 1_000)).toBe(700);
    expect(heartbeatDelay(10_000, 5_000, 9_900, 1_000)).toBe(900);
  });

  it('treats a timestamp from the future (clock skew) as fresh', () => {
    expect(heartbeatDelay(10_000, 12_000, undefined, 1_000)).toBe(1_000);
  });
});

describe('heartbeatWait', () => {
  it('puts the incumbent first, every backup after a guard, and newcomers within jitter × interval', () => {
    expect(heartbeatWait('incumbent', 0.5, INTERVAL, JITTER)).toBe(INTERVAL);
    for (const draw of [0, 0.3, 0.9, 0.999999]) {
      const backup = heartbeatWait('backup', draw, INTERVAL, JITTER);
      expect(backup).toBeGreaterThanOrEqual(INTERVAL * (1 + 0.4 * JITTER));
      expect(backup).toBeLessThanOrEqual(INTERVAL * (1 + JITTER));
      const newcomer = heartbeatWait('newcomer', draw, INTERVAL, JITTER);
      expect(newcomer).toBeGreaterThanOrEqual(0);
      expect(newcomer).toBeLessThanOrEqual(INTERVAL * JITTER);
    }
  });

  it('spreads positions so that early ones are rare: P(x ≤ t) = 1000^(t − 1)', () => {
    const random = seeded(7);
    const xs = Array.from({ length: 100_000 }, () => spreadPosition(random()));
    const share = (t: number) => xs.filter((x) => x <= t).length / xs.length;
    expect(share(0.5)).toBeCloseTo(1000 ** -0.5, 2);
    expect(share(0.9)).toBeCloseTo(1000 ** -0.1, 1);
    expect(Math.min(...xs)).toBeGreaterThanOrEqual(0);
    expect(Math.max(...xs)).toBeLessThanOrEqual(1);
  });
});

describe('StaleSender', () => {
  const stale = new StaleSender(INTERVAL, MAX_STALENESS);

  it('takes over between halfway and 80 % of the way from one interval to maxStaleness', () => {
    expect(stale.takeoverAtMs(0)).toBe(INTERVAL + 0.5 * (MAX_STALENESS - INTERVAL));
    expect(stale.takeoverAtMs(1)).toBe(INTERVAL + 0.8 * (MAX_STALENESS - INTERVAL));
  });

  it('never takes over by staleness when health leaves no room beyond one interval', () => {
    expect(new StaleSender(INTERVAL, INTERVAL).takeoverAtMs(1)).toBe(Infinity);
    expect(new StaleSender(INTERVAL, INTERVAL).outpaces(Date.now() + 3_600_000, Date.now())).toBe(
      false,
    );
  });

  it('is outpaced only by a heartbeat stamped ahead of its arrival by more than half the room', () => {
    const at = 1_000_000;
    const half = 0.5 * (MAX_STALENESS - INTERVAL);
    expect(stale.outpaces(at + half + 1, at)).toBe(true);
    expect(stale.outpaces(at + half, at)).toBe(false);
    // Stamped behind its arrival (delivery delay, or a sender whose clock lags): never.
    expect(stale.outpaces(at - 3_600_000, at)).toBe(false);
  });
});

/**
 * Deliveries due on fake time, earliest first, behind one fake timer. Fake time finds its next
 * timer by scanning every pending one, so a timer per receiver per send (200 per heartbeat, and
 * thousands pending while deliveries run late) made the 200-instance runs quadratic: 83 s of CPU
 * for this file alone, 277 s in CI. Same order as a timer each: by due time, then by scheduling.
 */
class DeliveryQueue {
  private readonly heap: { at: number; seq: number; run: () => void }[] = [];
  private seq = 0;
  private timer: ReturnType<typeof setTimeout> | undefined;
  private timerAt = Infinity;

  /**
   * Runs `run` `delayMs` from now on fake time, in whole milliseconds as a fake timer's delay is
   * (truncated): what falls due in the same millisecond runs in one wake-up.
   */
  after(delayMs: number, run: () => void): void {
    this.push({ at: Date.now() + Math.trunc(delayMs), seq: this.seq++, run });
    this.arm();
  }

  private arm(): void {
    const next = this.heap[0];
    if (!next || next.at >= this.timerAt) return;
    clearTimeout(this.timer);
    this.timerAt = next.at;
    this.timer = setTimeout(() => this.fire(), next.at - Date.now());
  }

  private fire(): void {
    this.timer = undefined;
    this.timerAt = Infinity;
    while (this.heap[0] && this.heap[0].at <= Date.now()) this.pop().run();
    this.arm();
  }

  private before(a: number, b: number): boolean {
    const x = this.heap[a]!;
    const y = this.heap[b]!;
    return x.at < y.at || (x.at === y.at && x.seq < y.seq);
  }

  private swap(a: number, b: number): void {
    [this.heap[a], this.heap[b]] = [this.heap[b]!, this.heap[a]!];
  }

  private push(item: { at: number; seq: number; run: () => void }): void {
    this.heap.push(item);
    for (let i = this.heap.length - 1; i > 0;) {
      const parent = (i - 1) >> 1;
      if (!this.before(i, parent)) break;
      this.swap(i, parent);
      i = parent;
    }
  }

  private pop(): { run: () => void } {
    const top = this.heap[0]!;
    const last = this.heap.pop()!;
    if (this.heap.length > 0) {
      this.heap[0] = last;
      for (let i = 0; ;) {
        let least = i;
        for (const child of [2 * i + 1, 2 * i + 2])
          if (child < this.heap.length && this.before(child, least)) least = child;
        if (least === i) break;
        this.swap(i, least);
        i = least;
      }
    }
    return top;
  }
}

interface SimOptions {
  instances: number;
  durationMs: number;
  /** Propagation delay from a send to each receiver, drawn per receiver in [min, max] ms. */
  delayMs: [number, number];
  /** Start times, ms after the simulation begins (all at 0 by default). */
  startAt?: (i: number) => number;
  /** Stops instance `index` at `atMs`. */
  kill?: { index: number; atMs: number };
  seed?: number;
  /**
   * How far instance `i`'s clock is off (ms, negative = behind): its records are stamped with
   * it, and it clamps what it receives to its own clock, as the engine's dispatcher does.
   */
  clockOffsetMs?: (i: number) => number;
  /** Instance `i`'s own random draws instead of its seeded ones. */
  random?: (i: number) => (() => number) | undefined;
  /**
   * Each instance starts knowing the newest heartbeat already on the topic, as an engine does
   * (its reader hands it the log's last heartbeat before ready): counted as received, not heard.
   */
  readsLogAtStart?: boolean;
  /**
   * Each instance can ask the topic whether a heartbeat was sent after its start (as an engine
   * asks its broker with one ListOffsets, see NewestHeartbeat.sentSinceStart).
   */
  asksTopic?: boolean;
}

/**
 * A cluster of real BroadcastHeartbeat loops on fake time. A send reaches every running
 * instance (the sender included) after its own propagation delay; each instance's freshness
 * is the newest record timestamp it received, each clamped to its receive time in its own
 * clock, as the engine's is. Everything an instance's source reports is converted back to the
 * simulation's clock, since every loop reads that one (a wrong clock still ticks at the rate).
 */
async function simulate(o: SimOptions) {
  const random = seeded(o.seed ?? 1);
  const t0 = Date.now();
  const deliveries = new DeliveryQueue();
  const sends: { at: number; from: number }[] = [];
  /** The newest record timestamp on the topic (the sender's clock), for readsLogAtStart. */
  let logNewest: number | undefined;
  const nodes = Array.from({ length: o.instances }, (_, i) => ({
    offset: o.clockOffsetMs?.(i) ?? 0,
    newest: undefined as number | undefined,
    lastAt: undefined as number | undefined,
    lastStamp: undefined as number | undefined,
    /** Health's lastLatencyMs just before each receive (its peaks), after the first one. */
    staleness: [] as { at: number; ms: number }[],
    received: 0,
    receives: [] as number[],
    startedAt: undefined as number | undefined,
    stoppedAt: undefined as number | undefined,
    beat: undefined as BroadcastHeartbeat | undefined,
  }));
  const deliver = (i: number, stamp: number) => {
    const node = nodes[i]!;
    if (node.startedAt === undefined || node.stoppedAt !== undefined) return;
    if (node.newest !== undefined)
      node.staleness.push({ at: Date.now() - t0, ms: Date.now() - node.newest });
    // As the engine's dispatcher: the record's timestamp (the sender's clock), never ahead of
    // this instance's own now.
    const clamped = Math.min(stamp, Date.now() + node.offset) - node.offset;
    node.newest = Math.max(node.newest ?? -Infinity, clamped);
    node.lastStamp = stamp - node.offset;
    node.received++;
    node.lastAt = Date.now();
    node.receives.push(Date.now() - t0);
  };
  nodes.forEach((node, i) => {
    node.beat = new BroadcastHeartbeat(
      {
        intervalMs: INTERVAL,
        jitter: JITTER,
        maxStalenessMs: MAX_STALENESS,
        topic: 'hb',
        instanceId: `i${i}`,
      },
      {
        newestTimestamp: () => node.newest,
        heartbeatsReceived: () => node.received,
        lastHeartbeatAt: () => node.lastAt,
        lastHeartbeatTimestamp: () => node.lastStamp,
        groupId: () => `g-${i}`,
        ...(o.asksTopic && {
          sentSinceStart: async () => sends.some((s) => s.at >= (node.startedAt ?? Infinity)),
        }),
      },
      async (_topic: string, _payload: HeartbeatPayload) => {
        sends.push({ at: Date.now() - t0, from: i });
        const [min, max] = o.delayMs;
        // The record's timestamp: the sender's clock.
        const stamp = Date.now() + node.offset;
        logNewest = Math.max(logNewest ?? -Infinity, stamp);
        for (let r = 0; r < nodes.length; r++)
          deliveries.after(min + random() * (max - min), () => deliver(r, stamp));
        await new Promise((resolve) => setTimeout(resolve, min));
      },
      silent,
      o.random?.(i) ?? seeded(1_000 + i + (o.seed ?? 1) * 7_919),
    );
    setTimeout(
      () => {
        node.startedAt = Date.now() - t0;
        if (o.readsLogAtStart && logNewest !== undefined) {
          node.newest = Math.min(logNewest, Date.now() + node.offset) - node.offset;
          node.received++;
        }
        node.beat!.start();
      },
      o.startAt?.(i) ?? 0,
    );
  });
  if (o.kill) {
    const victim = nodes[o.kill.index]!;
    setTimeout(() => {
      victim.stoppedAt = Date.now() - t0;
      void victim.beat!.stop();
    }, o.kill.atMs);
  }
  await vi.advanceTimersByTimeAsync(o.durationMs);
  for (const n of nodes)
    if (n.stoppedAt === undefined && n.newest !== undefined)
      n.staleness.push({ at: o.durationMs, ms: Date.now() - n.newest });
  await Promise.all(nodes.map((n) => n.beat!.stop()));

  /** Heartbeats put on the topic in [fromMs, toMs). */
  const sentBetween = (fromMs: number, toMs: number) =>
    sends.filter((s) => s.at >= fromMs && s.at < toMs).length;
  /** Per running instance: the longest it went without receiving anything, after its first receive. */
  const longestSilence = nodes.map((n) => {
    const end = n.stoppedAt ?? o.durationMs;
    const times = [...n.receives, end];
    let longest = 0;
    for (let k = 1; k < times.length; k++) longest = Math.max(longest, times[k]! - times[k - 1]!);
    return longest;
  });
  const firstReceiveAfterStart = nodes.map((n) =>
    n.receives.length === 0 ? Infinity : n.receives[0]! - n.startedAt!,
  );
  /** Per instance: the highest lastLatencyMs (health's measure) it had from `fromMs` on. */
  const maxStaleness = (fromMs: number) =>
    nodes.map((n) => Math.max(0, ...n.staleness.filter((s) => s.at >= fromMs).map((s) => s.ms)));
  return { sends, sentBetween, longestSilence, firstReceiveAfterStart, maxStaleness };
}

describe(
  'BroadcastHeartbeat across a simulated cluster with propagation delay',
  { timeout: 300_000 },
  () => {
    beforeEach(() => vi.useFakeTimers());
    afterEach(() => vi.useRealTimers());

    // Fake time is cheap, but every backup's wake-up is a timer: 200 of them polling make it slow.
    const INTERVALS = 12;
    /** Intervals a cluster with slow, widely varying delivery is given to settle on one sender. */
    const SETTLE_INTERVALS = 3;

    for (const instances of [10, 50, 200]) {
      it(`${instances} idle instances started together: about one heartbeat per interval, all fresh`, async () => {
        const sim = await simulate({
          instances,
          durationMs: INTERVALS * INTERVAL,
          delayMs: [2, 50],
          seed: instances,
        });
        // A fresh fleet does not send N at once: the first interval holds a few, not N.
        const first = sim.sentBetween(0, INTERVAL);
        expect(first).toBeGreaterThanOrEqual(1);
        expect(first).toBeLessThanOrEqual(3);
        // Steady state: at most 1.5 per interval for the whole cluster, and at least one per
        // (1 + jitter) intervals, which is what keeps everyone fresh.
        const steady = sim.sentBetween(INTERVAL, INTERVALS * INTERVAL);
        console.log(
          `[heartbeat sim] N=${instances}: ${first} in the first interval, ` +
            `${(steady / (INTERVALS - 1)).toFixed(2)} per interval after`,
        );
        expect(steady).toBeLessThanOrEqual(1.5 * (INTERVALS - 1));
        expect(steady).toBeGreaterThanOrEqual((INTERVALS - 1) / (1 + JITTER) - 1);
        // Health stays up everywhere: something arrives within jitter × interval of a start, and
        // no instance ever goes maxStaleness without receiving anything.
        for (const first of sim.firstReceiveAfterStart)
          expect(first).toBeLessThanOrEqual(INTERVAL * JITTER + 50);
        for (const silence of sim.longestSilence) expect(silence).toBeLessThan(MAX_STALENESS);
      });
    }

    it('200 instances: the incumbent dies in the middle of a steady run, a backup takes over', async () => {
      const sim = await simulate({
        instances: 200,
        durationMs: INTERVALS * INTERVAL,
        delayMs: [2, 50],
        seed: 5,
      });
      const incumbent = sim.sends.filter((s) => s.at < 6 * INTERVAL).at(-1)!.from;
      const again = await simulate({
        instances: 200,
        durationMs: INTERVALS * INTERVAL,
        delayMs: [2, 50],
        seed: 5,
        kill: { index: incumbent, atMs: 6 * INTERVAL + INTERVAL / 2 },
      });
      const after = again.sends.filter((s) => s.at > 6 * INTERVAL + INTERVAL / 2);
      expect(after.length).toBeGreaterThan(0);
      expect(after.every((s) => s.from !== incumbent)).toBe(true);
      expect(again.sentBetween(INTERVAL, INTERVALS * INTERVAL)).toBeLessThanOrEqual(
        1.5 * (INTERVALS - 1),
      );
      for (const silence of again.longestSilence) expect(silence).toBeLessThan(MAX_STALENESS);
    });

    it('200 instances with a slow propagation (1.0–1.5 s, more than the guard): still at most 1.5 per interval', async () => {
      const sim = await simulate({
        instances: 200,
        durationMs: INTERVALS * INTERVAL,
        delayMs: [1_000, 1_500],
        seed: 13,
      });
      const steady = sim.sentBetween(INTERVAL, INTERVALS * INTERVAL);
      console.log(
        `[heartbeat sim] N=200, slow: ${(steady / (INTERVALS - 1)).toFixed(2)} per interval`,
      );
      expect(steady).toBeLessThanOrEqual(1.5 * (INTERVALS - 1));
      for (const silence of sim.longestSilence) expect(silence).toBeLessThan(MAX_STALENESS);
    });

    for (const instances of [10, 50, 200])
      it(`${instances} instances on loaded hosts (each delivery 0.05–2.5 s late, twice the guard): at most 1.5 per interval once settled`, async () => {
        // A busy event loop delays timers and socket reads alike: what one instance hears from
        // the incumbent varies by far more than the backups' fixed guard of 0.4 × jitter × interval.
        const sim = await simulate({
          instances,
          durationMs: INTERVALS * INTERVAL,
          delayMs: [50, 2_500],
          seed: 17 + instances,
        });
        // Newcomers that cannot hear each other for 2.5 s collide at first; still far fewer than N.
        const settling = sim.sentBetween(0, SETTLE_INTERVALS * INTERVAL);
        const steady = sim.sentBetween(SETTLE_INTERVALS * INTERVAL, INTERVALS * INTERVAL);
        const steadyIntervals = INTERVALS - SETTLE_INTERVALS;
        console.log(
          `[heartbeat sim] N=${instances}, loaded: ${settling} in the first ${SETTLE_INTERVALS} intervals, ` +
            `${(steady / steadyIntervals).toFixed(2)} per interval after`,
        );
        expect(settling).toBeLessThan(instances / 2 + 10);
        expect(steady).toBeLessThanOrEqual(1.5 * steadyIntervals);
        for (const silence of sim.longestSilence) expect(silence).toBeLessThan(MAX_STALENESS);
      });

    it('200 instances starting one after another over 30 s send far fewer than 200 heartbeats', async () => {
      const sim = await simulate({
        instances: 200,
        durationMs: 8 * INTERVAL,
        delayMs: [2, 50],
        seed: 11,
        startAt: (i) => i * 150,
      });
      const during = sim.sentBetween(0, 30_000 + INTERVAL);
      console.log(
        `[heartbeat sim] N=200 staggered over 30 s: ${during} heartbeats until 10 s after the last start`,
      );
      expect(during).toBeLessThan(200 / 4);
      expect(sim.sentBetween(30_000 + INTERVAL, 8 * INTERVAL)).toBeLessThanOrEqual(1.5 * (8 - 4));
      for (const silence of sim.longestSilence) expect(silence).toBeLessThan(MAX_STALENESS);
    });

    // A fleet whose starts spread over more than a newcomer's window (jitter × interval): each
    // starts knowing a heartbeat younger than one interval, so its sender is alive. A newcomer
    // that waited only its own window sent once per start (54 of 200 in a fleet bench run).
    it("200 instances starting over 1.5 intervals, each knowing the log's newest heartbeat: about one per interval", async () => {
      const sim = await simulate({
        instances: 200,
        durationMs: 6 * INTERVAL,
        delayMs: [2, 50],
        seed: 13,
        startAt: (i) => (i * 1.5 * INTERVAL) / 200,
        readsLogAtStart: true,
      });
      const during = sim.sentBetween(0, 2 * INTERVAL);
      console.log(
        `[heartbeat sim] N=200 over 1.5 intervals, knowing the log: ${during} heartbeats in the first 2 intervals`,
      );
      expect(during).toBeLessThanOrEqual(4);
      expect(sim.sentBetween(2 * INTERVAL, 6 * INTERVAL)).toBeLessThanOrEqual(1.5 * 4);
      for (const silence of sim.longestSilence) expect(silence).toBeLessThan(MAX_STALENESS);
    });

    // Where records take longer to arrive than a newcomer's window (jitter × interval), every
    // newcomer of a fleet starting together sent one (a fleet of 200 on a 2-core host: 54 to 107
    // heartbeats in its 4-8 s start, each received 0.2-1.3 s after it was sent). A newcomer asks
    // the topic before its first send and waits for a heartbeat already there.
    it("200 instances starting over 1.5 intervals, deliveries later than a newcomer's window: asking the topic first, few heartbeats", async () => {
      const run = (asksTopic: boolean) =>
        simulate({
          instances: 200,
          durationMs: 6 * INTERVAL,
          delayMs: [0.2 * INTERVAL, 1.2 * INTERVAL * JITTER],
          seed: 17,
          startAt: (i) => (i * 1.5 * INTERVAL) / 200,
          asksTopic,
        });
      const without = (await run(false)).sentBetween(0, 2 * INTERVAL);
      const sim = await run(true);
      const during = sim.sentBetween(0, 2 * INTERVAL);
      console.log(
        `[heartbeat sim] N=200 over 1.5 intervals, late deliveries: ${without} heartbeats in the first 2 intervals without asking the topic, ${during} asking it`,
      );
      // The first few newcomers fire before any heartbeat exists; later ones find one there.
      expect(without).toBeGreaterThan(40);
      expect(during).toBeLessThanOrEqual(10);
      expect(sim.sentBetween(2 * INTERVAL, 6 * INTERVAL)).toBeLessThanOrEqual(1.5 * 4);
      for (const silence of sim.longestSilence) expect(silence).toBeLessThan(MAX_STALENESS);
    });

    // Issue #23 (d): a sender whose clock lags makes its records look older than they are to
    // everyone else (freshness is the record timestamp clamped to arrival), while they keep
    // arriving on time. By more than maxStaleness − interval, that is health down fleet-wide.
    for (const lagMs of [1.5 * (MAX_STALENESS - INTERVAL), 3_600_000])
      it(`10 instances, the incumbent's clock ${lagMs} ms behind: another takes over, the laggard yields, all stay fresh`, async () => {
        const sim = await simulate({
          instances: 10,
          durationMs: INTERVALS * INTERVAL,
          delayMs: [2, 50],
          seed: 23,
          clockOffsetMs: (i) => (i === 0 ? -lagMs : 0),
          // The laggard's first draw is the earliest possible: it heartbeats first, so the
          // others hear it before their own newcomer timers and it is the incumbent.
          random: (i) => (i === 0 ? firstDraw(0.999_999, seeded(23)) : undefined),
        });
        const fromMs = SETTLE_INTERVALS * INTERVAL;
        const stale = sim.maxStaleness(fromMs);
        const steady = sim.sentBetween(fromMs, INTERVALS * INTERVAL);
        const byLaggard = sim.sends.filter((s) => s.from === 0 && s.at >= fromMs).length;
        console.log(
          `[heartbeat sim] laggard ${lagMs} ms: max lastLatencyMs per instance ${stale.join('/')}; ` +
            `${(steady / (INTERVALS - SETTLE_INTERVALS)).toFixed(2)} per interval, ${byLaggard} by the laggard`,
        );
        expect(sim.sends[0]!.from).toBe(0);
        for (const ms of stale) expect(ms).toBeLessThanOrEqual(MAX_STALENESS);
        expect(steady).toBeLessThanOrEqual(1.5 * (INTERVALS - SETTLE_INTERVALS));
        expect(byLaggard).toBe(0);
      });

    it("10 instances, one backup's clock 1.5 × (maxStaleness − interval) ahead: it takes over and stays fresh too", async () => {
      const leadMs = 1.5 * (MAX_STALENESS - INTERVAL);
      const sim = await simulate({
        instances: 10,
        durationMs: INTERVALS * INTERVAL,
        delayMs: [2, 50],
        seed: 29,
        clockOffsetMs: (i) => (i === 3 ? leadMs : 0),
        // Instance 0 (a true clock) heartbeats first and is the incumbent.
        random: (i) => (i === 0 ? firstDraw(0.999_999, seeded(29)) : undefined),
      });
      const fromMs = SETTLE_INTERVALS * INTERVAL;
      const stale = sim.maxStaleness(fromMs);
      const steady = sim.sentBetween(fromMs, INTERVALS * INTERVAL);
      console.log(
        `[heartbeat sim] one clock ${leadMs} ms ahead: max lastLatencyMs per instance ${stale.join('/')}; ` +
          `${(steady / (INTERVALS - SETTLE_INTERVALS)).toFixed(2)} per interval`,
      );
      expect(sim.sends[0]!.from).toBe(0);
      for (const ms of stale) expect(ms).toBeLessThanOrEqual(MAX_STALENESS);
      expect(steady).toBeLessThanOrEqual(1.5 * (INTERVALS - SETTLE_INTERVALS));
      expect(sim.sends.filter((s) => s.at >= fromMs).every((s) => s.from === 3)).toBe(true);
    });

    it('50 instances with clocks spread over ± (maxStaleness − interval) / 4: still about one heartbeat per interval, all fresh', async () => {
      const spread = seeded(31);
      const offsets = Array.from(
        { length: 50 },
        () => (spread() - 0.5) * 0.5 * (MAX_STALENESS - INTERVAL),
      );
      const sim = await simulate({
        instances: 50,
        durationMs: INTERVALS * INTERVAL,
        delayMs: [2, 50],
        seed: 31,
        clockOffsetMs: (i) => offsets[i]!,
      });
      const steady = sim.sentBetween(INTERVAL, INTERVALS * INTERVAL);
      console.log(
        `[heartbeat sim] N=50, skewed clocks: ${(steady / (INTERVALS - 1)).toFixed(2)} per interval`,
      );
      expect(steady).toBeLessThanOrEqual(1.5 * (INTERVALS - 1));
      for (const ms of sim.maxStaleness(INTERVAL)) expect(ms).toBeLessThanOrEqual(MAX_STALENESS);
    });

    it('sends nothing while other traffic keeps arriving', async () => {
      let newest: number | undefined = Date.now();
      const keepAlive = setInterval(() => (newest = Date.now()), 20);
      const sent: HeartbeatPayload[] = [];
      const beat = new BroadcastHeartbeat(
        { intervalMs: 1_000, jitter: 0.25, maxStalenessMs: 2_000, topic: 'hb', instanceId: 'x' },
        {
          newestTimestamp: () => newest,
          heartbeatsReceived: () => 0,
          lastHeartbeatAt: () => undefined,
          lastHeartbeatTimestamp: () => undefined,
          groupId: () => 'g',
        },
        async (_t, p) => void sent.push(p),
        silent,
        () => 0.5,
      );
      beat.start();
      await vi.advanceTimersByTimeAsync(10_000);
      clearInterval(keepAlive);
      await beat.stop();
      expect(sent).toEqual([]);
    });

    it('carries the group id and the instance id', async () => {
      const sent: HeartbeatPayload[] = [];
      const beat = new BroadcastHeartbeat(
        { intervalMs: 1_000, jitter: 0.25, maxStalenessMs: 2_000, topic: 'hb', instanceId: 'i0' },
        {
          newestTimestamp: () => undefined,
          heartbeatsReceived: () => 0,
          lastHeartbeatAt: () => undefined,
          lastHeartbeatTimestamp: () => undefined,
          groupId: () => 'g-0',
        },
        async (_t, p) => void sent.push(p),
        silent,
      );
      beat.start();
      await vi.advanceTimersByTimeAsync(1_000);
      await beat.stop();
      expect(sent[0]).toMatchObject({ groupId: 'g-0', instanceId: 'i0' });
    });

    it('stop() returns at once while a send is still in flight (it does not wait out its retries)', async () => {
      const beat = new BroadcastHeartbeat(
        { intervalMs: 1_000, jitter: 0, maxStalenessMs: 2_000, topic: 'hb', instanceId: 'x' },
        {
          newestTimestamp: () => undefined,
          heartbeatsReceived: () => 0,
          lastHeartbeatAt: () => undefined,
          lastHeartbeatTimestamp: () => undefined,
          groupId: () => 'g',
        },
        // A producer stuck in its retries: the send settles long after anyone wants to stop.
        () =>
          new Promise<void>((_, reject) => setTimeout(() => reject(new Error('gave up')), 60_000)),
        silent,
      );
      beat.start();
      await vi.advanceTimersByTimeAsync(0);
      let stopped = false;
      void beat.stop().then(() => (stopped = true));
      await vi.advanceTimersByTimeAsync(0);
      expect(stopped).toBe(true);
      expect(beat.sent).toBe(0);
      // The abandoned send still settles later without an unhandled rejection.
      await vi.advanceTimersByTimeAsync(60_000);
    });

    describe('a newcomer asks the topic before its first send', () => {
      const quiet = {
        newestTimestamp: () => undefined,
        heartbeatsReceived: () => 0,
        lastHeartbeatAt: () => undefined,
        lastHeartbeatTimestamp: () => undefined,
        groupId: () => 'g',
      };
      const settings = {
        intervalMs: 1_000,
        jitter: 0.25,
        maxStalenessMs: 2_000,
        topic: 'hb',
        instanceId: 'x',
      };

      /** A newcomer whose ask answers `sentSinceStart`; its sends, in ms after it started. */
      function newcomer(sentSinceStart: () => Promise<boolean>, jitter = settings.jitter) {
        const sentAt: number[] = [];
        const t0 = Date.now();
        const beat = new BroadcastHeartbeat(
          { ...settings, jitter },
          { ...quiet, sentSinceStart },
          async () => void sentAt.push(Date.now() - t0),
          silent,
          () => 0.5,
        );
        beat.start();
        return { beat, sentAt };
      }
      const neverAnswered = () => new Promise<boolean>(() => undefined);

      it('told of a heartbeat since its start, it sends nothing in its window and waits as a backup', async () => {
        let asked = 0;
        const { beat, sentAt } = newcomer(async () => (asked++, true));
        // Its newcomer window ends at 250 × spreadPosition(0.5) ≈ 225 ms; a backup's wait at
        // 1,000 × (1 + 0.25 × (0.4 + 0.6 × 0.9)) ≈ 1,235 ms.
        await vi.advanceTimersByTimeAsync(1_200);
        expect(asked).toBe(1);
        expect(sentAt).toEqual([]);
        await vi.advanceTimersByTimeAsync(100);
        expect(sentAt).toHaveLength(1);
        expect(asked).toBe(1);
        await beat.stop();
      });

      it('told of none, it sends at the end of its window', async () => {
        const { beat, sentAt } = newcomer(async () => false);
        await vi.advanceTimersByTimeAsync(300);
        expect(sentAt).toHaveLength(1);
        expect(sentAt[0]).toBeLessThan(300);
        await beat.stop();
      });

      it('with no answer within 2 s (a broker away), it sends anyway', async () => {
        const { beat, sentAt } = newcomer(neverAnswered, 0);
        await vi.advanceTimersByTimeAsync(1_999);
        expect(sentAt).toEqual([]);
        await vi.advanceTimersByTimeAsync(1);
        expect(sentAt).toEqual([2_000]);
        await beat.stop();
      });

      it('stop() during the ask returns at once and leaves no timer', async () => {
        const { beat } = newcomer(neverAnswered, 0);
        await vi.advanceTimersByTimeAsync(10);
        let stopped = false;
        void beat.stop().then(() => (stopped = true));
        await vi.advanceTimersByTimeAsync(0);
        expect(stopped).toBe(true);
        expect(beat.sent).toBe(0);
        expect(vi.getTimerCount()).toBe(0);
      });
    });
  },
);

describe('BroadcastHeartbeat.kafkaUnansweredMs (what readiness tells a Kafka outage by)', () => {
  it('counts from the first send Kafka has not acknowledged, until one is acknowledged', async () => {
    let received = 0;
    const answers: { resolve: () => void; reject: (e: Error) => void }[] = [];
    const heartbeat = new BroadcastHeartbeat(
      // An interval far longer than this test's reactions: with 50 ms, a loaded machine (load 14, CI
      // on 2026-12-07) resolved the second send after its successor was due, which went out at
      // once, and the acknowledged state between the two was never seen (999 ms unanswered).
      { intervalMs: 2_000, jitter: 0.25, topic: 't', instanceId: 'i', maxStalenessMs: 4_000 },
      {
        newestTimestamp: () => undefined,
        heartbeatsReceived: () => received,
        lastHeartbeatAt: () => undefined,
        lastHeartbeatTimestamp: () => undefined,
        groupId: () => 'g',
      },
      () => new Promise<void>((resolve, reject) => answers.push({ resolve, reject })),
      silent,
      // After a collision, this one steps down (a backup waits before it sends again).
      () => 0.99,
    );
    expect(heartbeat.kafkaUnansweredMs()).toBeUndefined();
    heartbeat.start();
    await vi.waitFor(() => expect(answers).toHaveLength(1), { timeout: 10_000 });
    const sentAt = (now: number) => now - heartbeat.kafkaUnansweredMs(now)!;
    const firstSentAt = sentAt(Date.now());
    answers[0]!.reject(new Error('connection refused'));
    await vi.waitFor(() => expect(answers).toHaveLength(2), { timeout: 10_000, interval: 1 });
    // A run of failed sends counts from the first of them.
    expect(sentAt(Date.now() + 5_000)).toBe(firstSentAt);
    answers[1]!.resolve();
    // Until the next send, one interval later.
    await vi.waitFor(() => expect(heartbeat.kafkaUnansweredMs()).toBeUndefined(), {
      interval: 1,
    });
    await vi.waitFor(() => expect(answers).toHaveLength(3), { timeout: 10_000 });
    answers[2]!.reject(new Error('connection refused'));
    // Others' heartbeats delivered here say Kafka answers, though this one (a backup now)
    // sends nothing for a while.
    received += 2;
    await vi.waitFor(() => expect(heartbeat.kafkaUnansweredMs()).toBeUndefined(), {
      interval: 1,
    });
    await heartbeat.stop();
  });
});
