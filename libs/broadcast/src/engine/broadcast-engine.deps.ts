import type { StepProbe } from '../core/step-probe.js';
import type { BroadcastInstrumentation } from '../interfaces/broadcast-instrumentation.interface.js';
import type { BroadcastLogger } from '../interfaces/broadcast-logger.interface.js';
import type { KafkaPort } from '../interfaces/kafka-port.interface.js';
import type { LockSessionSource } from '../locks/lock-session.js';

/** What the engine is built from besides its options. */
export interface BroadcastEngineDeps {
  /**
   * A TypeORM DataSource that supplies advisory locks unless options.lock is false or names a
   * provider. A function is called once, at start(), so a DataSource created later in the
   * application's bootstrap can be used.
   */
  dataSource?: LockSessionSource | (() => LockSessionSource | undefined);
  logger?: BroadcastLogger;
  /** @internal A Kafka client other than the bundled kafkajs adapter (tests and future adapters). */
  kafka?: KafkaPort;
  /**
   * Traces and metrics. Default: OpenTelemetry through @opentelemetry/api when it is installed
   * (a no-op until the application registers an SDK); `false` turns instrumentation off.
   */
  instrumentation?: BroadcastInstrumentation | false;
  /**
   * @internal Test hook, not an option: called with the name of each startup and recovery
   * step (allocate, lock, delete, snapshot, connect, subscribe, run, joined, verify, rejoin,
   * recover) as it begins, so a test can stop the engine exactly there.
   */
  probe?: StepProbe;
}
