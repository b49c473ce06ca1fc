// A secured broker for the test/secured-*.spec.ts files (SASL_SSL + SCRAM-SHA-512 + TLS +
// StandardAuthorizer, see scripts/kafka/security.mjs), and the ACLs the README lists, read from
// the README itself so the test proves exactly what users are told to run.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import {
  AclOperationTypes,
  AclPermissionTypes,
  AclResourceTypes,
  Kafka,
  logLevel,
  ResourcePatternTypes,
  type AclEntry,
} from 'kafkajs';
import { REPO_ROOT } from '../../../scripts/kafka-cluster.mjs';
import { startSecuredCluster } from '../../../scripts/kafka/security.mjs';
import type { BroadcastModuleOptions } from 'nestjs-kafka-broadcast';
import { groupProtocolOf } from '../broker/kafka-clients.js';
import { createTopics } from '../broker/kafka.js';

type BroadcastKafkaOptions = BroadcastModuleOptions['kafka'];

export type SecuredCluster = Awaited<ReturnType<typeof startSecuredCluster>>;

/** Every password a secured test uses: the secrets grep looks for each of them. */
export const SECRETS = {
  admin: 'adm1n-S3cret-ae41',
  svc: 'svc-S3cret-9f27c',
} as const;

/** Starts the secured broker with an admin (super user) and the given service users. */
export function startSecured(users: Record<string, string>): Promise<SecuredCluster> {
  return startSecuredCluster({ users: { admin: SECRETS.admin, ...users }, quiet: true });
}

/** The library's Kafka options for `user` on the secured listener. */
export function securedKafka(
  cluster: SecuredCluster,
  username: string,
  password: string,
  overrides: Partial<BroadcastKafkaOptions> = {},
): BroadcastKafkaOptions {
  return {
    brokers: cluster.saslBrokers,
    clientId: `secured-${username}`,
    ssl: { ca: [cluster.ca] },
    sasl: { mechanism: 'scram-sha-512', username, password },
    ...groupProtocolOf(overrides.client),
    ...overrides,
  };
}

/**
 * An unsigned JWS ({"alg":"none"}, empty signature) for `sub`, as the secured broker's OAUTHBEARER
 * listener (Kafka's unsecured validator) accepts it while `exp` lies ahead. `lifetimeS` below 0
 * makes a token that expired that long ago.
 */
export function unsecuredJwt(sub: string, lifetimeS = 3_600): string {
  const now = Math.floor(Date.now() / 1000);
  const part = (value: object) => Buffer.from(JSON.stringify(value)).toString('base64url');
  return `${part({ alg: 'none' })}.${part({ sub, iat: now, exp: now + lifetimeS })}.`;
}

/**
 * The library's Kafka options for the OAUTHBEARER listener; `token` is asked for on each login
 * (counted in `logins`).
 */
export function oauthKafka(
  cluster: SecuredCluster,
  token: () => string,
  overrides: Partial<BroadcastKafkaOptions> = {},
): { kafka: BroadcastKafkaOptions; logins: () => number } {
  let logins = 0;
  const kafka: BroadcastKafkaOptions = {
    brokers: cluster.oauthBrokers,
    clientId: 'secured-oauth',
    sasl: {
      mechanism: 'oauthbearer',
      oauthBearerProvider: () => {
        logins++;
        return Promise.resolve({ value: token() });
      },
    },
    ...groupProtocolOf(overrides.client),
    ...overrides,
  };
  return { kafka, logins: () => logins };
}

/** A kafkajs client logged in as the admin (a super user), silent. */
export function adminKafka(cluster: SecuredCluster): Kafka {
  return new Kafka({
    clientId: 'secured-admin',
    brokers: cluster.saslBrokers,
    ssl: { ca: [cluster.ca] },
    sasl: { mechanism: 'scram-sha-512', username: 'admin', password: SECRETS.admin },
    logLevel: logLevel.NOTHING,
  });
}

/** One ACL of a kafka-acls.sh command. */
export interface ReadmeAcl {
  resourceType: 'topic' | 'group';
  name: string;
  prefixed: boolean;
  operation: string;
}

/**
 * The ACLs of the kafka-acls.sh commands in the README's "Running against a secured cluster"
 * section, with $PREFIX replaced by `prefix`. `topics` lists the broadcast topics (before the
 * prefix) to grant instead of the README's example `product.changed`.
 */
export function readmeAcls(prefix: string, topics: readonly string[]): ReadmeAcl[] {
  const readme = readFileSync(join(REPO_ROOT, 'README.md'), 'utf8');
  const section = readme.split('## Running against a secured cluster')[1]?.split('\n## ')[0];
  const block = section?.match(/```bash\n([\s\S]*?)```/)?.[1];
  if (!block) throw new Error('README: no bash block under "Running against a secured cluster"');
  const commands = block
    .replace(/\\\n/g, ' ')
    .split('\n')
    .map((line) => line.replace(/#.*$/, '').trim())
    .filter((line) => line.startsWith('kafka-acls.sh'));
  if (commands.length === 0) throw new Error('README: no kafka-acls.sh command');
  return commands.flatMap((command) => parseAclCommand(command, prefix, topics));
}

function parseAclCommand(command: string, prefix: string, topics: readonly string[]) {
  const words = (command.match(/"[^"]*"|\S+/g) ?? []).map((w) =>
    w.replace(/^"|"$/g, '').replace(/\$\{PREFIX\}|\$PREFIX/g, prefix),
  );
  const values = (flag: string) => words.flatMap((w, i) => (w === flag ? [words[i + 1]!] : []));
  const prefixed = values('--resource-pattern-type').includes('prefixed');
  const operations = values('--operation');
  const example = `${prefix}product.changed`;
  const topicNames = values('--topic').flatMap((t) =>
    t === example ? topics.map((x) => prefix + x) : [t],
  );
  const resources = [
    ...topicNames.map((name) => ({ resourceType: 'topic' as const, name })),
    ...values('--group').map((name) => ({ resourceType: 'group' as const, name })),
  ];
  return resources.flatMap((r) => operations.map((operation) => ({ ...r, prefixed, operation })));
}

/** Grants `acls` to `User:<user>` through the admin API and waits until they are listed. */
export async function grant(cluster: SecuredCluster, user: string, acls: ReadmeAcl[]) {
  const admin = adminKafka(cluster).admin();
  await admin.connect();
  try {
    const acl: AclEntry[] = acls.map((a) => ({
      resourceType: a.resourceType === 'topic' ? AclResourceTypes.TOPIC : AclResourceTypes.GROUP,
      resourceName: a.name,
      resourcePatternType: a.prefixed
        ? ResourcePatternTypes.PREFIXED
        : ResourcePatternTypes.LITERAL,
      principal: `User:${user}`,
      host: '*',
      operation: AclOperationTypes[a.operation as keyof typeof AclOperationTypes],
      permissionType: AclPermissionTypes.ALLOW,
    }));
    if (acl.some((a) => a.operation === undefined)) throw new Error('unknown ACL operation');
    if (acl.length > 0) await admin.createAcls({ acl });
  } finally {
    await admin.disconnect();
  }
}

/** Creates topics as the admin (the "platform team" variant). */
export async function createTopicsAsAdmin(cluster: SecuredCluster, topics: string[]) {
  const admin = adminKafka(cluster).admin();
  await admin.connect();
  try {
    await createTopics(
      admin,
      topics.map((topic) => ({ topic })),
    );
  } finally {
    await admin.disconnect();
  }
}
