// A plain Node app in CommonJS, as a user writes one: `void engine.start()`, nothing else keeping
// the process alive. Used by test/module/startup-process.spec.ts.
//
//   BROADCAST_LIB_CJS=<path of the CommonJS dist/index.js> STARTUP_OPTIONS='<json>' node test/support/nest/startup-child.cjs
//
// A failed start() is an unhandled rejection (Node prints it and exits 1). STARTUP_STOP_AFTER_START
// set: it prints 'started' and stops once start() resolved.
const { join, dirname } = require('node:path');
const { BroadcastEngine } = require(process.env.BROADCAST_LIB_CJS);

const options = JSON.parse(process.env.STARTUP_OPTIONS);
if (process.env.STARTUP_PG_LOCKS) {
  const { Pool } = require('pg');
  const { pgAdvisoryLocks } = require(join(dirname(process.env.BROADCAST_LIB_CJS), 'locks.js'));
  const pool = new Pool({
    host: '127.0.0.1',
    port: 5432,
    user: 'postgres',
    database: 'test',
    application_name: process.env.STARTUP_PG_LOCKS,
  });
  options.lock = { ...options.lock, provider: pgAdvisoryLocks(pool) };
}
const engine = new BroadcastEngine(options);
engine.on('startup.news', () => undefined);
if (process.env.STARTUP_STOP_AFTER_START)
  void engine.start().then(() => {
    console.log('started');
    return engine.stop();
  });
else void engine.start();
