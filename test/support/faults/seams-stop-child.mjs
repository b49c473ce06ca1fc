// One engine in its own Node process that stops itself at a chosen startup step (through the
// engine's internal test hook `probe`) and then does NOT call process.exit: the process must end
// by itself, which proves that stop() left no consumer, socket, timer or pool keeping it alive.
// Used by test/faults/stop-during-startup.spec.ts.
//
//   node test/support/faults/seams-stop-child.mjs '{"brokers":[...],"prefix":"...","lock":"postgres"|"none","step":"connect"}'
//
// stdout: 'reached <step>' when the step began, then 'stopped' once stop() resolved.
import { childDataSource, childEngine } from './child-engine.mjs';

const config = JSON.parse(process.argv[2]);
const dataSource = await childDataSource(config.lock, 'seams-stop-child');
let stopping;
const engine = childEngine(config, `seams-stop-${process.pid}`, {
  dataSource,
  probe: (step) => {
    if (step !== config.step || stopping) return;
    process.stdout.write(`reached ${step}\n`);
    stopping = engine.stop();
  },
});
engine.on('seams.child', () => undefined);
await engine.start().catch(() => undefined);
if (!stopping) process.stdout.write(`step ${config.step} never reached\n`);
await (stopping ?? engine.stop());
await dataSource?.destroy();
process.stdout.write('stopped\n');
