'use strict';
// The group requests helper process of the confluent adapter (confluent-describe-helper.ts): its
// DescribeGroups and DeleteGroups, the admin requests that go to a group coordinator.
// @confluentinc/kafka-javascript 1.10.1 dereferences librdkafka's NULL strings when a group's
// describe failed (FromConsumerGroupDescription, upstream confluentinc/confluent-kafka-javascript#531):
// a segmentation fault. And librdkafka 2.15.1 aborts the process (`Assertion 'eonce->refcnt > 0'`
// in rd_kafka_enq_once_del_source_return) once the coordinator is back after a coordinator
// request timed out while no broker answered: rd_kafka_admin_coord_request frees the timed-out
// request's eonce and returns ERR__DESTROY, rd_kafka_coord_req_fail then hands that freed eonce
// to rd_kafka_admin_coord_response_parse (upstream confluentinc/librdkafka#4605, open). Run here,
// either ends this process only; the adapter rejects what was pending and starts a new helper at
// the next request.
//
// Plain CommonJS, no build step: the same file serves the package's ESM and CJS builds and the
// sources (it is copied beside the compiled helper by the package's build script). It requires
// the client from its own folder, so it resolves the same package as the adapter.
//
// Protocol (JSON over the IPC channel): the parent sends { config } once, then
// { id, op, groupIds, timeoutMs } per request (op 'describeGroups', the default, or
// 'deleteGroups'); this process answers { id, groups } (the describe's groups, or the delete's
// per-group reports) or { id, error }.
// A client that does not load is answered { fatal } before this process exits.
// With SASL/OAUTHBEARER (config 'sasl.mechanisms' 'OAUTHBEARER') the admin client's token refresh
// callback asks the parent, which alone can call the user's provider: this process sends
// { tokenRequest } and the parent answers { tokenRequest, token } (librdkafka's token: value,
// lifetime, principal, extensions) or { tokenRequest, tokenError }. As in the parent
// (confluent-admin-token-gate.ts), no token is handed to the client while a request waits: the
// binding's setOAuthBearerToken would block this process until that request ended (each admin
// request holds the client's connection lock for its whole wait). Requests wait for the first
// token (at most their timeout), and a new token is handed over once those in flight answered.

let RdKafka;
try {
  ({ RdKafka } = require('@confluentinc/kafka-javascript'));
} catch (error) {
  if (process.send) process.send({ fatal: plainError(error) }, () => process.exit(1));
  else process.exit(1);
}

/** @type {Record<string, unknown> | undefined} */
let config;
/** @type {import('@confluentinc/kafka-javascript').IAdminClient | undefined} */
let admin;
/** The token requests sent to the parent and not answered yet. */
const tokenRequests = new Map();
let nextTokenRequest = 0;
/** Requests in flight, and what waits for them all to answer (a token hand-over). */
let running = 0;
const idle = [];
/** Set while requests wait: until the first token, and while a new one is handed over. */
let gate;

// The parent ended (or closed the channel): nothing is left to answer.
process.on('disconnect', () => process.exit(0));

process.on('message', (message) => {
  if (message.tokenRequest !== undefined) {
    const waiting = tokenRequests.get(message.tokenRequest);
    tokenRequests.delete(message.tokenRequest);
    if (message.token) waiting?.resolve(message.token);
    else waiting?.reject(new Error(String(message.tokenError)));
    return;
  }
  if (message.config) {
    config = message.config;
    // Connects now, ahead of the first request (the parent may start this process early). A
    // configuration the client refuses is answered with each request instead (made again there).
    try {
      createAdmin();
    } catch {
      // answered by the request
    }
    return;
  }
  const { id, op = 'describeGroups', groupIds, timeoutMs } = message;
  try {
    createAdmin();
  } catch (error) {
    answer({ id, error: plainError(error) });
    return;
  }
  void gated(() => request(op, groupIds, timeoutMs), timeoutMs).then(
    (result) => answer({ id, groups: plainGroups(result) }),
    (error) => answer({ id, error: plainError(error) }),
  );
});

/** One DescribeGroups or DeleteGroups of the admin client. */
function request(op, groupIds, timeoutMs) {
  return new Promise((resolve, reject) => {
    const done = (err, result) => (err ? reject(err) : resolve(result));
    if (op === 'deleteGroups') admin.deleteGroups(groupIds, { timeout: timeoutMs }, done);
    else admin.describeGroups(groupIds, { timeout: timeoutMs }, done);
  });
}

/** Sends `send()` once no token is being handed over (waiting at most `waitMs`). */
async function gated(send, waitMs) {
  const deadline = Date.now() + waitMs;
  while (gate && Date.now() < deadline) {
    let timer;
    await Promise.race([
      gate.opened,
      new Promise((resolve) => (timer = setTimeout(resolve, deadline - Date.now()))),
    ]);
    clearTimeout(timer);
  }
  running++;
  try {
    return await send();
  } finally {
    if (--running === 0) for (const resume of idle.splice(0)) resume();
  }
}

function closeGate() {
  if (gate) return;
  let open;
  const opened = new Promise((resolve) => (open = resolve));
  gate = { opened, open };
}

function openGate() {
  const closed = gate;
  gate = undefined;
  closed?.open();
}

/** The one admin client, made once. */
function createAdmin() {
  if (admin) return;
  if (config['sasl.mechanisms'] !== 'OAUTHBEARER') {
    admin = RdKafka.AdminClient.create(config);
    return;
  }
  closeGate();
  // The binding emits 'error' when a refresh failed: without a listener that would throw.
  admin = RdKafka.AdminClient.create(
    { ...config, oauthbearer_token_refresh_cb: handOver },
    { error: () => undefined },
  );
}

/** The refresh callback: the parent's token, handed over once no request waits. */
async function handOver() {
  let token;
  try {
    token = await askToken();
  } catch (error) {
    // Requests go on (and time out); the parent's start heard the provider's failure.
    openGate();
    throw error;
  }
  closeGate();
  if (running > 0) await new Promise((resume) => idle.push(resume));
  // The binding sets the token in its then() of the promise returned here, a microtask before.
  setImmediate(openGate);
  return token;
}

/** A SASL/OAUTHBEARER token, from the parent (librdkafka asks again before it expires). */
function askToken() {
  const id = ++nextTokenRequest;
  return new Promise((resolve, reject) => {
    tokenRequests.set(id, { resolve, reject });
    if (!process.connected) return reject(new Error('the parent process is gone'));
    process.send({ tokenRequest: id });
  });
}

function answer(message) {
  if (process.connected) process.send(message);
}

/**
 * The groups (a describe's result.groups, a delete's reports) with their errors as plain objects
 * (an Error's message is not enumerable).
 */
function plainGroups(result) {
  return (Array.isArray(result) ? result : result.groups).map((group) =>
    group.error ? { ...group, error: plainError(group.error) } : group,
  );
}

/** A LibrdKafkaError's fields (code, isRetriable, isFatal, origin, …), message and name. */
function plainError(error) {
  if (!error || typeof error !== 'object') return { message: String(error) };
  return { ...error, name: error.name, message: error.message };
}
