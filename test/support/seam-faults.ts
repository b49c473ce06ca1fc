// The seeded faults of the seam trials: a small PRNG (a failing trial replays from its seed), and
// "moments": which Kafka frame the proxy breaks (api key, direction, occurrence) and how.
import type { FaultAction, FrameInfo, TcpProxy } from './tcp-proxy.js';

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
 * occurrence (1..maxNth) and one of `actions`.
 */
export function frameMoment(
  direction: FrameInfo['direction'],
  apiKeys: readonly number[],
  actions: readonly ((frame: FrameInfo | undefined, rnd: () => number) => FaultAction)[],
  { maxNth = 2, minBytes = 0 } = {},
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
      if (frame.bytes < minBytes || ++seen < nth) return undefined;
      fired = true;
      applied =
        probe.kind === 'reset' && probe.afterBytes === -1
          ? { kind: 'reset', afterBytes: Math.floor(frame.bytes / 2) }
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

/** Actions a moment can pick from. `afterBytes: -1` means "half of the frame". */
export const Faults = {
  reset: () => ({ kind: 'reset' }) as FaultAction,
  resetAfterFrame: () => ({ kind: 'reset', afterBytes: Number.MAX_SAFE_INTEGER }) as FaultAction,
  resetMidFrame: () => ({ kind: 'reset', afterBytes: -1 }) as FaultAction,
  drop: () => ({ kind: 'drop' }) as FaultAction,
  stall: (_f: FrameInfo | undefined, rnd: () => number) =>
    ({ kind: 'stall', ms: 500 + Math.floor(rnd() * 3_000) }) as FaultAction,
};
