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

// The parent ended (or closed the channel): nothing is left to answer.
process.on('disconnect', () => process.exit(0));

process.on('message', (message) => {
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
    const done = (err, result) =>
      err ? answer({ id, error: plainError(err) }) : answer({ id, groups: plainGroups(result) });
    if (op === 'deleteGroups') admin.deleteGroups(groupIds, { timeout: timeoutMs }, done);
    else admin.describeGroups(groupIds, { timeout: timeoutMs }, done);
  } catch (error) {
    answer({ id, error: plainError(error) });
  }
});

/** The one admin client, made once. */
function createAdmin() {
  admin ??= RdKafka.AdminClient.create(config);
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
