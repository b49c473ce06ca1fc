/**
 * @opentelemetry/api is an optional peer: the built library, with every dependency it has
 * except @opentelemetry/*, starts an engine, publishes and handles against the real broker.
 */
import { execFile } from 'node:child_process';
import {
  cpSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { ensureLibBuilt } from '../support/faults/faults.js';
import { kafkaClients } from '../support/broker/kafka-clients.js';
import { kafkaBrokers, newAdmin, testPrefix } from '../support/broker/kafka.js';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const prefix = testPrefix('otel-optional');
let dir: string;

afterAll(async () => {
  if (dir) rmSync(dir, { recursive: true, force: true });
  const admin = await newAdmin();
  try {
    const groups = (await admin.listGroups()).groups
      .map((g) => g.groupId)
      .filter((g) => g.startsWith(prefix));
    if (groups.length) await admin.deleteGroups(groups);
    const topics = (await admin.listTopics()).filter((t) => t.startsWith(prefix));
    if (topics.length) await admin.deleteTopics({ topics });
  } finally {
    await admin.disconnect();
  }
});

/** An app folder whose node_modules links every installed package but @opentelemetry/*. */
function appWithoutOpenTelemetry(): string {
  if (dir) return dir;
  const built = dirname(dirname(fileURLToPath(ensureLibBuilt())));
  dir = mkdtempSync(join(tmpdir(), 'nkb-no-otel-'));
  const modules = join(dir, 'node_modules');
  mkdirSync(modules);
  for (const name of readdirSync(join(ROOT, 'node_modules'))) {
    if (name === '@opentelemetry' || name === 'nestjs-kafka-broadcast' || name === '.bin') continue;
    symlinkSync(join(ROOT, 'node_modules', name), join(modules, name));
  }
  const pkg = join(modules, 'nestjs-kafka-broadcast');
  cpSync(built, pkg, { recursive: true });
  // The private build is flat (dist/engine.js), not the published dist/esm + dist/cjs layout.
  writeFileSync(
    join(pkg, 'package.json'),
    JSON.stringify({
      name: 'nestjs-kafka-broadcast',
      type: 'module',
      exports: { '.': './dist/index.js', './engine': './dist/engine.js' },
    }),
  );
  writeFileSync(join(dir, 'package.json'), '{ "type": "module" }');
  return dir;
}

const SCRIPT = `
import { BroadcastEngine } from 'nestjs-kafka-broadcast/engine';
let missing = false;
try { await import('@opentelemetry/api'); } catch { missing = true; }
const warnings = [];
const logger = { log() {}, debug() {}, warn: (m) => warnings.push(m), error: (m) => warnings.push(m) };
const engine = new BroadcastEngine(
  { kafka: { client: process.env.CLIENT, brokers: process.env.BROKERS.split(',') }, topicPrefix: process.env.PREFIX, lock: false, heartbeat: false,
    consumer: { sessionTimeoutMs: 6000, heartbeatIntervalMs: 500, maxWaitTimeMs: 100 } },
  { logger },
);
let got;
const handled = new Promise((resolve) => engine.on('news', (payload) => resolve((got = payload))));
await engine.start();
await engine.publisher.publish('news', { n: 1 });
await handled;
await engine.stop();
console.log(JSON.stringify({ missing, got, warnings }));
`;

describe.each(kafkaClients())('without @opentelemetry/api installed, %s client', (client) => {
  it('the built library starts, publishes and handles, silently uninstrumented', async () => {
    const app = appWithoutOpenTelemetry();
    writeFileSync(join(app, 'main.mjs'), SCRIPT);
    const out = await new Promise<string>((resolve, reject) =>
      execFile(
        process.execPath,
        ['main.mjs'],
        {
          cwd: app,
          env: {
            ...process.env,
            CLIENT: client,
            BROKERS: kafkaBrokers().join(','),
            PREFIX: `${prefix}${client}.`,
          },
          timeout: 90_000,
        },
        (error, stdout, stderr) =>
          error ? reject(new Error(`${error.message}\n${stderr}`)) : resolve(stdout),
      ),
    );
    expect(JSON.parse(out)).toEqual({ missing: true, got: { n: 1 }, warnings: [] });
  });
});
