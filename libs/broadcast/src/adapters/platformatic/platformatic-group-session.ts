import * as client from '@platformatic/kafka';
import type { Connection, describeConfigsV4 } from '@platformatic/kafka';
import { chainOf } from './platformatic-errors.js';

/** DescribeConfigs' resource type for a group's configs (KIP-848 dynamic group configs). */
const GROUP_RESOURCE = 32 as const;
/**
 * The session of the group's KIP-848 members: the group's own dynamic config, or else the
 * broker's `group.consumer.session.timeout.ms` (45 s by default), which the answer then shows.
 */
const SESSION_KEY = 'consumer.session.timeout.ms';

/**
 * Looked up at run time, as the shared connections' hooks are: a named import of an API the
 * 1.x line the peer range takes (~1.35) may lack would fail the adapter's load there.
 */
const describeConfigs = (client as unknown as Record<string, typeof describeConfigsV4 | undefined>)[
  'describeConfigsV4'
];

/**
 * The session the broker gives the members of `groupId` (KIP-848: the broker alone sets it; the
 * client's sessionTimeoutMs is never sent), asked with one DescribeConfigs of the group resource
 * on `connection`; any broker answers it from the cluster's metadata.
 *
 * Resolves null when the broker will not tell: it refused (no DESCRIBE_CONFIGS on the group, a
 * broker without group configs) or gave no usable value, or the client has no such API; asking
 * again would be refused again. Rejects when there was no answer (a connection failed, or a
 * retriable error): it can be asked again later.
 */
export async function readGroupSessionMs(
  connection: Connection,
  groupId: string,
): Promise<number | null> {
  if (!describeConfigs) return null;
  let results: describeConfigsV4.DescribeConfigsResponse['results'];
  try {
    ({ results } = await describeConfigs.api.async(connection, [
      { resourceType: GROUP_RESOURCE, resourceName: groupId, configurationKeys: [SESSION_KEY] },
    ]));
  } catch (error) {
    const answers = [...chainOf(error)].filter((e) => e.apiId);
    if (answers.length > 0 && answers.every((e) => e.canRetry !== true)) return null;
    throw error;
  }
  const value = results[0]?.configs.find((c) => c.name === SESSION_KEY)?.value;
  const ms = Number(value ?? NaN);
  return Number.isFinite(ms) && ms > 0 ? ms : null;
}
