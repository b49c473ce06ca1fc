// The reader, membership, allocator and dispatcher together over the in-memory broker's manual
// mode and in-memory locks, for the unit specs of the reader's state machine
// (libs/broadcast/src/core/reading/*.spec.ts). Spec support: neither built nor shipped.
import { BroadcastGroupAllocator } from '../src/core/allocation/broadcast-group.allocator.js';
import { BroadcastHandlerRegistry } from '../src/core/dispatch/broadcast-handler.registry.js';
import { BroadcastDispatcher } from '../src/core/dispatch/broadcast.dispatcher.js';
import { BroadcastReader } from '../src/core/reading/broadcast.reader.js';
import { ReadPositions } from '../src/core/positions/read-positions.js';
import type { LockMode } from '../src/interfaces/advisory-lock.interface.js';
import type { BroadcastLogger } from '../src/interfaces/broadcast-logger.interface.js';
import type { TopicOffsets } from '../src/interfaces/kafka-port.interface.js';
import { InMemoryManualPort } from '../src/testing/in-memory-manual-control.js';
import { InMemoryLocks } from './in-memory-locks.js';

/** The broadcast topic (two partitions, high watermarks 10 and 20) and the heartbeat topic (5). */
export const T = 'p.t';
export const HB = 'p.hb';

export interface FakeReaderOptions {
  mode?: LockMode;
  probe?: (step: string) => void;
  joinTimeoutMs?: number;
  contestGraceMs?: number;
  startupTimeoutMs?: number;
  /** The start snapshot (the replay window's hook); default: the high watermarks. */
  startOffsets?: (topics: readonly string[]) => Promise<TopicOffsets>;
}

export function fakeReader(options: FakeReaderOptions = {}) {
  const kafka = new InMemoryManualPort();
  kafka.addTopic(T, ['10', '20']);
  kafka.addTopic(HB, ['5']);
  const locks = new InMemoryLocks(options.mode ?? 'postgres');
  const logs: string[] = [];
  const logger: BroadcastLogger = {
    log: (m) => logs.push(m),
    warn: (m) => logs.push(m),
    error: (m) => logs.push(m),
  };
  const received: unknown[] = [];
  const registry = new BroadcastHandlerRegistry();
  registry.add('t', (payload) => void received.push(payload));
  const positions = new ReadPositions();
  const dispatcher = new BroadcastDispatcher(
    registry,
    { topicPrefix: 'p.', heartbeatTopic: 'hb', handlerTimeoutMs: 1_000 },
    logger,
    positions,
  );
  const probe = (step: string) => options.probe?.(step);
  kafka.onStep = probe;
  const allocator = new BroadcastGroupAllocator(
    { topicPrefix: 'p.', lockedBase: 'bc', lockFreeBase: 'bc', maxGroups: 4 },
    locks,
    kafka.admin,
    logger,
    probe,
  );
  const reader = new BroadcastReader(
    {
      topicPrefix: 'p.',
      heartbeatTopic: 'hb',
      startupTimeoutMs: options.startupTimeoutMs ?? 3_000,
      failOnStartupTimeout: true,
      lockCheckIntervalMs: 10,
      joinTimeoutMs: options.joinTimeoutMs ?? 1_000,
      contestGraceMs: options.contestGraceMs ?? 20,
    },
    {
      kafka,
      allocator,
      registry,
      dispatcher,
      positions,
      locks,
      logger,
      probe,
      startOffsets: options.startOffsets,
    },
  );
  return { kafka, locks, reader, dispatcher, positions, received, logs };
}

export type FakeReader = ReturnType<typeof fakeReader>;

/** A fake reader whose probe runs `action` once, the first time the reader reaches `step`. */
export function fakeReaderOnceAt(
  step: string,
  action: (s: FakeReader) => void,
  options: Omit<FakeReaderOptions, 'probe'> = {},
): FakeReader {
  let done = false;
  const s: FakeReader = fakeReader({
    ...options,
    probe: (at) => {
      if (at !== step || done) return;
      done = true;
      action(s);
    },
  });
  return s;
}

/** Polls a condition the fake reaches within a few event-loop turns. */
export async function until(condition: () => boolean, what: string, timeoutMs = 2_000) {
  await vi.waitFor(
    () => {
      if (!condition()) throw new Error(`not yet: ${what}`);
    },
    { timeout: timeoutMs, interval: 2 },
  );
}

/** The seeks of the group's newest consumer since its last join, as `topic[partition]` → offset. */
export function seeksOf(s: FakeReader, groupId = s.reader.groupId!) {
  return Object.fromEntries(
    s.kafka.latest(groupId).seeks.map((k) => [`${k.topic}[${k.partition}]`, k.offset]),
  );
}

/** Nothing left behind: no running consumer, no member in any group, no lock held. */
export function expectClean(s: FakeReader, context: string): void {
  expect(
    s.kafka.running().map((c) => c.groupId),
    context,
  ).toEqual([]);
  expect(s.kafka.allMembers(), context).toEqual([]);
  expect([...s.locks.held], context).toEqual([]);
}
