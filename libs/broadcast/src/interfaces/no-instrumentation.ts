import type {
  BroadcastInstrumentation,
  HandlerObservation,
  PublishObservation,
} from './broadcast-instrumentation.interface.js';

const idle: PublishObservation & HandlerObservation = {
  end: () => undefined,
  run: (call) => call(),
};

/** The default instrumentation: observes nothing, allocates nothing. */
export const NO_INSTRUMENTATION: BroadcastInstrumentation = {
  publish: () => idle,
  handler: () => idle,
};
