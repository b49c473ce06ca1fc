/**
 * Where CI's CPU goes, per spec file (issue #39: the suite is CPU-bound on 2 cores, so the run
 * is shortened by less work, not by more workers). With CI_CPU_LOG set, each file appends one JSON
 * line: its wall time and the CPU its worker process used meanwhile, its own and that of the child
 * processes it started and reaped (apps, CLIs, npm and tsc, brokers of its own), from
 * /proc/self/stat. The shared broker is nobody's child here and is not counted. Off otherwise.
 */
import { appendFileSync, readFileSync } from 'node:fs';
import { relative } from 'node:path';

const LOG = process.env.CI_CPU_LOG;

/** utime, stime, cutime, cstime of this process, in clock ticks (1/100 s on Linux). */
function ticks(): number[] {
  const stat = readFileSync('/proc/self/stat', 'utf8');
  // The command name may hold spaces: the fields start after its closing parenthesis.
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  // Fields 14-17 of proc(5), here at 11-14 (the pid and the name come before).
  return fields.slice(11, 15).map(Number);
}

if (LOG) {
  // From here, before the spec file's own imports, which count too.
  const start = { at: Date.now(), ticks: ticks() };
  afterAll(() => {
    const [u, s, cu, cs] = ticks().map((t, i) => (t - start.ticks[i]!) / 100);
    const file = relative(process.cwd(), expect.getState().testPath ?? '?');
    appendFileSync(
      LOG,
      `${JSON.stringify({ file, wallS: (Date.now() - start.at) / 1000, ownS: u! + s!, childrenS: cu! + cs! })}\n`,
    );
  });
}
