/**
 * When the Kafka client is loaded, seen from a fresh Node process on the built package: a hook
 * records every module URL Node loads. Importing the package, or running an engine on the
 * in-memory testing Kafka, loads no client; an engine built with `kafka.client` begins loading
 * that client's adapter in the background before start() is called (so the first start does not
 * wait for @platformatic/kafka's import when the app did other work in between), and nothing of
 * the other client.
 */
import { execFile } from 'node:child_process';
import { ensureLibBuilt } from '../support/faults/faults.js';

/** The modules a snippet loaded: `$DIST` is the built dist URL; the snippet prints its result. */
function runLoaded(snippet: string): Promise<{ out: unknown; loaded: string[]; stderr: string }> {
  // ensureLibBuilt names the built entry by its file URL.
  const dist = new URL('.', ensureLibBuilt()).href.replace(/\/$/, '');
  const source = `
import { registerHooks } from 'node:module';
const loaded = [];
registerHooks({ load: (url, context, next) => (loaded.push(url), next(url, context)) });
const out = await (async () => { ${snippet.replaceAll('$DIST', dist)} })();
console.log(JSON.stringify({ out, loaded }));
process.exit(0);
`;
  return new Promise((resolve, reject) =>
    execFile(
      process.execPath,
      ['--input-type=module', '-e', source],
      { timeout: 60_000 },
      (error, stdout, stderr) => {
        if (error) return reject(new Error(`${error.message}\n${stderr}`));
        resolve({ ...(JSON.parse(stdout) as { out: unknown; loaded: string[] }), stderr });
      },
    ),
  );
}

const PLATFORMATIC = /\/node_modules\/@platformatic\/kafka\/dist\/index\.js$/;
const KAFKAJS = /\/node_modules\/kafkajs\//;
const ADAPTER = /\/adapters\/platformatic\/platformatic\.adapter\.js$/;
const clients = (loaded: string[]) => loaded.filter((u) => PLATFORMATIC.test(u) || KAFKAJS.test(u));

describe('when the Kafka client is loaded (built package, fresh process)', () => {
  it('importing the package loads no client', async () => {
    const run = await runLoaded(`
      for (const entry of ['index', 'engine', 'testing']) await import('$DIST/' + entry + '.js');`);
    expect(run.loaded.some((u) => u.endsWith('/dist/index.js'))).toBe(true);
    expect(clients(run.loaded)).toEqual([]);
  });

  it('an engine on the in-memory testing Kafka loads no client, started or not', async () => {
    const run = await runLoaded(`
      const { BroadcastEngine } = await import('$DIST/engine.js');
      const { InMemoryKafka } = await import('$DIST/testing.js');
      const quiet = { log() {}, warn() {}, error() {} };
      const engine = new BroadcastEngine(
        { kafka: { brokers: ['in-memory'], client: 'platformatic' }, lock: false },
        { kafka: new InMemoryKafka().port(), logger: quiet },
      );
      const got = new Promise((resolve) => engine.on('ping', resolve));
      await engine.start();
      await engine.publisher.publish('ping', { n: 1 });
      const payload = await got;
      await engine.stop();
      return payload;`);
    expect(run.out).toEqual({ n: 1 });
    expect(clients(run.loaded)).toEqual([]);
  });

  it('an engine built with kafka.client begins loading that client before start(), and only it', async () => {
    // Never started: the adapter and @platformatic/kafka load in the background all the same
    // (polled, not waited for: the count of loaded modules is checked until it includes them).
    const run = await runLoaded(`
      const { BroadcastEngine } = await import('$DIST/engine.js');
      const quiet = { log() {}, warn() {}, error() {} };
      const engine = new BroadcastEngine(
        { kafka: { brokers: ['127.0.0.1:1'], client: 'platformatic' }, lock: false },
        { logger: quiet },
      );
      const seen = () => loaded.some((u) => ${PLATFORMATIC}.test(u)) && loaded.some((u) => ${ADAPTER}.test(u));
      for (let i = 0; i < 6000 && !seen(); i++) await new Promise((r) => setTimeout(r, 10));
      await engine.stop();
      return seen();`);
    expect(run.out, run.stderr).toBe(true);
    expect(run.loaded.filter((u) => KAFKAJS.test(u))).toEqual([]);
  });
});
