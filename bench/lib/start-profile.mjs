#!/usr/bin/env node
// Where the client CPU of bench 2 goes: N engines of a build starting at once with PostgreSQL
// locks (as bench/ab-twenty.mjs runs them) and N raw consumers of the same client (R), each
// profiled with the V8 sampling profiler around the starts only, --reps times each after one
// warm-up. Prints the top self-time and total-time functions of each side in ms per start, and
// those ours spends more on than R.
//
//   KAFKA_BROKERS=… node bench/lib/start-profile.mjs --lib=<dist/esm/index.js> [--client=platformatic]
//     [--reps=4] [--n=20] [--top=40] [--interval=500 (µs)] [--save=<dir>]   (--save writes the .cpuprofile files)
//     [--heartbeat-record]   (one record in the heartbeat topic first, as in a running deployment)
import { Session } from 'node:inspector/promises';
import { mkdir, writeFile } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { parseArgs } from 'node:util';
import net from 'node:net';
import {
  cleanupPrefix,
  createTopics,
  findBroker,
  newDataSource,
  newRunId,
  rawKafka,
  sleep,
} from './common.mjs';
import { startRaw } from './sides.mjs';
import { HEARTBEAT_TOPIC, engineTopics, loadBuild } from './ours.mjs';

const { values: args } = parseArgs({
  options: {
    lib: { type: 'string' },
    client: { type: 'string', default: 'kafkajs' },
    reps: { type: 'string', default: '4' },
    n: { type: 'string', default: '20' },
    top: { type: 'string', default: '40' },
    save: { type: 'string' },
    interval: { type: 'string', default: '500' },
    'heartbeat-record': { type: 'boolean', default: false },
  },
});
const N = Number(args.n);
const CLIENT = args.client;
const build = await loadBuild(
  pathToFileURL(resolve(args.lib ?? 'libs/broadcast/dist/esm/index.js')).href,
);
const broker = await findBroker();
const brokers = broker.brokers;
const prefix = `${newRunId()}-prof-`;
const TOPIC = 'ready';
await createTopics(brokers, engineTopics(prefix, TOPIC));
if (args['heartbeat-record']) {
  const producer = rawKafka(brokers, 'prof-heartbeat').producer();
  await producer.connect();
  await producer.send({ topic: prefix + HEARTBEAT_TOPIC, messages: [{ value: 'x' }] });
  await producer.disconnect();
}

/** Socket writes and connects while a side starts, by peer (PostgreSQL or Kafka). */
let io = undefined;
const peer = (sock) => (sock.remotePort === 5432 ? 'pg' : 'kafka');
const writeGeneric = net.Socket.prototype._writeGeneric;
net.Socket.prototype._writeGeneric = function (writev, data, encoding, cb) {
  if (io) {
    io[`${peer(this)} writes`] = (io[`${peer(this)} writes`] ?? 0) + 1;
    // A Kafka request frame: int32 size, int16 api key (the first chunk of a writev).
    const first = writev ? (data[0]?.chunk ?? data[0]) : data;
    if (peer(this) === 'kafka' && Buffer.isBuffer(first) && first.length >= 6) {
      const k = `api${first.readInt16BE(4)}`;
      io[k] = (io[k] ?? 0) + 1;
    }
  }
  return writeGeneric.call(this, writev, data, encoding, cb);
};
const connect = net.Socket.prototype.connect;
net.Socket.prototype.connect = function (...a) {
  if (io) {
    const first = Array.isArray(a[0]) ? a[0][0] : a[0];
    const o = typeof first === 'object' ? first : { host: a[1], port: first };
    const k = `connects ${o.host ?? o.path}:${o.port ?? ''}`;
    io[k] = (io[k] ?? 0) + 1;
  }
  return connect.apply(this, a);
};

const session = new Session();
session.connect();
await session.post('Profiler.enable');
await session.post('Profiler.setSamplingInterval', { interval: Number(args.interval) });

async function profiled(fn) {
  await session.post('Profiler.start');
  io = {};
  const cpu0 = process.cpuUsage();
  await fn();
  const cpu = process.cpuUsage(cpu0);
  const counted = io;
  io = undefined;
  const { profile } = await session.post('Profiler.stop');
  return { profile, cpuMs: (cpu.user + cpu.system) / 1000, io: counted };
}

async function ours(i) {
  const dataSources = await Promise.all(Array.from({ length: N }, () => newDataSource()));
  const engines = dataSources.map((dataSource, j) =>
    build
      .createEngine({ brokers, prefix, dataSource, client: CLIENT, clientId: `prof-${i}-${j}` })
      .on(TOPIC, () => {}),
  );
  try {
    return await profiled(() => Promise.all(engines.map((e) => e.start())));
  } finally {
    await Promise.all(engines.map((e) => e.stop()));
    await Promise.all(dataSources.map((d) => d.destroy()));
  }
}

async function raw(i) {
  let consumers;
  try {
    return await profiled(async () => {
      consumers = Array.from({ length: N }, (_, j) =>
        startRaw(CLIENT, {
          brokers,
          prefix,
          topics: engineTopics(prefix, TOPIC),
          clientId: `prof-R-${i}-${j}`,
        }),
      );
      await Promise.all(consumers.map((c) => c.ready));
    });
  } finally {
    await Promise.all(consumers.map((c) => c.stop()));
  }
}

/** self and total µs by function (name + place), summed over profiles. */
function aggregate(profiles) {
  const self = new Map();
  const total = new Map();
  for (const p of profiles) {
    const byId = new Map(p.nodes.map((n) => [n.id, n]));
    const parent = new Map();
    for (const n of p.nodes) for (const c of n.children ?? []) parent.set(c, n.id);
    const dt = new Map();
    for (let k = 0; k < p.samples.length; k++)
      dt.set(p.samples[k], (dt.get(p.samples[k]) ?? 0) + (p.timeDeltas[k + 1] ?? 0));
    const key = (n) => {
      const f = n.callFrame;
      const url = f.url
        .replace(/^file:\/\//, '')
        .replace(/.*node_modules\//, 'nm/')
        .replace(/.*\/dist\/esm\//, 'lib/');
      return `${f.functionName || '(anon)'} ${url}:${f.lineNumber + 1}`;
    };
    for (const [id, us] of dt) {
      const n = byId.get(id);
      self.set(key(n), (self.get(key(n)) ?? 0) + us);
      const seen = new Set();
      for (let x = id; x !== undefined; x = parent.get(x)) {
        const k = key(byId.get(x));
        if (seen.has(k)) continue;
        seen.add(k);
        total.set(k, (total.get(k) ?? 0) + us);
      }
    }
  }
  return { self, total };
}

const sides = { ours: [], R: [] };
try {
  await ours('w');
  await raw('w');
  for (let i = 0; i < Number(args.reps); i++) {
    sides.ours.push(await ours(i));
    await sleep(300);
    sides.R.push(await raw(i));
    await sleep(300);
  }
} finally {
  await session.post('Profiler.disable');
  await cleanupPrefix(brokers, prefix);
  await broker.stop();
}

if (args.save) {
  await mkdir(args.save, { recursive: true });
  for (const [s, xs] of Object.entries(sides))
    for (const [i, x] of xs.entries())
      await writeFile(join(args.save, `${CLIENT}-${s}-${i}.cpuprofile`), JSON.stringify(x.profile));
}
const per = (us, s) => us / 1000 / N / sides[s].length;
const agg = Object.fromEntries(
  Object.entries(sides).map(([s, xs]) => [s, aggregate(xs.map((x) => x.profile))]),
);
const TOP = Number(args.top);
/** Self time by where the code lives: the library, each package, Node's own, native, GC, idle. */
const where = (k) => {
  const place = k.slice(k.indexOf(' ') + 1);
  if (k.startsWith('(idle)')) return '(idle)';
  if (k.startsWith('(garbage collector)')) return '(gc)';
  if (place.startsWith('lib/')) return 'library: ' + place.split('/').slice(1, -1).join('/');
  if (place.startsWith('nm/'))
    return place
      .split('/')
      .slice(1, place.startsWith('nm/@') ? 3 : 2)
      .join('/');
  if (place.startsWith('node:')) return 'node:';
  if (place.startsWith(':0')) return 'native/(program)';
  return place.replace(/:\d+$/, '');
};
for (const s of ['ours', 'R']) {
  const by = new Map();
  for (const [k, us] of agg[s].self) by.set(where(k), (by.get(where(k)) ?? 0) + us);
  console.log(`\n== ${s}: self time by place (ms per start)`);
  for (const [k, us] of [...by].sort((a, b) => b[1] - a[1]).slice(0, 25))
    console.log(`${per(us, s).toFixed(3).padStart(8)}  ${k}`);
}
for (const s of ['ours', 'R']) {
  const cpu = sides[s].map((x) => (x.cpuMs / N).toFixed(2)).join(' ');
  console.log(`\n== ${s} (${CLIENT}): process CPU ms/start per rep: ${cpu}`);
  const io = {};
  for (const x of sides[s]) for (const [k, v] of Object.entries(x.io)) io[k] = (io[k] ?? 0) + v;
  console.log(
    `   per start: ${Object.entries(io)
      .map(([k, v]) => `${k} ${(v / N / sides[s].length).toFixed(1)}`)
      .join(', ')}`,
  );
  for (const kind of ['self', 'total']) {
    console.log(`-- top ${kind} (ms per start)`);
    const rows = [...agg[s][kind]].sort((a, b) => b[1] - a[1]).slice(0, TOP);
    for (const [k, us] of rows) console.log(`${per(us, s).toFixed(3).padStart(8)}  ${k}`);
  }
}
for (const kind of ['self', 'total']) {
  console.log(`\n== ${kind}: ours minus R (ms per start)`);
  const keys = new Set([...agg.ours[kind].keys(), ...agg.R[kind].keys()]);
  const rows = [...keys]
    .map((k) => [k, per(agg.ours[kind].get(k) ?? 0, 'ours'), per(agg.R[kind].get(k) ?? 0, 'R')])
    .sort((a, b) => b[1] - b[2] - (a[1] - a[2]))
    .slice(0, TOP);
  for (const [k, o, r] of rows)
    console.log(`${o.toFixed(3).padStart(8)} ${r.toFixed(3).padStart(8)}  ${k}`);
}
process.exit(0);
