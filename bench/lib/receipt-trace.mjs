// Timestamps along one publish's path through 10 engines (benchmark 8), taken from outside the
// engine: each engine's adapter is tapped (createEngine's `tap`), so the sends it makes and the
// records its group consumers hand over are timed; the handler marks itself. Adds a few µs per
// record. Milestones are ms after publish() was called, the latest over the instances.
import { now, summary } from './common.mjs';

export function receiptTrace({ dataTopic, receiptsTopic, publisherId }) {
  let cur;
  const publisherKey = Buffer.from(publisherId, 'utf8');
  const traces = { plain: [], receipt: [], receiptRoster: [] };
  return {
    /** Starts timing one publish; `kind`: 'plain', 'receipt' or 'receiptRoster' (expected: 'roster'). */
    begin(kind) {
      cur = {
        kind,
        t0: now(),
        fetched: {},
        handled: {},
        ackSend: {},
        ackAcked: {},
        ackFetched: {},
        ackReads: 0,
      };
    },
    /** Called by instance `id`'s handler. */
    handled(id) {
      if (cur) cur.handled[id] ??= now();
    },
    end() {
      cur.resolved = now();
      traces[cur.kind].push(cur);
      cur = undefined;
    },
    /** createEngine's `tap` for instance `id`. */
    tap: (id) => (adapter) => {
      const send = adapter.send.bind(adapter);
      adapter.send = async (topic, records) => {
        const c = cur;
        const t = now();
        try {
          return await send(topic, records);
        } finally {
          if (c && topic === dataTopic && id === publisherId) {
            c.dataSend = t;
            c.dataAcked = now();
          } else if (c && topic === receiptsTopic) {
            c.ackSend[id] = t;
            c.ackAcked[id] = now();
          }
        }
      };
      const create = adapter.createGroupConsumer.bind(adapter);
      adapter.createGroupConsumer = (spec) => {
        const sink = spec.sink;
        spec.sink = (topic, partition, record) => {
          const c = cur;
          if (c && topic === dataTopic) c.fetched[id] ??= now();
          else if (c && topic === receiptsTopic) {
            // Counted at every instance that fetched it (since #39 only the publisher fetches them).
            c.ackReads++;
            if (id === publisherId && publisherKey.equals(record.key ?? Buffer.alloc(0)))
              c.ackFetched[JSON.parse(record.value.toString('utf8')).i] ??= now();
          }
          return sink(topic, partition, record);
        };
        return create(spec);
      };
      return adapter;
    },
    /** Milestones (ms after publish() was called; the last instance) and per-ack segments. */
    breakdown() {
      const last = (m) => Math.max(...Object.values(m));
      const each = (list, f) => summary(list.flatMap(f));
      const perAck = (c, f) => Object.keys(c.ackSend).map((id) => f(c, id));
      const milestones = (list, receipts) => {
        const m = {
          dataSendStarted: summary(list.map((c) => c.dataSend - c.t0)),
          dataAcked: summary(list.map((c) => c.dataAcked - c.t0)),
          lastFetched: summary(list.map((c) => last(c.fetched) - c.t0)),
          lastHandled: summary(list.map((c) => last(c.handled) - c.t0)),
        };
        if (!receipts) return m;
        return {
          ...m,
          lastAckSendStarted: summary(list.map((c) => last(c.ackSend) - c.t0)),
          lastAckAcked: summary(list.map((c) => last(c.ackAcked) - c.t0)),
          lastAckFetched: summary(list.map((c) => last(c.ackFetched) - c.t0)),
          resolved: summary(list.map((c) => c.resolved - c.t0)),
        };
      };
      const r = traces.receipt;
      return {
        plain: milestones(traces.plain, false),
        receipt: milestones(r, true),
        ...(traces.receiptRoster.length > 0 && {
          receiptRoster: milestones(traces.receiptRoster, true),
        }),
        // Per acknowledgement, over every instance and repeat:
        perAck: {
          dataSendToFetched: each(r, (c) => perAck(c, (c, id) => c.fetched[id] - c.dataSend)),
          handledToAckSend: each(r, (c) => perAck(c, (c, id) => c.ackSend[id] - c.handled[id])),
          ackSendToAcked: each(r, (c) => perAck(c, (c, id) => c.ackAcked[id] - c.ackSend[id])),
          ackSendToFetched: each(r, (c) => perAck(c, (c, id) => c.ackFetched[id] - c.ackSend[id])),
          ackAckedToFetched: each(r, (c) =>
            perAck(c, (c, id) => c.ackFetched[id] - c.ackAcked[id]),
          ),
        },
        lastAckFetchedToResolved: each(r, (c) => [c.resolved - last(c.ackFetched)]),
        /** Acknowledgements handed to a sink, all instances together, per receipt. */
        ackReadsPerReceipt: each(r, (c) => [c.ackReads]),
      };
    },
  };
}
