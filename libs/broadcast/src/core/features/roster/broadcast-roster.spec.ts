import type { KafkaAdminPort } from '../../../interfaces/kafka-port.interface.js';
import { BroadcastRoster } from './broadcast-roster.js';

const quiet = { log() {}, warn() {}, error() {}, debug() {} };

/** An admin port that only lists members, counting the reads. */
function countingAdmin() {
  const reads = { count: 0 };
  const admin = {
    liveMembers: () => {
      reads.count++;
      return Promise.resolve([]);
    },
  } as unknown as KafkaAdminPort;
  return { admin, reads };
}

describe('BroadcastRoster at start', () => {
  it('looks once for a live instance with the same id when the id was chosen', async () => {
    const { admin, reads } = countingAdmin();
    const roster = new BroadcastRoster(
      { topicPrefix: 't.', intervalMs: 0, lookAtStart: true },
      admin,
      quiet,
    );
    roster.start();
    await roster.stop();
    expect(reads.count).toBe(1);
  });

  it('does not read the pool when the id is the random default: a fleet would describe N² groups', async () => {
    const { admin, reads } = countingAdmin();
    const roster = new BroadcastRoster(
      { topicPrefix: 't.', intervalMs: 3_000, lookAtStart: false },
      admin,
      quiet,
    );
    roster.start();
    await roster.stop();
    expect(reads.count).toBe(0);
    // Its first use still reads it.
    const again = new BroadcastRoster(
      { topicPrefix: 't.', intervalMs: 0, lookAtStart: false },
      admin,
      quiet,
    );
    again.start();
    await again.refresh();
    await again.stop();
    expect(reads.count).toBe(1);
  });
});
