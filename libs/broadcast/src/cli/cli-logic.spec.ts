import type { Command } from 'commander';
import { encodeMemberInfo } from '../core/features/roster/member-info.js';
import type {
  OperatorKafkaPort,
  OperatorReadOptions,
} from '../interfaces/broadcast-operator.interface.js';
import type { BroadcastReceipt } from '../interfaces/broadcast-receipt.interface.js';
import type { KafkaAdminPort } from '../interfaces/kafka-port.interface.js';
import { planCleanup } from './cleanup-plan.js';
import { checkDatabaseDriver } from './database-driver.js';
import { parseDuration } from './duration.js';
import { ENVIRONMENT, kafkaSecurityFromEnv } from './environment.js';
import { parsePoolGroup, type PoolGroup } from './pool-groups.js';
import { createProgram } from './program.js';
import { parsePublishRequest, type PublishInput } from './publish-request.js';
import { publishWithReceipts } from './publish-receipts.js';
import { formatReceipt, receiptProblem } from './receipt-report.js';
import { deriveRoster } from './roster.js';
import { formatTable } from './table.js';

const member = (n: number) => ({ memberId: `m${n}`, clientId: `c${n}`, clientHost: `h${n}` });
const group = (base: string, id: number, members: number, state = 'Stable'): PoolGroup => ({
  groupId: `p.${base}-${id}`,
  base,
  id,
  state: members === 0 ? 'Empty' : state,
  members: Array.from({ length: members }, (_, i) => member(id * 10 + i)),
});

describe('parsePoolGroup', () => {
  it('matches <prefix><base>-<n> only', () => {
    const bases = ['broadcastConsumer', 'broadcastLFConsumer'];
    expect(parsePoolGroup('p.broadcastConsumer-12', 'p.', bases)).toEqual({
      base: 'broadcastConsumer',
      id: 12,
    });
    expect(parsePoolGroup('p.broadcastLFConsumer-0', 'p.', bases)?.base).toBe(
      'broadcastLFConsumer',
    );
    for (const other of [
      'pXbroadcastConsumer-1',
      'p.broadcastConsumer-',
      'p.broadcastConsumer-1x',
      'p.news.tail-h-1-abc',
    ])
      expect(parsePoolGroup(other, 'p.', bases)).toBeUndefined();
  });
});

describe('deriveRoster', () => {
  it('counts a group with exactly one member as one live instance', () => {
    const roster = deriveRoster(
      [
        group('b', 0, 1),
        group('b', 1, 2, 'PreparingRebalance'),
        group('b', 2, 0),
        group('b', 3, 1),
      ],
      new Map([['p.b-3', 'api-7']]),
    );
    expect(roster.map((r) => [r.groupId, r.instance])).toEqual([
      ['p.b-0', undefined],
      ['p.b-3', 'api-7'],
    ]);
  });
});

describe('planCleanup', () => {
  it('deletes empty groups above the high-water mark per base and empty retired groups, never one with a member', () => {
    const pool = [
      group('b', 0, 1),
      group('b', 1, 0),
      group('b', 4, 1),
      group('b', 9, 0),
      group('lf', 2, 0),
    ];
    const retired = [
      { groupId: 'old.x-1', state: 'Empty', members: [] },
      { groupId: 'old.x-2', state: 'Stable', members: [member(1)] },
    ];
    const plan = new Map(planCleanup(pool, retired).map((i) => [i.groupId, i.delete]));
    expect(Object.fromEntries(plan)).toEqual({
      'p.b-0': false,
      'p.b-1': false, // below the mark: reused by lowest-first allocation
      'p.b-4': false,
      'p.b-9': true,
      'p.lf-2': true, // no member in that base: mark -1
      'old.x-1': true,
      'old.x-2': false,
    });
  });
});

describe('planCleanup of a lock-free base', () => {
  it('deletes every empty group, below the highest live id too: lock-free ids are spread over the pool', () => {
    const pool = [group('lf', 50, 0), group('lf', 177, 1), group('lf', 190, 0), group('b', 1, 0)];
    const items = planCleanup(pool, [], ['lf']);
    expect(items.map((i) => [i.groupId, i.delete, i.reason])).toEqual([
      ['p.lf-50', true, 'empty lock-free pool group'],
      ['p.lf-177', false, 'has members'],
      ['p.lf-190', true, 'empty lock-free pool group'],
      ['p.b-1', true, 'above high-water mark -1'],
    ]);
  });
});

describe('planCleanup of groups the client cannot describe', () => {
  it('keeps them, naming --client platformatic, and counts them for the high-water mark', () => {
    const unknown = (groupId: string) => ({ groupId, state: 'Unknown', members: [] });
    const pool = [group('b', 1, 0), { ...unknown('p.b-5'), base: 'b', id: 5 }, group('b', 9, 0)];
    const items = planCleanup(pool, [unknown('old.x-1')]);
    expect(items.map((i) => [i.groupId, i.delete, i.reason])).toEqual([
      ['p.b-1', false, 'at or below high-water mark 5'],
      ['p.b-5', false, expect.stringContaining('--client platformatic')],
      ['p.b-9', true, 'above high-water mark 5'],
      ['old.x-1', false, expect.stringContaining('--client platformatic')],
    ]);
  });
});

describe('parseDuration', () => {
  it('reads ms, s, m, h, d and names the option otherwise', () => {
    expect([
      parseDuration('--since', '500ms'),
      parseDuration('--since', '5m'),
      parseDuration('--since', '2h'),
    ]).toEqual([500, 300_000, 7_200_000]);
    expect(() => parseDuration('--since', '5 minutes')).toThrow(
      "--since must be a duration like 30s, 5m or 2h, got '5 minutes'",
    );
  });
});

describe('formatTable', () => {
  it('pads columns to their widest cell', () => {
    expect(
      formatTable(
        ['A', 'BB'],
        [
          ['xxx', 'y'],
          ['z', 'wwww'],
        ],
      ),
    ).toBe('A    BB\nxxx  y\nz    wwww');
  });
});

/** What commander hands over for `publish <topic> <json>` without options. */
const noInput: PublishInput = {};

describe('parsePublishRequest', () => {
  it('reads --to-instances and --to-services (commas or repeated) into one target, and --receipts', () => {
    const request = parsePublishRequest('{"n": 1}', {
      key: 'k',
      header: ['origin=cli', 'x=a=b'],
      toInstances: ['a1, a2', 'a3'],
      toServices: ['billing'],
      receipts: '5s',
    });
    expect(request).toEqual({
      value: '{"n": 1}',
      key: 'k',
      headers: { origin: 'cli', x: 'a=b' },
      to: { instances: ['a1', 'a2', 'a3'], services: ['billing'] },
      receipts: { timeoutMs: 5_000, topic: 'broadcast.receipts.v1' },
    });
    expect(parsePublishRequest('1', noInput)).toEqual({
      value: '1',
      key: null,
      headers: {},
      to: undefined,
      receipts: undefined,
    });
    expect(parsePublishRequest('1', { ...noInput, toServices: ['svc'] }).to).toEqual({
      services: ['svc'],
    });
    const bare = parsePublishRequest('1', { ...noInput, receipts: true, receiptsTopic: 'acks' });
    expect(bare.receipts).toEqual({ timeoutMs: 10_000, topic: 'acks' });
    expect(parsePublishRequest('1', { ...noInput, receipts: '2500' }).receipts?.timeoutMs).toBe(
      2_500,
    );
  });

  it('names the option and what it accepts for every bad value', () => {
    const refused: [Partial<PublishInput>, string][] = [
      [{ header: ['novalue'] }, "--header must be name=value, got 'novalue'"],
      [
        { toInstances: ['a b'] },
        "--to-instances takes instance ids separated by commas (letters, digits, '.', '_' and '-'), got 'a b'",
      ],
      [{ toServices: [' , '] }, '--to-services names no service'],
      [
        { receipts: 'soon' },
        "--receipts takes a timeout in milliseconds (e.g. 5000) or a duration like 30s or 2m, got 'soon'",
      ],
      [
        { receipts: '0' },
        "--receipts takes a timeout in milliseconds (e.g. 5000) or a duration like 30s or 2m, got '0'",
      ],
      [{ receiptsTopic: 'acks' }, '--receipts-topic applies only with --receipts'],
      [{ receipts: true, receiptsTopic: '' }, '--receipts-topic must name a topic'],
    ];
    for (const [input, message] of refused)
      expect(() => parsePublishRequest('{}', { ...noInput, ...input })).toThrow(message);
    expect(() => parsePublishRequest('{not json', noInput)).toThrow(/^<json> is not valid JSON: /);
  });
});

describe('checkDatabaseDriver', () => {
  const notFound = (name: string) =>
    Object.assign(new Error(`Cannot find package '${name}' imported from /x/cli/main.js`), {
      code: 'ERR_MODULE_NOT_FOUND',
    });

  it('names the package to install for the URL scheme, without echoing the URL', () => {
    const resolved: string[] = [];
    const missing = (specifier: string): string => {
      resolved.push(specifier);
      throw notFound(specifier.split('/')[0]!);
    };
    const cases = [
      [
        'postgres://u:secret@db/x',
        "pool --database-url postgres://… needs the 'pg' package: npm install pg",
      ],
      [
        'postgresql://db/x',
        "pool --database-url postgresql://… needs the 'pg' package: npm install pg",
      ],
      [
        'mysql://db/x',
        "pool --database-url mysql://… needs the 'mysql2' package: npm install mysql2",
      ],
      [
        'MariaDB://db/x',
        "pool --database-url mariadb://… needs the 'mysql2' package: npm install mysql2",
      ],
    ] as const;
    for (const [url, message] of cases)
      expect(() => checkDatabaseDriver(url, missing)).toThrow(message);
    expect(resolved).toEqual(['pg', 'pg', 'mysql2/promise', 'mysql2/promise']);
    expect(() => checkDatabaseDriver('postgres://db/x', () => 'file:///pg/index.js')).not.toThrow();
  });

  it('refuses another scheme, and lets any other resolution error through', () => {
    expect(() => checkDatabaseDriver('user:secret@db/x', () => '')).toThrow(
      '--database-url must start with postgres://, postgresql://, mysql:// or mariadb://, got no scheme',
    );
    expect(() => checkDatabaseDriver('sqlite://x.db', () => '')).toThrow(
      "--database-url must start with postgres://, postgresql://, mysql:// or mariadb://, got 'sqlite://'",
    );
    // pg is there but one of its own dependencies is not: that is no "install pg" case.
    expect(() =>
      checkDatabaseDriver('postgres://db/x', () => {
        throw notFound('pg-protocol');
      }),
    ).toThrow("Cannot find package 'pg-protocol'");
  });
});

describe('kafkaSecurityFromEnv', () => {
  it('reads TLS and SASL, and names the variable of a bad value', () => {
    expect(kafkaSecurityFromEnv({})).toEqual({});
    expect(kafkaSecurityFromEnv({ KAFKA_SSL: 'TRUE' })).toEqual({ ssl: true });
    expect(kafkaSecurityFromEnv({ KAFKA_SSL: 'false' })).toEqual({});
    expect(
      kafkaSecurityFromEnv({
        KAFKA_SASL_MECHANISM: 'SCRAM-SHA-512',
        KAFKA_SASL_USERNAME: 'u',
        KAFKA_SASL_PASSWORD: 'p',
      }),
    ).toEqual({ sasl: { mechanism: 'scram-sha-512', username: 'u', password: 'p' } });
    const refused: [NodeJS.ProcessEnv, string][] = [
      [{ KAFKA_SSL: 'yes' }, "KAFKA_SSL must be true or false, got 'yes'"],
      [
        { KAFKA_SSL_CA_FILE: '/nonexistent/ca.pem' },
        "KAFKA_SSL_CA_FILE must name a readable PEM file, got '/nonexistent/ca.pem'",
      ],
      [
        { KAFKA_SASL_MECHANISM: 'gssapi' },
        "KAFKA_SASL_MECHANISM must be plain, scram-sha-256 or scram-sha-512, got 'gssapi'",
      ],
      [
        { KAFKA_SASL_USERNAME: 'u', KAFKA_SASL_PASSWORD: 'p' },
        "KAFKA_SASL_MECHANISM must be plain, scram-sha-256 or scram-sha-512, got ''",
      ],
      [
        { KAFKA_SASL_MECHANISM: 'plain', KAFKA_SASL_PASSWORD: 'secret' },
        'KAFKA_SASL_USERNAME and KAFKA_SASL_PASSWORD are both required',
      ],
    ];
    for (const [env, message] of refused) {
      expect(() => kafkaSecurityFromEnv(env)).toThrow(message);
      try {
        kafkaSecurityFromEnv(env);
      } catch (error) {
        expect((error as Error).message).not.toContain('secret');
      }
    }
  });
});

describe('the command line', () => {
  const program = createProgram();
  const command = (name: string) => program.commands.find((c) => c.name() === name)!;
  /** The options --help shows. */
  const shown = (c: Command) =>
    c.options
      .filter((o) => !o.hidden)
      .map((o) => o.long!)
      .sort();

  it('offers each option only where it applies', () => {
    const connection = ['--brokers', '--client', '--json', '--prefix'];
    expect(shown(command('pool'))).toEqual(
      [...connection, '--base', '--database-url', '--heartbeats'].sort(),
    );
    expect(shown(command('roster'))).toEqual([...connection, '--base', '--heartbeats'].sort());
    expect(shown(command('cleanup'))).toEqual(
      [...connection, '--base', '--retired-prefix', '--yes'].sort(),
    );
    expect(shown(command('tail'))).toEqual([...connection, '--max', '--since'].sort());
    // Documented for every command once: still accepted where it means nothing, but hidden.
    for (const name of ['tail', 'publish'])
      expect(command(name).options.find((o) => o.long === '--base')?.hidden).toBe(true);
    expect(shown(command('publish'))).toEqual(
      [
        ...connection,
        '--header',
        '--key',
        '--receipts',
        '--receipts-topic',
        '--to-instances',
        '--to-services',
      ].sort(),
    );
  });

  it('lists every environment variable the CLI reads, one line each, in every --help', () => {
    expect(ENVIRONMENT.map((v) => v.name)).toEqual([
      'KAFKA_BROKERS',
      'KAFKA_CLIENT',
      'BROADCAST_TOPIC_PREFIX',
      'KAFKA_SSL',
      'KAFKA_SSL_CA_FILE',
      'KAFKA_SASL_MECHANISM',
      'KAFKA_SASL_USERNAME',
      'KAFKA_SASL_PASSWORD',
    ]);
    for (const c of [program, ...program.commands.filter((c) => c.name() !== 'help')]) {
      let help = '';
      c.configureOutput({ writeOut: (text) => (help += text) });
      c.outputHelp();
      const section = help.slice(help.indexOf('Environment variables:'));
      for (const { name } of ENVIRONMENT)
        expect(section, `${c.name()} --help`).toMatch(new RegExp(`^  ${name} +\\S.*$`, 'm'));
    }
  });

  it('publish --help shows --to and --receipts with an example', () => {
    let help = '';
    command('publish').configureOutput({ writeOut: (text) => (help += text) });
    command('publish').outputHelp();
    expect(help).toMatch(/--to-instances <ids>/);
    expect(help).toMatch(/--to-services <names>/);
    expect(help).toMatch(/--receipts \[timeout\]/);
    expect(help).toMatch(/^Examples:$/m);
    expect(help).toMatch(/publish \S+ '.*' --to-services \S+ --receipts/);
    expect(help).toMatch(/exit code 2/i);
  });
});

describe('formatReceipt / receiptProblem', () => {
  const receipt: BroadcastReceipt = {
    id: 'r-1',
    topic: 'news',
    expected: ['a', 'b', 'c'],
    unmatched: [],
    ok: ['a'],
    failed: [{ instanceId: 'b', errors: ['H.one: boom', 'H.two: bang'] }],
    missing: ['c'],
    elapsedMs: 1234,
  };

  it('prints the counts and one row per expected instance', () => {
    expect(formatReceipt(receipt)).toBe(
      [
        'Receipt r-1: 3 expected, 1 ok, 1 failed, 1 missing (1234 ms)',
        'INSTANCE  RESULT   ERRORS',
        'a         ok',
        'b         failed   H.one: boom; H.two: bang',
        'c         missing',
      ].join('\n'),
    );
    expect(receiptProblem(receipt)).toBe(
      'Broadcast "news" was not confirmed by every expected instance: ok 1/3; failed: b (H.one: boom; H.two: bang); missing: c.',
    );
    const none = { ...receipt, expected: [], ok: [], failed: [], missing: [] };
    expect(formatReceipt(none)).toBe(
      'Receipt r-1: 0 expected: no live instance that answers receipts reads news (and is targeted)',
    );
    expect(receiptProblem(none)).toBeUndefined();
  });
});

describe('publishWithReceipts', () => {
  const member = (groupId: string, id: string, topics: string[], receipts = true) => ({
    groupId,
    memberId: `m-${id}`,
    topics,
    userData: encodeMemberInfo(id, 1, receipts),
  });
  /** A live pool: a1 (svcA), b1 and c1 (svcB, c1 reads another topic), quiet (no receipts). */
  const rosterAdmin = {
    liveMembers: async () => [
      member('p.svcA-0', 'a1', ['p.news']),
      member('p.svcB-0', 'b1', ['p.news']),
      member('p.svcB-1', 'c1', ['p.other']),
      member('p.svcA-1', 'quiet', ['p.news'], false),
    ],
  } as unknown as KafkaAdminPort;

  /** The CLI's Kafka: reading answers `positioned` at once; the test plays the instances' acks. */
  function fakeKafka(answer: (headers: Record<string, string>) => [string, string[]?][]) {
    const reads: string[] = [];
    const published: { topic: string; headers: Record<string, string> }[] = [];
    let acks: OperatorReadOptions | undefined;
    const kafka = {
      read: (topic: string, options: OperatorReadOptions) => {
        reads.push(topic);
        acks = options;
        options.positioned?.();
        return new Promise<void>((resolve) =>
          options.signal?.addEventListener('abort', () => resolve()),
        );
      },
      publish: async (topic: string, record: { headers: Record<string, string> }) => {
        published.push({ topic, headers: record.headers });
        const { headers } = record;
        for (const [instance, errors] of answer(headers))
          acks!.onRecord({
            topic: 'p.broadcast.receipts.v1',
            partition: 0,
            offset: '0',
            timestamp: 0,
            headers: {},
            key: headers['x-broadcast-from']!,
            value: JSON.stringify({ r: headers['x-broadcast-receipt'], i: instance, e: errors }),
          });
        return { partition: 0, offset: '7' };
      },
    } as unknown as OperatorKafkaPort;
    return { kafka, reads, published };
  }
  const logger = { log: () => undefined, warn: () => undefined, error: () => undefined };
  const request = (
    to: { instances?: string[]; services?: string[] } | undefined,
    timeoutMs = 30_000,
  ) => ({
    value: '{}',
    key: null,
    headers: { origin: 'cli' },
    to,
    receipts: { timeoutMs, topic: 'broadcast.receipts.v1' },
  });

  it('expects the live, subscribed, targeted instances that answer receipts, and reads their acks', async () => {
    const { kafka, reads, published } = fakeKafka(() => [['a1'], ['b1', ['H: boom']], ['c1']]);
    const deps = { kafka, rosterAdmin, prefix: 'p.', instanceId: 'cli-1', logger };
    const result = await publishWithReceipts(deps, 'news', request({ services: ['svcA', 'svcB'] }));
    expect(result).toMatchObject({
      partition: 0,
      offset: '7',
      receipt: { topic: 'news', expected: ['a1', 'b1'], ok: ['a1'], missing: [] },
    });
    expect(result.receipt.failed).toEqual([{ instanceId: 'b1', errors: ['H: boom'] }]);
    expect(reads).toEqual(['p.broadcast.receipts.v1']);
    expect(published).toEqual([
      {
        topic: 'p.news',
        headers: {
          origin: 'cli',
          'x-broadcast-to-services': 'svcA,svcB',
          'x-broadcast-receipt': result.receipt.id,
          'x-broadcast-from': 'cli-1',
        },
      },
    ]);
  });

  it('counts an expected instance that never answers as missing once the timeout passed', async () => {
    const { kafka } = fakeKafka(() => []);
    const deps = { kafka, rosterAdmin, prefix: 'p.', instanceId: 'cli-1', logger };
    const result = await publishWithReceipts(deps, 'news', request({ instances: ['b1'] }, 50));
    expect(result.receipt).toMatchObject({ expected: ['b1'], ok: [], failed: [], missing: ['b1'] });
  });

  it('reads nothing when no live instance would answer', async () => {
    const { kafka, reads, published } = fakeKafka(() => []);
    const deps = { kafka, rosterAdmin, prefix: 'p.', instanceId: 'cli-1', logger };
    const result = await publishWithReceipts(deps, 'news', request({ instances: ['quiet'] }));
    expect(result.receipt).toMatchObject({ expected: [], ok: [], failed: [], missing: [] });
    expect(reads).toEqual([]);
    expect(published).toHaveLength(1);
  });
});
