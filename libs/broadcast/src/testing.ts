// `nestjs-kafka-broadcast/testing`: BroadcastModule for an application's own tests, on an in-memory
// broker in the test's process (no Kafka, no database), and the helper that publishes and waits
// until the handlers ran. Needs @nestjs/common and @nestjs/core, as the main entry does.
export {
  BroadcastTestingModule,
  type BroadcastTestingOptions,
} from './nest/testing/broadcast-testing.module.js';
export {
  BroadcastTestingHelper,
  type HandlerFailure,
  type PublishedRecord,
} from './nest/testing/broadcast-testing.helper.js';
export { InMemoryKafka, type InMemoryKafkaOptions } from './testing/in-memory-kafka.js';
