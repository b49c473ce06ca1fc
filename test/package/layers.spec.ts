/**
 * The library's folders import one way: the entries (index.ts, engine.ts, … directly in src/) and
 * cli/ → nest/ (the Nest layer) → views/ (the public engine type, read-only views of its parts) →
 * engine/ (the wiring) → adapters/registry.ts (the clients, each loaded on demand) → core/ → the
 * adapters adapters/kafkajs/, adapters/platformatic/, locks/, telemetry/ and testing/ (the
 * in-memory broker) → adapters/shared/ (the Kafka adapters' shared types) → errors/, shared/ →
 * interfaces/. The core sees no adapter (telemetry included): the engine hands it each one through
 * an interface. The contracts (interfaces/, errors/, nest/broadcast.constants.ts) import no core
 * file, and the core's files import each other without a circle, nor do its parts (allocation/,
 * reading/, dispatch/, …). kafkajs is imported only in adapters/kafkajs/, @platformatic/kafka only
 * in adapters/platformatic/, @confluentinc/kafka-javascript only in adapters/confluent/, and the adapters only on demand (so an app installs one client), @nestjs/*
 * only by the Nest layer, and the optional peers only by the entries that need them.
 * A static check of the sources' import statements (no runtime involved).
 */
import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';

const SRC = resolve(import.meta.dirname, '../../libs/broadcast/src');

/** Rank of each folder: a file may import its own folder or a lower rank. */
const RANK: Record<string, number> = {
  // The package's entries, directly in src/: index, engine, locks, microservices, terminus, testing.
  '.': 7,
  cli: 6,
  nest: 5,
  // The public face of the engine and the read-only views of its parts (what the entries name).
  views: 4.5,
  engine: 4,
  // adapters/registry.ts: one row per Kafka client, importing its adapter on demand.
  adapters: 3.5,
  core: 3,
  'adapters/kafkajs': 2,
  'adapters/platformatic': 2,
  'adapters/confluent': 2,
  locks: 2,
  telemetry: 2,
  // The in-memory broker: a KafkaPort like adapters/kafkajs/, shipped only through the testing entry.
  testing: 2,
  // The types both Kafka adapters share.
  'adapters/shared': 1.5,
  errors: 1,
  shared: 1,
  interfaces: 0,
};

/** Adapters of the same rank never import each other, and the core imports none of them. */
const ADAPTERS = new Set([
  'adapters/kafkajs',
  'adapters/platformatic',
  'adapters/confluent',
  'locks',
  'telemetry',
  'testing',
]);

/** The folders of the Kafka adapters, each with the one client package it may import. */
const KAFKA_ADAPTERS: Record<string, string> = {
  'adapters/kafkajs': 'kafkajs',
  'adapters/platformatic': '@platformatic/kafka',
  'adapters/confluent': '@confluentinc/kafka-javascript',
};

/** Files that state a contract: they may not reach into the core. */
const CONTRACTS = (file: string) =>
  ['interfaces', 'errors'].includes(folderOf(file)) ||
  relative(SRC, file) === 'nest/broadcast.constants.ts';

/** Package imports allowed per folder; anything else is refused. */
const PACKAGES: Record<string, RegExp> = {
  '.': /^node:/,
  nest: /^(@nestjs\/(common|core|terminus|microservices|typeorm)(\/.*)?|rxjs|reflect-metadata|node:.*)$/,
  cli: /^(commander|node:.*)$/,
  engine: /^node:/,
  views: /^node:/,
  adapters: /^node:/,
  core: /^node:/,
  'adapters/kafkajs': /^(kafkajs|node:.*)$/,
  'adapters/platformatic': /^(@platformatic\/kafka|node:.*)$/,
  'adapters/confluent': /^(@confluentinc\/kafka-javascript|node:.*)$/,
  'adapters/shared': /^node:/,
  locks: /^node:/,
  telemetry: /^(@opentelemetry\/api|node:.*)$/,
  testing: /^node:/,
  interfaces: /^node:/,
  errors: /^node:/,
  shared: /^node:/,
};

/** Packages a folder may load on demand only (`await import()`): the CLI's database drivers. */
const ON_DEMAND: Record<string, RegExp> = {
  locks: /^(pg|mysql2\/promise)$/,
};

/** Which Nest-layer files may load each optional peer. */
const OPTIONAL_PEERS: Record<string, string[]> = {
  '@nestjs/terminus': ['nest/terminus/broadcast.health.ts'],
  '@nestjs/microservices': [
    'nest/microservices/broadcast.transport.ts',
    'nest/microservices/broadcast.client.ts',
    'nest/microservices/broadcast.context.ts',
  ],
  '@nestjs/typeorm': ['nest/broadcast.providers.ts'],
};

function sources(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return sources(path);
    return entry.name.endsWith('.ts') && !entry.name.endsWith('.spec.ts') ? [path] : [];
  });
}

/** A file's layer: its folder under src/ ('.' for src/ itself), or adapters/<client>. */
function folderOf(file: string): string {
  const parts = relative(SRC, file).split('/');
  if (parts.length === 1) return '.';
  return parts[0] === 'adapters' && parts.length > 2 ? `adapters/${parts[1]}` : parts[0]!;
}

/** The part of the core a file belongs to: its folder under core/ ('.' for core/ itself). */
function corePartOf(file: string): string {
  return relative(join(SRC, 'core'), dirname(file)) || '.';
}

function importsOf(file: string): string[] {
  return [...staticImportsOf(file), ...dynamicImportsOf(file)];
}

function staticImportsOf(file: string): string[] {
  const text = readFileSync(file, 'utf8');
  return [...text.matchAll(/(?:import|export)[^'"]*?from\s*'([^']+)'/g)].map((m) => m[1]!);
}

function dynamicImportsOf(file: string): string[] {
  const text = readFileSync(file, 'utf8');
  return [...text.matchAll(/import\(\s*'([^']+)'\s*\)/g)].map((m) => m[1]!);
}

/** The source files a file imports (type-only imports included). */
function targetsOf(file: string): string[] {
  return importsOf(file)
    .filter((s) => s.startsWith('.'))
    .map((s) => resolve(dirname(file), s).replace(/\.js$/, '.ts'));
}

/** The circles of a directed graph (its strongly connected components of more than one node). */
function circlesOf(edges: Map<string, Set<string>>): string[][] {
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const circles: string[][] = [];
  const visit = (node: string) => {
    index.set(node, index.size);
    low.set(node, index.get(node)!);
    stack.push(node);
    for (const next of edges.get(node) ?? []) {
      if (!index.has(next)) {
        visit(next);
        low.set(node, Math.min(low.get(node)!, low.get(next)!));
      } else if (stack.includes(next)) {
        low.set(node, Math.min(low.get(node)!, index.get(next)!));
      }
    }
    if (low.get(node) !== index.get(node)) return;
    const circle: string[] = [];
    let member: string;
    do {
      member = stack.pop()!;
      circle.push(member);
    } while (member !== node);
    if (circle.length > 1) circles.push(circle.sort());
  };
  for (const node of edges.keys()) if (!index.has(node)) visit(node);
  return circles;
}

describe('library layering', () => {
  const files = sources(SRC);

  it('finds the sources', () => {
    expect(files.length).toBeGreaterThan(40);
  });

  it('every relative import points to the same folder or a lower layer', () => {
    const upward: string[] = [];
    for (const file of files) {
      const from = folderOf(file);
      for (const specifier of importsOf(file).filter((s) => s.startsWith('.'))) {
        const to = folderOf(resolve(dirname(file), specifier));
        const sideways = ADAPTERS.has(from) && ADAPTERS.has(to);
        if (RANK[from] === undefined || RANK[to] === undefined) {
          upward.push(`${relative(SRC, file)} → ${specifier} (folder without a layer)`);
        } else if (to !== from && (RANK[to]! >= RANK[from]! || sideways)) {
          upward.push(`${relative(SRC, file)} → ${specifier}`);
        }
      }
    }
    expect(upward).toEqual([]);
  });

  it('src/ holds only the entries of package.json exports; the Nest layer lives in nest/', () => {
    const manifest = JSON.parse(readFileSync(join(SRC, '../package.json'), 'utf8')) as {
      exports: Record<string, unknown>;
    };
    const entries = Object.keys(manifest.exports)
      .filter((key) => key !== './package.json')
      .map((key) => (key === '.' ? 'index.ts' : `${key.slice(2)}.ts`));
    const atRoot = files
      .filter((file) => folderOf(file) === '.')
      .map((file) => relative(SRC, file));
    expect(atRoot.sort()).toEqual(entries.sort());
  });

  it('the core reaches no adapter (telemetry included), only their interfaces', () => {
    const reaching = files
      .filter((file) => folderOf(file) === 'core')
      .flatMap((file) =>
        targetsOf(file)
          .filter((target) => ADAPTERS.has(folderOf(target)))
          .map((target) => `${relative(SRC, file)} → ${relative(SRC, target)}`),
      );
    expect(reaching).toEqual([]);
  });

  it('no contract (interfaces/, errors/, the Nest constants) imports the core', () => {
    const reaching = files.filter(CONTRACTS).flatMap((file) =>
      targetsOf(file)
        .filter((target) => folderOf(target) === 'core')
        .map((target) => `${relative(SRC, file)} → ${relative(SRC, target)}`),
    );
    expect(reaching).toEqual([]);
  });

  it('the core files import each other without a circle (type-only imports included)', () => {
    const core = files.filter((file) => folderOf(file) === 'core');
    const edges = new Map(
      core.map((file) => [
        relative(SRC, file),
        new Set(
          targetsOf(file)
            .filter((target) => folderOf(target) === 'core')
            .map((target) => relative(SRC, target)),
        ),
      ]),
    );
    expect(circlesOf(edges)).toEqual([]);
  });

  it("the core's parts (its folders) import each other one way", () => {
    const edges = new Map<string, Set<string>>();
    for (const file of files.filter((f) => folderOf(f) === 'core')) {
      const from = corePartOf(file);
      if (!edges.has(from)) edges.set(from, new Set());
      for (const target of targetsOf(file).filter((t) => folderOf(t) === 'core')) {
        const to = corePartOf(target);
        if (to !== from) edges.get(from)!.add(to);
      }
    }
    expect(edges.size).toBeGreaterThan(6);
    expect(circlesOf(edges)).toEqual([]);
  });

  it('packages are imported only where their layer allows', () => {
    const misplaced: string[] = [];
    for (const file of files) {
      const folder = folderOf(file);
      const onDemand = new Set(dynamicImportsOf(file));
      for (const specifier of importsOf(file).filter((s) => !s.startsWith('.'))) {
        const allowed =
          (PACKAGES[folder] ?? /^$/).test(specifier) ||
          (onDemand.has(specifier) && (ON_DEMAND[folder]?.test(specifier) ?? false));
        if (!allowed) misplaced.push(`${relative(SRC, file)} → ${specifier}`);
        const peer = Object.keys(OPTIONAL_PEERS).find((p) => specifier.startsWith(p));
        const name = relative(SRC, file);
        if (peer && !OPTIONAL_PEERS[peer]!.includes(name)) misplaced.push(`${name} → ${specifier}`);
      }
    }
    expect(misplaced).toEqual([]);
  });

  it('the Kafka adapters are loaded on demand only, each with its own client', () => {
    const adapters = new Set(Object.keys(KAFKA_ADAPTERS));
    const staticallyReached: string[] = [];
    for (const file of files) {
      const from = folderOf(file);
      if (adapters.has(from) || from === 'cli') continue;
      for (const specifier of staticImportsOf(file).filter((s) => s.startsWith('.'))) {
        const to = folderOf(resolve(dirname(file), specifier));
        const typeOnly = new RegExp(
          `import type [^;]*'${specifier.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}'`,
        );
        if (adapters.has(to) && !typeOnly.test(readFileSync(file, 'utf8')))
          staticallyReached.push(`${relative(SRC, file)} → ${specifier}`);
      }
    }
    expect(staticallyReached).toEqual([]);
    const registry = join(SRC, 'adapters/registry.ts');
    expect(dynamicImportsOf(registry)).toEqual([
      './kafkajs/kafkajs.adapter.js',
      './kafkajs/kafkajs-operator.js',
      './platformatic/platformatic.adapter.js',
      './platformatic/platformatic-operator.js',
      './confluent/confluent.adapter.js',
      './confluent/confluent-operator.js',
    ]);
    expect(readFileSync(registry, 'utf8')).not.toMatch(
      /from '\.\/(kafkajs|platformatic|confluent)\//,
    );
    expect(dynamicImportsOf(join(SRC, 'engine/kafka-client.loader.ts'))).toEqual([]);
  });

  it('no file outside adapters/kafkajs/ and adapters/platformatic/ names a client package as a module, not even for a type or in a spec', () => {
    // Every way a file can reach a module: import/export … from, a bare import, import() (also
    // `typeof import()` in a type), require(), and TypeScript's `import x = require()`.
    const specifiers =
      /(?:\bfrom\s*|\bimport\s*\(?\s*|\brequire\s*\(\s*)['"]((?:kafkajs|@platformatic\/kafka)(?:\/[^'"]*)?)['"]/g;
    const everyFile = (dir: string): string[] =>
      readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
        const path = join(dir, entry.name);
        if (entry.isDirectory()) return everyFile(path);
        return /\.[cm]?[tj]s$/.test(entry.name) ? [path] : [];
      });
    const outside: string[] = [];
    for (const file of everyFile(SRC)) {
      const folder = folderOf(file);
      for (const [, specifier] of readFileSync(file, 'utf8').matchAll(specifiers)) {
        const own = specifier!.startsWith('kafkajs') ? 'adapters/kafkajs' : 'adapters/platformatic';
        if (folder !== own) outside.push(`${relative(SRC, file)} → ${specifier}`);
      }
      // Nor any file of an adapter folder, not even for a type: only import() of an adapter
      // (which brings its client along when it is called) is allowed outside the adapters.
      if (KAFKA_ADAPTERS[folder]) continue;
      const text = readFileSync(file, 'utf8');
      for (const [, specifier] of text.matchAll(/\bfrom\s*'(\.[^']*)'/g)) {
        const to = folderOf(resolve(dirname(file), specifier!));
        if (KAFKA_ADAPTERS[to]) outside.push(`${relative(SRC, file)} → ${specifier}`);
      }
    }
    expect(outside).toEqual([]);
  });

  /** Every source file the entry reaches through relative imports. */
  function reachedFrom(entry: string): Set<string> {
    const reached = new Set<string>();
    const visit = (file: string) => {
      if (reached.has(file)) return;
      reached.add(file);
      for (const specifier of importsOf(file).filter((s) => s.startsWith('.'))) {
        visit(resolve(dirname(file), specifier).replace(/\.js$/, '.ts'));
      }
    };
    visit(join(SRC, entry));
    return reached;
  }

  it.each(['index.ts', 'engine.ts', 'testing.ts'])('%s never reaches an optional peer', (entry) => {
    const peersLoaded = [...reachedFrom(entry)].flatMap((file) =>
      readFileSync(file, 'utf8')
        .split('\n')
        .filter((line) => /^import .*'@nestjs\/(terminus|microservices|typeorm)/.test(line))
        .map((line) => `${relative(SRC, file)}: ${line}`),
    );
    expect(peersLoaded).toEqual([]);
  });

  it('only the testing entry reaches the in-memory broker', () => {
    const entries = ['index.ts', 'engine.ts', 'terminus.ts', 'microservices.ts', 'locks.ts'];
    const reached = entries.flatMap((entry) =>
      [...reachedFrom(entry)]
        .filter(
          (file) => folderOf(file) === 'testing' || relative(SRC, file).startsWith('nest/testing/'),
        )
        .map((file) => `${entry} → ${relative(SRC, file)}`),
    );
    expect(reached).toEqual([]);
    expect([...reachedFrom('testing.ts')].some((file) => folderOf(file) === 'testing')).toBe(true);
  });
});
