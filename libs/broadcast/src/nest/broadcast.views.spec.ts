// The engine's parts a Nest app can inject (BroadcastReader, BroadcastGroupAllocator,
// BroadcastHeartbeat) are read-only views: no start(), stop() or setter, no way to the part behind
// them, and what they show follows the engine the module starts and stops.
import { Test } from '@nestjs/testing';
import { BroadcastModule } from './broadcast.module.js';
import { BroadcastTestingHelper } from './testing/broadcast-testing.helper.js';
import { BroadcastTestingModule } from './testing/broadcast-testing.module.js';
import { BroadcastEngine } from '../views/broadcast-engine.view.js';
import { BroadcastGroupAllocator } from '../views/broadcast-group-allocator.view.js';
import { BroadcastHeartbeat } from '../views/broadcast-heartbeat.view.js';
import { BroadcastReader } from '../views/broadcast-reader.view.js';
import { BroadcastRoster } from '../views/broadcast-roster.view.js';

const quiet = { log: () => undefined, warn: () => undefined, error: () => undefined };

/** Every member a view answers to, through its whole prototype chain (Object's own left out). */
function membersOf(view: object): string[] {
  const names = new Set<string>(Object.getOwnPropertyNames(view));
  for (
    let p = Object.getPrototypeOf(view);
    p && p !== Object.prototype;
    p = Object.getPrototypeOf(p)
  )
    for (const name of Object.getOwnPropertyNames(p)) if (name !== 'constructor') names.add(name);
  return [...names].sort();
}

const VIEWS = [
  [BroadcastReader, ['groupId', 'status', 'whenReady']],
  [BroadcastGroupAllocator, ['base', 'exhausted', 'exhaustions', 'groupName']],
  [BroadcastHeartbeat, ['enabled', 'fresh', 'lastLatencyMs', 'role', 'sent']],
  [BroadcastRoster, ['instances', 'lastRefreshAt', 'on', 'recent', 'refresh', 'supported']],
] as const;

/** Runs `check` with the clock held still (Date only; timers keep running). */
function atOneInstant(check: () => void): void {
  vi.useFakeTimers({ toFake: ['Date'], now: Date.now() });
  try {
    check();
  } finally {
    vi.useRealTimers();
  }
}

describe('the injectable parts of BroadcastModule are views', () => {
  const views = VIEWS.map(([token, reads]) => ({ name: token.name, token, reads }));
  it.each(views)(
    '$name answers only its reads: no start, stop or setter',
    async ({ token, reads }) => {
      // Built, never started: no broker is needed to resolve the providers.
      const app = await Test.createTestingModule({
        imports: [BroadcastModule.forRoot({ kafka: { brokers: ['kafka.invalid:9092'] } })],
      }).compile();
      const view = app.get<object>(token);
      expect(view).toBeInstanceOf(token);
      expect(membersOf(view)).toEqual([...reads].sort());
      // Nothing of the engine's part is reachable: no own field, and the object is frozen.
      expect(Object.getOwnPropertyNames(view)).toEqual([]);
      expect(Object.isFrozen(view)).toBe(true);
      for (const name of reads) {
        expect(() => Object.assign(view, { [name]: 1 })).toThrow(TypeError);
      }
      await app.close();
    },
  );

  it('show what the engine does, and calling every read leaves it running', async () => {
    const app = await Test.createTestingModule({
      imports: [BroadcastTestingModule.forRoot({ heartbeat: { intervalMs: 50 } })],
    }).compile();
    app.useLogger(quiet);
    await app.init();
    const engine = app.get(BroadcastEngine);
    const reader = app.get(BroadcastReader);
    const allocator = app.get(BroadcastGroupAllocator);
    const heartbeat = app.get(BroadcastHeartbeat);

    await reader.whenReady();
    // lastLatencyMs is measured against the clock: both reads at one instant.
    atOneInstant(() => expect(reader.status()).toEqual(engine.reader.status()));
    expect(reader.status().state).toBe('ready');
    expect(reader.groupId).toBe(engine.reader.groupId);
    expect(reader.groupId).toBe(allocator.groupName(Number(reader.groupId!.split('-').pop())));
    expect(reader.groupId!.startsWith(allocator.base)).toBe(true);
    expect([allocator.exhausted, allocator.exhaustions]).toEqual([false, 0]);
    expect(heartbeat.enabled).toBe(true);
    await vi.waitFor(() => expect(heartbeat.sent).toBeGreaterThan(0), { timeout: 5_000 });
    await vi.waitFor(() => expect(heartbeat.role()).toBe('incumbent'), { timeout: 5_000 });
    atOneInstant(() => expect(heartbeat.lastLatencyMs).toBe(reader.status().lastLatencyMs));
    expect(heartbeat.fresh).toBe(true);

    const roster = app.get(BroadcastRoster);
    expect(roster.supported).toBe(engine.roster.supported);
    const live = await roster.refresh();
    expect(live.map((i) => i.groupId)).toEqual([reader.groupId]);
    expect(roster.instances()).toEqual(engine.roster.instances());
    expect(roster.lastRefreshAt).toBe(engine.roster.lastRefreshAt);

    // An app can call whatever the views have: the engine keeps reading.
    const calls: Record<string, unknown[]> = { groupName: [0], on: ['join', () => undefined] };
    for (const [token] of VIEWS) {
      const view = app.get<Record<string, unknown>>(token);
      for (const name of membersOf(view)) {
        const member = view[name];
        if (typeof member === 'function') await member.apply(view, calls[name] ?? [0]);
      }
    }
    await app.get(BroadcastTestingHelper).publish('views.still-reading', { n: 1 });
    expect(reader.status()).toMatchObject({ state: 'ready', received: expect.any(Number) });

    // The module stops the engine; the views show it.
    await app.close();
    expect(reader.status().state).toBe('stopped');
    expect(engine.reader.status().state).toBe('stopped');
  });
});
