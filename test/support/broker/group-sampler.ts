// The one "no two live members in one group" sampler of the suite, for in-process engines
// (engine-locks) and instance processes on a broker of a test's own (faults-lock-loss).
import { setTimeout as delay } from 'node:timers/promises';
import { Kafka, logLevel } from 'kafkajs';
import { consumerGroupViewer, describeGroupsOfEitherProtocol } from './consumer-groups.js';
import { kafkaBrokers } from './kafka.js';

export interface GroupSamplerReport {
  samples: number;
  /** When each successful sample was taken (epoch ms). */
  sampledAt: number[];
  failedSamples: number;
  /** Largest member count seen in any one group in any one sample. */
  maxMembers: number;
  maxMembersPerGroup: Map<string, number>;
  /** Every sample in which a group had more than one (counted) member. */
  violations: { at: number; groupId: string; memberIds: string[] }[];
}

export interface GroupSamplerOptions {
  /** The broker to ask; the run's shared broker by default. */
  brokers?: string[];
  intervalMs?: number;
  /** Member ids not counted (e.g. of a crashed process whose session has not run out). */
  ignore?: () => readonly string[];
}

/**
 * Describes `groupIds` every `intervalMs` (default 100) on its own admin client until stopped,
 * and records the largest number of members any group ever had.
 */
export function sampleGroups(
  groupIds: readonly string[],
  { brokers = kafkaBrokers(), intervalMs = 100, ignore = () => [] }: GroupSamplerOptions = {},
) {
  const report: GroupSamplerReport = {
    samples: 0,
    sampledAt: [],
    failedSamples: 0,
    maxMembers: 0,
    maxMembersPerGroup: new Map(groupIds.map((g) => [g, 0])),
    violations: [],
  };
  let stopped = false;
  const running = (async () => {
    const admin = new Kafka({ brokers, logLevel: logLevel.NOTHING }).admin();
    // KIP-848 groups answer DescribeGroups with 'Dead' and no members: ask ConsumerGroupDescribe.
    const kip848 = consumerGroupViewer(brokers);
    await admin.connect();
    try {
      while (!stopped) {
        const at = Date.now();
        try {
          const views = await describeGroupsOfEitherProtocol(admin, groupIds, kip848);
          report.samples++;
          report.sampledAt.push(at);
          const ignored = new Set(ignore());
          for (const [groupId, { memberIds }] of views) {
            const members = memberIds.filter((m) => !ignored.has(m));
            report.maxMembers = Math.max(report.maxMembers, members.length);
            report.maxMembersPerGroup.set(
              groupId,
              Math.max(report.maxMembersPerGroup.get(groupId) ?? 0, members.length),
            );
            if (members.length > 1) report.violations.push({ at, groupId, memberIds: members });
          }
        } catch {
          report.failedSamples++;
        }
        const wait = intervalMs - (Date.now() - at);
        if (wait > 0 && !stopped) await delay(wait);
      }
    } finally {
      await admin.disconnect();
      await kip848.close();
    }
  })();
  return {
    report,
    /** Stops sampling and returns the report. */
    async stop(): Promise<GroupSamplerReport> {
      stopped = true;
      await running;
      return report;
    },
  };
}
