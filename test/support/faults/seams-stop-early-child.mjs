// One engine in its own Node process that is stopped right after start(): in the same tick
// ('sync'), after one setImmediate ('immediate') or after a few milliseconds, before it could do
// anything. It does NOT call process.exit: the process must end by itself, which proves that no
// client connected after stop() (a connect that lands after the disconnect keeps a socket open
// forever). Used by test/faults/stop-before-connect.spec.ts.
//
//   node test/support/faults/seams-stop-early-child.mjs '{"brokers":[...],"prefix":"...","lock":"postgres"|"none","delay":"sync"|"immediate"|<ms>,"lockKey":"<classid>"}'
//
// stdout, one line each: 'stopped' once stop() resolved, 'start <outcome>' once start() settled,
// 'locks held <n>' (postgres: advisory locks of the namespace held by anyone, after stop), then
// 'active <JSON>' (process.getActiveResourcesInfo(): what still keeps the process alive, once
// no TCP socket is left or 5 s passed).
import { setTimeout as sleep } from 'node:timers/promises';
import { childDataSource, childEngine } from './child-engine.mjs';

const config = JSON.parse(process.argv[2]);
const dataSource = await childDataSource(config.lock, 'seams-stop-early-child');
const engine = childEngine(config, `seams-stop-early-${process.pid}`, { dataSource });
engine.on('seams.early', () => undefined);

const starting = engine.start().then(
  () => 'resolved',
  (error) => `rejected: ${error.message}`,
);
if (config.delay === 'immediate') await new Promise((resolve) => setImmediate(resolve));
else if (typeof config.delay === 'number') await sleep(config.delay);
await engine.stop();
process.stdout.write('stopped\n');
process.stdout.write(`start ${await starting}\n`);
if (dataSource) {
  const [{ held }] = await dataSource.query(
    `SELECT count(*)::int AS held FROM pg_locks
      WHERE locktype = 'advisory' AND granted AND objsubid = 2
        AND classid = ($1::int8 & 4294967295)::oid`,
    [config.lockKey],
  );
  process.stdout.write(`locks held ${held}\n`);
  await dataSource.destroy();
}
// A socket closed a moment ago can still be listed: look again until none is, for at most 5 s.
const sockets = () => process.getActiveResourcesInfo().filter((r) => r.startsWith('TCP'));
for (const deadline = Date.now() + 5_000; sockets().length > 0 && Date.now() < deadline;)
  await sleep(10);
process.stdout.write(`active ${JSON.stringify(process.getActiveResourcesInfo())}\n`);
