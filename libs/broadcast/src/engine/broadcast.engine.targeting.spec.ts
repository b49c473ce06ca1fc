// Issue #23, defect 1: the service an instance is targeted as is known from the start, not derived
// from the group it happens to hold, so a service-targeted message fetched while no group is held
// yet (before ready, during a move) is not dropped as "for another service".
import {
  incomingRecord as record,
  InMemoryManualPort,
} from '../testing/in-memory-manual-control.js';
import { BroadcastHeaders } from '../core/broadcast-headers.js';
import { BroadcastEngine } from './broadcast.engine.js';

const silent = { log: () => undefined, warn: () => undefined, error: () => undefined };

function targeted(offset: number, services: string) {
  return { ...record(offset, { n: offset }), headers: { [BroadcastHeaders.toServices]: services } };
}

describe('BroadcastEngine targeting by service', () => {
  it.each([
    ['a group base name', { groupBaseName: 'billing' }, 'billing'],
    ['the default lock-free base', {}, 'broadcastLFConsumer'],
  ])(
    'delivers a message for its service (%s) fetched before the group is adopted',
    async (_, options, service) => {
      const kafka = new InMemoryManualPort();
      const received: unknown[] = [];
      let engine!: BroadcastEngine;
      engine = new BroadcastEngine(
        {
          kafka: { brokers: ['fake:9092'] },
          topicPrefix: 'p.',
          lock: false,
          heartbeat: false,
          receipts: false,
          telemetry: false,
          ...options,
        },
        {
          kafka,
          logger: silent,
          probe: (step) => {
            if (step !== 'joined') return;
            // The client hands records over as soon as it joined: before the reader adopted it.
            const consumer = kafka.latest();
            setImmediate(() => {
              void consumer.spec.sink('p.news', 0, targeted(0, service));
              void consumer.spec.sink('p.news', 0, targeted(1, 'another-service'));
            });
          },
        },
      );
      engine.on('news', (payload) => void received.push(payload));
      await engine.start();
      await vi.waitFor(() => expect(received).toEqual([{ n: 0 }]), { timeout: 2_000 });
      expect(engine.reader.status().filtered).toBe(1);
      await engine.stop();
    },
  );
});
