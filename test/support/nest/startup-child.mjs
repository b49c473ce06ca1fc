// A plain Node app in ESM, as a user writes one: top-level await on start(), nothing else keeping
// the process alive. Used by test/module/startup-process.spec.ts.
//
//   BROADCAST_LIB=<file URL of dist/index.js> STARTUP_OPTIONS='<json>' node test/support/nest/startup-child.mjs
//
// stdout: the engine's own lines (its default console logger), then 'started' once start()
// resolved; it stops and ends then. A failed start() is the uncaught error of the top-level await;
// with STARTUP_CATCH=1 the app catches it instead, as one that logs and goes on would: it prints
// 'start failed: <message>' and 'status after the failed start: <state>' on stderr, sets exit
// code 1 and calls no stop(), so only what the engine left open can keep the process alive.
import { startupOptions } from './startup-child-options.mjs';

const { BroadcastEngine } = await import(process.env.BROADCAST_LIB);
const engine = new BroadcastEngine(
  await startupOptions(new URL('locks.js', process.env.BROADCAST_LIB).href),
);
engine.on('startup.news', () => undefined);
if (process.env.STARTUP_CATCH) {
  try {
    await engine.start();
    console.log('started');
    await engine.stop();
  } catch (error) {
    console.error(`start failed: ${error.message}`);
    console.error(`status after the failed start: ${engine.status().state}`);
    process.exitCode = 1;
  }
} else {
  await engine.start();
  console.log('started');
  await engine.stop();
}
