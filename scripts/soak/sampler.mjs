// Samples describeGroups of every soak group every `intervalMs` (real listener, own admin) and
// records whether two of our instances were ever members of one group at the same time.
// With locks that must never happen. Lock-free, two simultaneous claims of one id can overlap
// briefly by design (the newcomer sees the other member and leaves, the holder waits up to one
// session for it to go; see README "How a group is claimed"), so there only an overlap that
// lasts longer than `lockFreeOverlapMs` counts. `describeConsumer(groupId)` (optional) lists the
// members of a KIP-848 group, which DescribeGroups answers as 'Dead' with none.
export function startGroupSampler(
  admin,
  prefix,
  {
    intervalMs = 500,
    lockFreeOverlapMs = 10_000,
    isLockFree = (groupId) => groupId.includes('LFConsumer'),
    describeConsumer,
  } = {},
) {
  const overlaps = new Map(); // `${groupId}|${clients}` -> the current { first, last }
  const finished = [];
  const report = {
    samples: 0,
    failedSamples: 0,
    maxGroups: 0,
    /** most groups seen at once per pool (`<prefix><base>`, the name without `-<id>`) */
    maxGroupsPerPool: {},
    /** two of our processes (client ids bcast-<slot>.<n>) in one group, beyond what is allowed */
    violations: [],
    /** lock-free overlaps within the allowed time: { groupId, clients, ms } */
    lockFreeOverlaps: [],
    /** one process with two members in a group (an old member the broker kept across a restart) */
    sameInstanceDoubles: 0,
    /** samples of KIP-848 groups (through describeConsumer) */
    consumerGroupSamples: 0,
  };
  let stopped = false;
  const running = (async () => {
    while (!stopped) {
      const at = Date.now();
      try {
        const { groups } = await admin.listGroups();
        const ids = groups.map((g) => g.groupId).filter((g) => g.startsWith(prefix));
        report.maxGroups = Math.max(report.maxGroups, ids.length);
        const perPool = {};
        for (const id of ids) {
          const pool = id.replace(/-\d+$/, '');
          perPool[pool] = (perPool[pool] ?? 0) + 1;
        }
        for (const [pool, n] of Object.entries(perPool))
          report.maxGroupsPerPool[pool] = Math.max(report.maxGroupsPerPool[pool] ?? 0, n);
        if (ids.length > 0) {
          const described = await admin.describeGroups(ids);
          const groups = await Promise.all(
            described.groups.map(async (group) => {
              if (group.state !== 'Dead' || !describeConsumer) return group;
              const kip848 = await describeConsumer(group.groupId);
              if (!kip848) return group;
              report.consumerGroupSamples++;
              return { groupId: group.groupId, ...kip848 };
            }),
          );
          for (const group of groups) {
            const ours = group.members.map((m) => m.clientId).filter((c) => c.startsWith('bcast-'));
            const distinct = new Set(ours);
            if (distinct.size > 1) {
              const key = `${group.groupId}|${[...distinct].sort().join(',')}`;
              let seen = overlaps.get(key);
              // Not seen in the previous sample: a new overlap, not the continuation of one.
              if (!seen || at - seen.last > 2 * intervalMs + 1_000) {
                if (seen) finished.push({ key, ...seen });
                seen = { first: at, last: at };
                overlaps.set(key, seen);
              }
              seen.last = at;
              const lockFree = isLockFree(group.groupId);
              if (!lockFree || seen.last - seen.first > lockFreeOverlapMs)
                report.violations.push({
                  at,
                  groupId: group.groupId,
                  clients: ours,
                  state: group.state,
                });
            } else if (ours.length > 1) report.sameInstanceDoubles++;
          }
        }
        report.samples++;
      } catch {
        report.failedSamples++;
      }
      const wait = intervalMs - (Date.now() - at);
      if (wait > 0 && !stopped) await new Promise((resolve) => setTimeout(resolve, wait));
    }
  })();
  return {
    report,
    async stop() {
      stopped = true;
      await running;
      report.lockFreeOverlaps = [
        ...finished,
        ...[...overlaps].map(([key, span]) => ({ key, ...span })),
      ].map(({ key, first, last }) => ({
        groupId: key.split('|')[0],
        clients: key.split('|')[1],
        ms: last - first,
      }));
      return report;
    },
  };
}
