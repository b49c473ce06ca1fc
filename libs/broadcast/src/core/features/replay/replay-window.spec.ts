// The replay window's catch-up is judged by how far the consumer read (filtered transaction
// markers and aborted records included), not by the last record handed over. Proven on the real
// broker in test/features/replay-control-records.spec.ts.
import type { KafkaAdminPort } from '../../../interfaces/kafka-port.interface.js';
import { ReadPositions } from '../../positions/read-positions.js';
import { ReplayWindow } from './replay-window.js';

function setup() {
  const warnings: string[] = [];
  const admin = {
    latestOffsets: async () => new Map([['t', new Map([[0, '10']])]]),
    offsetsForTimestamp: async () => new Map([[0, '4']]),
  } as unknown as KafkaAdminPort;
  const logger = {
    log: () => undefined,
    warn: (message: string) => void warnings.push(message),
    error: () => undefined,
  };
  const window = new ReplayWindow(new Map([['t', 60_000]]), admin, logger);
  return { window, warnings, positions: new ReadPositions() };
}

describe('ReplayWindow catch-up', () => {
  it('is caught up once the consumer read past a window that ends in filtered records', async () => {
    const { window, warnings, positions } = setup();
    positions.setStart(await window.startOffsets(['t']));
    expect(positions.positionOf('t', 0)).toBe('4');
    positions.advance('t', 0, '7'); // the last record handed over; 8 and 9: markers, aborted
    const signal = new AbortController().signal;
    const waiting = window.caughtUp(positions, Date.now() + 60_000, signal);
    positions.reached('t', 0, '10');
    await waiting;
    expect(warnings).toEqual([]);
  });

  it('warns at the deadline when the consumer did not read through', async () => {
    const { window, warnings, positions } = setup();
    positions.setStart(await window.startOffsets(['t']));
    positions.advance('t', 0, '7');
    await window.caughtUp(positions, Date.now(), new AbortController().signal);
    expect(warnings).toEqual([
      'The replay window was not read through before the startup deadline.',
    ]);
  });
});
