import type { Admin, ITopicMetadata } from 'kafkajs';
import { backoffDelay, pause } from '../../shared/async.utils.js';
import { clusterHasLeaders, type AdminWithCluster } from './kafkajs-cluster-offsets.js';
import type { TopicSettings } from '../shared/adapter-types.js';
import type { KafkajsErrors } from './kafkajs-errors.js';

type AdminCluster = NonNullable<AdminWithCluster['cluster']>;

/**
 * The topics a startup reads: created when missing (by whichever instance comes first), then
 * waited for until every partition has a leader, so the group joins topics that can be read.
 */
export class KafkajsTopicSetup {
  constructor(
    private readonly settings: TopicSettings,
    private readonly errors: KafkajsErrors,
  ) {}

  /**
   * Creates the missing ones of `topics` on `admin` and waits for their leaders. When `signal`
   * aborts, a kafkajs call that cannot be cancelled is left to finish and handed to `leftBehind`.
   */
  async ensure(
    admin: Admin,
    cluster: AdminCluster | undefined,
    topics: readonly string[],
    signal?: AbortSignal,
    leftBehind?: (call: Promise<unknown>) => void,
  ): Promise<void> {
    // Usually every topic exists: one Metadata request for just these topics says so (and that
    // they have leaders). Only when one is missing is the whole cluster's topic list read.
    if (await haveLeaders(admin, cluster, topics)) return;
    await this.createThenWait(admin, topics, signal, leftBehind);
  }

  private async createThenWait(
    admin: Admin,
    topics: readonly string[],
    signal?: AbortSignal,
    leftBehind?: (call: Promise<unknown>) => void,
  ): Promise<void> {
    const existing = new Set(await admin.listTopics());
    const missing = topics.filter((t) => !existing.has(t));
    if (missing.length > 0) {
      const { numPartitions, replicationFactor } = this.settings;
      // Another instance may create the same topic at the same moment; kafkajs then
      // answers false instead of failing, which is what we want.
      const creating = admin
        .createTopics({
          waitForLeaders: true,
          topics: missing.map((topic) => ({
            topic,
            numPartitions,
            replicationFactor: replicationFactor ?? -1,
          })),
        })
        .catch((error: unknown) => {
          const denied = this.errors.fatal(error, {
            operation: 'create missing topics',
            acl: { topic: 'CREATE', cluster: 'CREATE' },
            topics: missing,
          });
          if (denied) throw denied;
          // kafkajs's own wait for leaders retries only LEADER_NOT_AVAILABLE; a topic created a
          // moment ago can still answer UNKNOWN_TOPIC_OR_PARTITION. waitForLeaders keeps polling.
          if (!(error as { retriable?: boolean }).retriable) throw error;
        });
      // kafkajs's wait for leaders cannot be cancelled; stop waiting for it when `signal` aborts.
      await untilAborted(creating, signal);
      if (signal?.aborted) return leftBehind?.(creating);
    }
    await this.waitForLeaders(admin, topics, signal);
  }

  /** Topics created by another instance a moment ago may not have leaders yet. */
  private async waitForLeaders(
    admin: Admin,
    topics: readonly string[],
    signal?: AbortSignal,
  ): Promise<void> {
    for (let attempt = 0; attempt < 50 && !signal?.aborted; attempt++) {
      let ready = false;
      try {
        const { topics: metadata } = await admin.fetchTopicMetadata({
          topics: [...topics],
        });
        ready = everyPartitionLed(metadata);
      } catch (error) {
        // createTopics answers TOPIC_ALREADY_EXISTS as soon as the controller has the topic, but
        // the broker's metadata may not list it yet: UNKNOWN_TOPIC_OR_PARTITION, which is retriable.
        if (!(error as { retriable?: boolean }).retriable || attempt === 49) throw error;
      }
      if (ready) return;
      await pause(backoffDelay(attempt, 50, 500), signal);
    }
  }
}

/** True when every topic exists and every partition has a leader; false when one is missing. */
async function haveLeaders(
  admin: Admin,
  cluster: AdminCluster | undefined,
  topics: readonly string[],
): Promise<boolean> {
  if (cluster) return clusterHasLeaders(cluster, topics);
  try {
    const { topics: metadata } = await admin.fetchTopicMetadata({ topics: [...topics] });
    return metadata.length === topics.length && everyPartitionLed(metadata);
  } catch (error) {
    // A missing topic answers UNKNOWN_TOPIC_OR_PARTITION: create it. Anything else is the caller's.
    if ((error as { type?: string }).type === 'UNKNOWN_TOPIC_OR_PARTITION') return false;
    throw error;
  }
}

/** Every topic listed has partitions, and every partition a leader. */
function everyPartitionLed(metadata: readonly ITopicMetadata[]): boolean {
  return metadata.every((t) => t.partitions.length > 0 && t.partitions.every((p) => p.leader >= 0));
}

/** Settles with `promise`, or resolves as soon as `signal` aborts (the promise is left to finish). */
async function untilAborted(promise: Promise<unknown>, signal?: AbortSignal): Promise<void> {
  if (!signal) return void (await promise);
  promise.catch(() => undefined);
  const aborted = new Promise<void>((resolve) => {
    if (signal.aborted) resolve();
    signal.addEventListener('abort', () => resolve(), { once: true });
  });
  await Promise.race([promise, aborted]);
}
