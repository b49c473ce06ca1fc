import type { ClusterMetadata, Consumer } from '@platformatic/kafka';
import type { FetchPauses } from '../../interfaces/kafka-port.interface.js';
import type { FetchResponse } from './platformatic-fetch-requests.js';

type FetchOptions = Parameters<Consumer['fetch']>[0];

/**
 * The consumer as a PlatformaticFetcher sees it, with `pauses` applied: its Fetch requests leave
 * the paused topics out. The fetcher keeps a paused partition's position (no answer came for
 * it), so a resume fetches from where the pause stopped: nothing is skipped. When every topic of
 * a request is paused, no request is sent (a Fetch without partitions is answered at once) and
 * the answer is empty after the request's wait, or sooner on a resume, as a long poll would be.
 * Topic ids are learnt from the fetcher's own Metadata calls, made before each round.
 */
export function withPauses(consumer: Consumer, pauses: FetchPauses | undefined): Consumer {
  if (!pauses) return consumer;
  const topicOfId = new Map<string, string>();
  const metadata = async (options: Parameters<Consumer['metadata']>[0]) => {
    const found: ClusterMetadata = await consumer.metadata(options);
    for (const [topic, { id }] of found.topics) topicOfId.set(id, topic);
    return found;
  };
  const fetch = async (options: FetchOptions): Promise<FetchResponse> => {
    const topics = options.topics.filter((t) => !pauses.paused(topicOfId.get(t.topicId) ?? ''));
    if (topics.length === options.topics.length) return consumer.fetch(options);
    if (topics.length > 0) return consumer.fetch({ ...options, topics });
    await untilResumedOr(pauses, options.maxWaitTime ?? 0);
    return { throttleTimeMs: 0, errorCode: 0, sessionId: 0, responses: [] };
  };
  return new Proxy(consumer, {
    get(target, property) {
      if (property === 'fetch') return fetch;
      if (property === 'metadata') return metadata;
      const value: unknown = Reflect.get(target, property, target);
      return typeof value === 'function' ? value.bind(target) : value;
    },
  });
}

/** Resolves after `ms`, or at the next pause or resume, whichever comes first. */
function untilResumedOr(pauses: FetchPauses, ms: number): Promise<void> {
  return new Promise((resolve) => {
    const done = () => {
      clearTimeout(timer);
      unwatch();
      resolve();
    };
    const timer = setTimeout(done, ms);
    const unwatch = pauses.watch(done);
  });
}
