import type { Admin } from '@platformatic/kafka';
import { backoffDelay, pause } from '../../shared/async.utils.js';
import type { TopicSettings } from '../shared/adapter-types.js';
import { hasProtocolError, type PlatformaticErrors } from './platformatic-errors.js';

const LEADER_ATTEMPTS = 50;

/**
 * The topics a startup reads: created when missing (by whichever instance comes first), then
 * waited for until every partition has a leader, so the group joins topics that can be read.
 */
export class PlatformaticTopicSetup {
  constructor(
    private readonly admin: Admin,
    private readonly settings: TopicSettings,
    private readonly errors: PlatformaticErrors,
  ) {}

  async ensure(topics: readonly string[], signal?: AbortSignal): Promise<void> {
    if (signal?.aborted) return;
    if (await this.ready(topics)) return;
    const missing = await this.missing(topics);
    if (missing.length === 0) return;
    await this.create(missing);
    for (let attempt = 0; attempt < LEADER_ATTEMPTS && !signal?.aborted; attempt++) {
      if ((await this.missing(topics, true).catch(() => topics)).length === 0) return;
      await pause(backoffDelay(attempt, 50, 500), signal);
    }
  }

  /**
   * Every start after the first finds its topics: one Metadata request for them alone, not
   * retried, answers that. Anything else (a missing topic, a partition without a leader, a
   * refusal) goes the long way, which creates, waits and names refusals. Without it a start
   * sent four Metadata requests here, two of them for every topic of the cluster.
   */
  private async ready(topics: readonly string[]): Promise<boolean> {
    try {
      const metadata = await this.admin.metadata({
        topics: [...topics],
        autocreateTopics: false,
        forceUpdate: true,
        retries: 0,
      });
      return topics.every((t) => {
        const described = metadata.topics.get(t);
        return described !== undefined && described.partitions.every((p) => p.leader >= 0);
      });
    } catch {
      return false;
    }
  }

  /**
   * The topics that do not exist, or have a partition without a leader, yet. The client answers
   * a Metadata request naming a missing topic only after its retries, so the topic list comes first.
   */
  private async missing(topics: readonly string[], forceUpdate = false): Promise<string[]> {
    try {
      const existing = new Set(await this.admin.listTopics());
      const absent = topics.filter((t) => !existing.has(t));
      if (absent.length > 0) return absent;
      const metadata = await this.admin.metadata({ topics: [...topics], forceUpdate });
      return topics.filter((t) => {
        const described = metadata.topics.get(t);
        return !described || described.partitions.some((p) => p.leader < 0);
      });
    } catch (error) {
      throw (
        this.errors.fatal(error, {
          operation: 'describe topics',
          acl: { topic: 'DESCRIBE (implied by READ or WRITE)' },
          topics,
        }) ?? error
      );
    }
  }

  private async create(missing: string[]): Promise<void> {
    const { numPartitions, replicationFactor } = this.settings;
    try {
      await this.admin.createTopics({
        topics: missing,
        partitions: numPartitions,
        replicas: replicationFactor ?? -1,
      });
    } catch (error) {
      // Another instance may create the same topic at the same moment: that is what we want.
      if (hasProtocolError(error, 'TOPIC_ALREADY_EXISTS')) return;
      throw (
        this.errors.fatal(error, {
          operation: 'create missing topics',
          acl: { topic: 'CREATE', cluster: 'CREATE' },
          topics: missing,
        }) ?? error
      );
    } finally {
      this.admin.clearMetadata();
    }
  }
}
