// A secured single-node test broker: a SASL_SSL listener (SCRAM-SHA-512, users created at format
// time), TLS from a throwaway CA made with openssl, and StandardAuthorizer with ACLs enforced.
// Only the tests that need it start one (test/support/security/secured-cluster.ts); every other broker
// stays PLAINTEXT.
//
//   const secured = await startSecuredCluster({ users: { admin: 'a-secret', svc: 's-secret' } });
//   secured.saslBrokers          // ['127.0.0.1:<port>'], SASL_SSL
//   secured.oauthBrokers         // ['127.0.0.1:<port>'], SASL_PLAINTEXT + OAUTHBEARER (unsecured JWS)
//   secured.ca                   // PEM of the CA that signed the broker certificate
//   await secured.stop();
import { execFile } from 'node:child_process';
import { mkdir, mkdtemp, readFile, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { startCluster } from '../kafka-cluster.mjs';

const run = promisify(execFile);
const HOST = '127.0.0.1';
export const SCRAM_MECHANISM = 'SCRAM-SHA-512';

/**
 * A CA and a broker certificate for 127.0.0.1/localhost, signed by that CA, written to `dir`.
 * The broker key is unencrypted PKCS#8 so Kafka's PEM key store reads it without a password.
 */
export async function makeCertificates(dir, { days = 2 } = {}) {
  await mkdir(dir, { recursive: true });
  const f = (name) => join(dir, name);
  const ssl = (...args) => run('openssl', args, { cwd: dir });
  await ssl(
    'req',
    '-x509',
    '-newkey',
    'rsa:2048',
    '-nodes',
    '-days',
    String(days),
    '-subj',
    '/CN=broadcast-test-ca',
    '-keyout',
    f('ca.key'),
    '-out',
    f('ca.pem'),
  );
  await ssl(
    'req',
    '-newkey',
    'rsa:2048',
    '-nodes',
    '-subj',
    '/CN=localhost',
    '-keyout',
    f('broker.key'),
    '-out',
    f('broker.csr'),
  );
  await writeFile(f('san.ext'), `subjectAltName=IP:${HOST},DNS:localhost\n`);
  await ssl(
    'x509',
    '-req',
    '-in',
    f('broker.csr'),
    '-CA',
    f('ca.pem'),
    '-CAkey',
    f('ca.key'),
    '-CAcreateserial',
    '-days',
    String(days),
    '-extfile',
    f('san.ext'),
    '-out',
    f('broker.crt'),
  );
  await ssl('pkcs8', '-topk8', '-nocrypt', '-in', f('broker.key'), '-out', f('broker.pk8'));
  const keyStore = f('broker-keystore.pem');
  await writeFile(
    keyStore,
    (await readFile(f('broker.pk8'), 'utf8')) +
      (await readFile(f('broker.crt'), 'utf8')) +
      (await readFile(f('ca.pem'), 'utf8')),
  );
  return { caFile: f('ca.pem'), ca: await readFile(f('ca.pem'), 'utf8'), keyStore };
}

/**
 * Server properties of a secured node. The client listener (SASL_SSL) is on `extraPorts[0]`,
 * an OAUTHBEARER one (SASL_PLAINTEXT, unsigned test tokens) on `extraPorts[1]`;
 * the inter-broker and controller listeners stay PLAINTEXT on loopback, where the broker's
 * principal is User:ANONYMOUS, so ANONYMOUS (the broker itself) and the admin user are the
 * super users. Nobody else may do anything without an ACL.
 */
export function securedProperties(node, { keyStore, superUsers }) {
  const [sasl, oauth] = node.extraPorts;
  return {
    listeners: `PLAINTEXT://${HOST}:${node.port},CONTROLLER://${HOST}:${node.controllerPort},SASL_SSL://${HOST}:${sasl},OAUTH://${HOST}:${oauth}`,
    'advertised.listeners': `PLAINTEXT://${HOST}:${node.port},SASL_SSL://${HOST}:${sasl},OAUTH://${HOST}:${oauth}`,
    'listener.security.protocol.map':
      'PLAINTEXT:PLAINTEXT,CONTROLLER:PLAINTEXT,SASL_SSL:SASL_SSL,OAUTH:SASL_PLAINTEXT',
    'sasl.enabled.mechanisms': SCRAM_MECHANISM,
    'listener.name.sasl_ssl.scram-sha-512.sasl.jaas.config':
      'org.apache.kafka.common.security.scram.ScramLoginModule required;',
    // OAUTHBEARER with Kafka's built-in unsecured validator (the default server callback
    // handler, OAuthBearerUnsecuredValidatorCallbackHandler): it accepts an unsigned JWS
    // ({"alg":"none"}) whose `exp` lies ahead and takes `sub` as the principal, so ACLs apply
    // to User:<sub>. The login options give the broker's own (unused) client token a subject.
    'listener.name.oauth.sasl.enabled.mechanisms': 'OAUTHBEARER',
    // KIP-368: a session ends when its token expires (at most after 10 minutes); the client must
    // log in again with a fresh token, so short-lived test tokens exercise the refresh.
    'listener.name.oauth.oauthbearer.connections.max.reauth.ms': 600_000,
    'listener.name.oauth.oauthbearer.sasl.jaas.config':
      'org.apache.kafka.common.security.oauthbearer.OAuthBearerLoginModule required unsecuredLoginStringClaim_sub="broker";',
    'ssl.keystore.type': 'PEM',
    'ssl.keystore.location': keyStore,
    'ssl.client.auth': 'none',
    'authorizer.class.name': 'org.apache.kafka.metadata.authorizer.StandardAuthorizer',
    'super.users': ['User:ANONYMOUS', ...superUsers.map((u) => `User:${u}`)].join(';'),
    'allow.everyone.if.no.acl.found': false,
  };
}

/** `StorageTool format` arguments that create each SCRAM user. */
export function scramFormatArgs(users) {
  return Object.entries(users).flatMap(([name, password]) => [
    '--add-scram',
    `${SCRAM_MECHANISM}=[name=${name},password=${password}]`,
  ]);
}

/**
 * Starts one secured node. `users` maps user name → password (all created at format time);
 * `superUsers` (default ['admin']) must be among them. Resolves with the cluster handle plus
 * `saslBrokers` (the SASL_SSL addresses), the CA's PEM and its file.
 */
export async function startSecuredCluster({ users, superUsers = ['admin'], dir, ...options }) {
  dir ??= await mkdtemp(join(tmpdir(), 'kafka-secured-'));
  const certs = await makeCertificates(join(dir, 'tls'));
  const cluster = await startCluster({
    ...options,
    nodes: 1,
    dir: join(dir, 'cluster'),
    extraPorts: 2,
    properties: (node) => securedProperties(node, { keyStore: certs.keyStore, superUsers }),
    formatArgs: scramFormatArgs(users),
  });
  return {
    ...cluster,
    saslBrokers: cluster.nodes.map((n) => `${HOST}:${n.extraPorts[0]}`),
    oauthBrokers: cluster.nodes.map((n) => `${HOST}:${n.extraPorts[1]}`),
    ca: certs.ca,
    caFile: certs.caFile,
    stop: async (opts) => {
      await cluster.stop(opts);
      if (!opts?.keepDir) await run('rm', ['-rf', dir]);
    },
  };
}
