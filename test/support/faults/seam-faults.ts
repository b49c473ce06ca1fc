// The seeded faults of the seam trials: a small PRNG (a failing trial replays from its seed), and
// "moments": which Kafka frame the proxy breaks (api key, direction, occurrence) and how.
import type { FaultAction, FrameInfo, TcpProxy } from '../broker/tcp-proxy.js';

/** mulberry32: a small seeded PRNG, so a failing trial can be replayed from its seed. */
export function seededRandom(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** FNV-1a of a name, to mix a moment's name into a seed. */
export function hashName(name: string): number {
  let h = 2166136261;
  for (const c of name) h = Math.imul(h ^ c.charCodeAt(0), 16777619);
  return h >>> 0;
}

export function pick<T>(rnd: () => number, items: readonly T[]): T {
  return items[Math.floor(rnd() * items.length)]!;
}

export interface ArmedFault {
  describe: string;
  fired: () => boolean;
}

/**
 * A moment at the Kafka seam: frames of `apiKeys` in `direction`; each trial picks (seeded) the
 * occurrence (1..maxNth) and one of `actions`. `withRecords` counts only Fetch responses that
 * carry records (the proxy reads every client's Fetch version), and a mid-frame reset of one
 * then cuts inside its records.
 */
export function frameMoment(
  direction: FrameInfo['direction'],
  apiKeys: readonly number[],
  actions: readonly ((frame: FrameInfo | undefined, rnd: () => number) => FaultAction)[],
  { maxNth = 2, withRecords = false } = {},
) {
  return (proxy: TcpProxy, rnd: () => number): ArmedFault => {
    const nth = 1 + Math.floor(rnd() * maxNth);
    const make = pick(rnd, actions);
    const probe = make(undefined, rnd);
    let seen = 0;
    let fired = false;
    let applied: FaultAction | undefined;
    proxy.onFrame = (frame) => {
      if (fired || frame.direction !== direction || !apiKeys.includes(frame.apiKey))
        return undefined;
      if ((withRecords && !frame.recordBytes) || ++seen < nth) return undefined;
      fired = true;
      applied =
        probe.kind === 'reset' && probe.afterBytes === -1
          ? { kind: 'reset', afterBytes: midFrame(frame) }
          : probe;
      return applied;
    };
    return {
      get describe() {
        return `${direction} api ${apiKeys.join('/')} #${nth}: ${JSON.stringify(applied ?? probe)}`;
      },
      fired: () => fired,
    };
  };
}

/** Half of a frame; for one that carries records, half-way through its first record set. */
function midFrame(frame: FrameInfo): number {
  return frame.recordsAt !== undefined && frame.recordBytes
    ? frame.recordsAt + Math.floor(frame.recordBytes / 2)
    : Math.floor(frame.bytes / 2);
}

/** Actions a moment can pick from. `afterBytes: -1` means "half of the frame". */
export const Faults = {
  reset: () => ({ kind: 'reset' }) as FaultAction,
  resetAfterFrame: () => ({ kind: 'reset', afterBytes: Number.MAX_SAFE_INTEGER }) as FaultAction,
  resetMidFrame: () => ({ kind: 'reset', afterBytes: -1 }) as FaultAction,
  drop: () => ({ kind: 'drop' }) as FaultAction,
  stall: (_f: FrameInfo | undefined, rnd: () => number) =>
    ({ kind: 'stall', ms: 500 + Math.floor(rnd() * 3_000) }) as FaultAction,
};
