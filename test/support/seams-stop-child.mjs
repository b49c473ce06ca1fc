// One engine in its own Node process that stops itself at a chosen startup step (through the
// engine's internal test hook `probe`) and then does NOT call process.exit: the process must end
// by itself, which proves that stop() left no consumer, socket, timer or pool keeping it alive.
// Used by test/seams-stop.spec.ts.
//
//   node test/support/seams-stop-child.mjs '{"brokers":[...],"prefix":"...","lock":"postgres"|"none","step":"connect"}'
//
// stdout: 'reached <step>' when the step began, then 'stopped' once stop() resolved.
import { DataSource } from 'typeorm';

const { BroadcastEngine } = await import(process.env.BROADCAST_LIB || 'nestjs-kafka-broadcast');
const config = JSON.parse(process.argv[2]);

const dataSource =
  config.lock === 'postgres'
    ? await new DataSource({
        type: 'postgres',
        host: '127.0.0.1',
        port: 5432,
        username: 'postgres',
        database: 'test',
        applicationName: 'seams-stop-child',
      }).initialize()
    : undefined;

const quiet = { log: () => undefined, warn: () => undefined, error: () => undefined };
let stopping;
const engine = new BroadcastEngine(
  {
    kafka: { brokers: config.brokers, clientId: `seams-stop-${process.pid}` },
    topicPrefix: config.prefix,
    consumer: { sessionTimeoutMs: 6000, heartbeatIntervalMs: 500, maxWaitTimeMs: 100 },
    heartbeat: { intervalMs: 1000 },
    lock: config.lock === 'none' ? false : { checkIntervalMs: 100 },
    startupTimeoutMs: 20_000,
  },
  {
    dataSource,
    logger: quiet,
    probe: (step) => {
      if (step !== config.step || stopping) return;
      process.stdout.write(`reached ${step}\n`);
      stopping = engine.stop();
    },
  },
);
engine.on('seams.child', () => undefined);
await engine.start().catch(() => undefined);
if (!stopping) process.stdout.write(`step ${config.step} never reached\n`);
await (stopping ?? engine.stop());
await dataSource?.destroy();
process.stdout.write('stopped\n');
