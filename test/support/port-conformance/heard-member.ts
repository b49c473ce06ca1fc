// One group consumer made through a row's port, recording in one ordered log everything it tells
// its owner (the engine's side of the port): joins, crashes, records, progress and the
// out-of-range questions. The conformance tests read outcomes from this log.
import type {
  GroupConsumerPort,
  GroupConsumerSpec,
  KafkaPort,
} from '../../../libs/broadcast/src/interfaces/kafka-port.interface.js';

export type Heard =
  | { kind: 'joining'; memberId: string }
  | { kind: 'joined'; memberId: string; partitions: number[] }
  | { kind: 'crashed'; error: Error }
  | { kind: 'record'; offset: string; value: string }
  | { kind: 'progress'; nextOffset: string }
  | { kind: 'outOfRange'; partition: number };

export interface HeardMember {
  consumer: GroupConsumerPort;
  /** What the consumer was made with. */
  spec: GroupConsumerSpec;
  heard: Heard[];
  joins(): Extract<Heard, { kind: 'joined' }>[];
  crashes(): Extract<Heard, { kind: 'crashed' }>[];
  values(): string[];
  progress(): string[];
}

export interface HeardOptions {
  /** Sought on every join (partition 0). */
  seekTo?: string;
  /** The answer to an out-of-range question. */
  resumeAt?: string;
  /** The spec's pauses. */
  pauses?: GroupConsumerSpec['pauses'];
}

export function heardMember(
  port: KafkaPort,
  groupId: string,
  topic: string,
  options: HeardOptions = {},
): HeardMember {
  const heard: Heard[] = [];
  const spec: GroupConsumerSpec = {
    groupId,
    topics: [topic],
    fromBeginning: true,
    listener: {
      joining: (memberId) => heard.push({ kind: 'joining', memberId }),
      joined: (memberId, assignment) => {
        const partitions = [...(assignment.get(topic) ?? [])];
        heard.push({ kind: 'joined', memberId, partitions });
        if (options.seekTo !== undefined && partitions.includes(0))
          consumer.seek(topic, 0, options.seekTo);
      },
      crashed: (error) => heard.push({ kind: 'crashed', error }),
    },
    sink: (_topic, _partition, record) => {
      heard.push({ kind: 'record', offset: record.offset, value: String(record.value) });
    },
    progress: (_topic, _partition, nextOffset) => heard.push({ kind: 'progress', nextOffset }),
    outOfRange: async (_topic, partition) => {
      heard.push({ kind: 'outOfRange', partition });
      return options.resumeAt ?? '0';
    },
    ...(options.pauses && { pauses: options.pauses }),
  };
  const consumer = port.createGroupConsumer(spec);
  const of = <K extends Heard['kind']>(kind: K) =>
    heard.filter((h): h is Extract<Heard, { kind: K }> => h.kind === kind);
  return {
    consumer,
    spec,
    heard,
    joins: () => of('joined'),
    crashes: () => of('crashed'),
    values: () => of('record').map((r) => r.value),
    progress: () => of('progress').map((p) => p.nextOffset),
  };
}

/**
 * Resolves with false as soon as `happened()` is true, or with true once `ms` passed without it:
 * how a test shows that something does not happen (a bounded watch, not a sleep).
 */
export async function staysFalse(
  happened: () => boolean | Promise<boolean>,
  ms: number,
): Promise<boolean> {
  const deadline = Date.now() + ms;
  while (Date.now() < deadline) {
    if (await happened()) return false;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  return !(await happened());
}

/** Pauses of one topic, switched by the test: paused until resume(). */
export function pausedTopic(topic: string): NonNullable<GroupConsumerSpec['pauses']> & {
  resume(): void;
} {
  let paused = true;
  const watchers = new Set<() => void>();
  return {
    paused: (t) => paused && t === topic,
    watch: (changed) => {
      watchers.add(changed);
      return () => watchers.delete(changed);
    },
    resume: () => {
      paused = false;
      for (const changed of watchers) changed();
    },
  };
}
