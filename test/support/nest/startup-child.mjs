// A plain Node app in ESM, as a user writes one: top-level await on start(), nothing else keeping
// the process alive. Used by test/module/startup-process.spec.ts.
//
//   BROADCAST_LIB=<file URL of dist/index.js> STARTUP_OPTIONS='<json>' node test/support/nest/startup-child.mjs
//
// stdout: the engine's own lines (its default console logger), then 'started' once start()
// resolved; it stops and ends then. A failed start() is the uncaught error of the top-level await.
import { startupOptions } from './startup-child-options.mjs';

const { BroadcastEngine } = await import(process.env.BROADCAST_LIB);
const engine = new BroadcastEngine(
  await startupOptions(new URL('locks.js', process.env.BROADCAST_LIB).href),
);
engine.on('startup.news', () => undefined);
await engine.start();
console.log('started');
await engine.stop();
