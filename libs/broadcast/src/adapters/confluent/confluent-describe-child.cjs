'use strict';
// The DescribeGroups helper process of the confluent adapter (confluent-describe-helper.ts).
// @confluentinc/kafka-javascript 1.10.1 dereferences librdkafka's NULL strings when a group's
// describe failed (FromConsumerGroupDescription, upstream confluentinc/confluent-kafka-javascript#531):
// a segmentation fault. Run here, it ends this process only; the adapter rejects what was pending
// and starts a new helper at the next describe.
//
// Plain CommonJS, no build step: the same file serves the package's ESM and CJS builds and the
// sources (it is copied beside the compiled helper by the package's build script). It requires
// the client from its own folder, so it resolves the same package as the adapter.
//
// Protocol (JSON over the IPC channel): the parent sends { config } once, then
// { id, groupIds, timeoutMs } per describe; this process answers { id, groups } or { id, error }.
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
    // Connects now, ahead of the first describe (the parent may start this process early). A
    // configuration the client refuses is answered with each describe instead (made again there).
    try {
      createAdmin();
    } catch {
      // answered by the describe
    }
    return;
  }
  const { id, groupIds, timeoutMs } = message;
  try {
    createAdmin();
    admin.describeGroups(groupIds, { timeout: timeoutMs }, (err, result) =>
      err ? answer({ id, error: plainError(err) }) : answer({ id, groups: plainGroups(result) }),
    );
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

/** The groups with their errors as plain objects (an Error's message is not enumerable). */
function plainGroups(result) {
  return result.groups.map((group) =>
    group.error ? { ...group, error: plainError(group.error) } : group,
  );
}

/** A LibrdKafkaError's fields (code, isRetriable, isFatal, origin, …), message and name. */
function plainError(error) {
  if (!error || typeof error !== 'object') return { message: String(error) };
  return { ...error, name: error.name, message: error.message };
}
