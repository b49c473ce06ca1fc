// A plain Node app in ESM that publishes around its engine's stop(), as an app's request still in
// flight during SIGTERM does. Used by test/faults/stop-publish.spec.ts.
//
//   BROADCAST_LIB=<file URL of dist/index.js> STARTUP_OPTIONS='<json>' STOP_PUBLISH=after|during \
//     node test/support/nest/stop-publish-child.mjs
//
// after:  publishes { n: 1 }, awaits stop(), then publishes { n: 2 }.
// during: publishes { n: 1 }, calls stop() and, without awaiting it, publishes { n: 2 }.
// stdout, one line each: 'published 1', 'stopped', then 'n=2 resolved' or 'n=2 refused: <message>'
// (in the order they happened), and last 'done at <epoch ms>'. It never calls process.exit: the
// process must end by itself.
import { startupOptions } from './startup-child-options.mjs';

const { BroadcastEngine } = await import(process.env.BROADCAST_LIB);
const engine = new BroadcastEngine(
  await startupOptions(new URL('locks.js', process.env.BROADCAST_LIB).href),
);
engine.on('stop.news', () => undefined);
await engine.start();

const publishSecond = () =>
  engine.publisher.publish('stop.news', { n: 2 }).then(
    () => console.log('n=2 resolved'),
    (error) => console.log(`n=2 refused: ${error?.message ?? error}`),
  );

await engine.publisher.publish('stop.news', { n: 1 });
console.log('published 1');
if (process.env.STOP_PUBLISH === 'during') {
  const stopping = engine.stop().then(() => console.log('stopped'));
  await Promise.all([stopping, publishSecond()]);
} else {
  await engine.stop();
  console.log('stopped');
  await publishSecond();
}
console.log(`done at ${Date.now()}`);
