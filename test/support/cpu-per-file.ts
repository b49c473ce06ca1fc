/**
 * Where CI's CPU goes, per spec file (issue #39: the suite is CPU-bound on 2 cores, so the run
 * is shortened by less work, not by more workers). With CI_CPU_LOG set, each file appends one JSON
 * line: its wall time and the CPU its worker process used meanwhile, its own and that of the child
 * processes it started and reaped (apps, CLIs, npm and tsc, brokers of its own), from
 * /proc/self/stat. The shared broker is nobody's child here and is not counted. Off otherwise.
 */
import { appendFileSync } from 'node:fs';
import { relative } from 'node:path';
import { cpuSeconds } from '../../scripts/proc-cpu.mjs';

const LOG = process.env.CI_CPU_LOG;

if (LOG) {
  // From here, before the spec file's own imports, which count too.
  const start = { at: Date.now(), cpu: cpuSeconds() };
  afterAll(() => {
    const cpu = cpuSeconds();
    const file = relative(process.cwd(), expect.getState().testPath ?? '?');
    const line = {
      file,
      wallS: (Date.now() - start.at) / 1000,
      ownS: cpu.own - start.cpu.own,
      childrenS: cpu.children - start.cpu.children,
    };
    appendFileSync(LOG, `${JSON.stringify(line)}\n`);
  });
}
