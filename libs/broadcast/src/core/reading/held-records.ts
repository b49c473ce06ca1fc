import type { GroupConsumerSpec, RecordSink } from '../../interfaces/kafka-port.interface.js';
import { HOLD_MS, type MembershipPhase } from './membership.types.js';
import { liveRound } from './membership-rounds.js';

/** One fetched record, and what can be done with it. */
export interface HeldRecord {
  /** The membership's phase now (it moves while the record is held). */
  phase(): MembershipPhase;
  /** Hands it to the handlers. */
  deliver(): void | Promise<void>;
  /** Drops it and seeks its partition back to the engine's position. */
  seekBack(): void;
}

/**
 * Nothing reaches the handlers before the membership proved that it is alone in the group and
 * the reader adopted it: the client fetches as soon as it joined (seeks apply at once), so a
 * record that arrives before is held until the proof. If the group is refused, or a new
 * generation or HOLD_MS comes first, the record is dropped without moving any position (and,
 * while the membership lives, its partition is sought back there), so the group that is
 * finally held hands it over once. A member once adopted keeps reading through later
 * rebalances; a rejoined member waits, like any other, until its own expiring predecessor is
 * gone.
 */
export function holdUntilProven(record: HeldRecord): void | Promise<void> {
  const phase = record.phase();
  const round = liveRound(phase);
  if (round?.adopted) return record.deliver();
  if (phase.name === 'leaving' || phase.name === 'stopped') return;
  const proof = round?.proof.promise ?? Promise.resolve(false);
  let timer: NodeJS.Timeout | undefined;
  const held = new Promise<boolean>((resolve) => (timer = setTimeout(resolve, HOLD_MS, false)));
  return Promise.race([proof, held]).then((proven) => {
    clearTimeout(timer);
    const now = record.phase();
    if (proven && liveRound(now)?.adopted) return record.deliver();
    if (now.name !== 'leaving' && now.name !== 'stopped') record.seekBack();
  });
}

/**
 * A membership's sink: an adopted membership hands each record over at once; only a record that
 * must wait gets its HeldRecord (three closures per record were a visible share of the CPU per
 * message of a backlog drain).
 */
export function heldSink(
  phase: () => MembershipPhase,
  deliver: RecordSink,
  seekBack: (topic: string, partition: number) => void,
): RecordSink {
  return (topic, partition, record) =>
    liveRound(phase())?.adopted
      ? deliver(topic, partition, record)
      : holdUntilProven({
          phase,
          deliver: () => deliver(topic, partition, record),
          seekBack: () => seekBack(topic, partition),
        });
}

type Progress = NonNullable<GroupConsumerSpec['progress']>;

/**
 * A membership's progress reports (how far the client read a partition), passed on only while
 * it hands records over. Once it is leaving it drops every record unhandled, so a report then
 * covers records no handler saw: the replay window's catch-up would end early, and a truncation
 * rewind would key on a timestamp never handed over (see ReadPositions.reached). Before that, a
 * record it drops is sought back, which ends the client's batch before its report (kafkajs
 * isStale, the @platformatic/kafka fetcher's replaced position).
 */
export function reportedWhileReading(phase: () => MembershipPhase, progress: Progress): Progress {
  return (topic, partition, next, timestamp) => {
    const now = phase().name;
    if (now !== 'leaving' && now !== 'stopped') progress(topic, partition, next, timestamp);
  };
}
