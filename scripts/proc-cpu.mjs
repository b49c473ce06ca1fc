// A process's CPU from /proc/<pid>/stat (Linux): what CI's CPU accounting reads
// (test/support/cpu-per-file.ts, scripts/cpu-summary.mjs).
import { readFileSync } from 'node:fs';

/** Clock ticks per second of /proc's times (USER_HZ: 100 on Linux). */
const TICKS_PER_S = 100;

/**
 * Seconds of CPU of `pid` (default: this process): its own user and system time, and the user
 * and system time of the children it has reaped.
 */
export function cpuSeconds(pid = 'self') {
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  // The command name may hold spaces: the fields start after its closing parenthesis, so that
  // fields 14-17 of proc(5) (utime, stime, cutime, cstime) are at 11-14 here.
  const [utime, stime, cutime, cstime] = stat
    .slice(stat.lastIndexOf(')') + 2)
    .split(' ')
    .slice(11, 15)
    .map((t) => Number(t) / TICKS_PER_S);
  return { own: utime + stime, children: cutime + cstime };
}
