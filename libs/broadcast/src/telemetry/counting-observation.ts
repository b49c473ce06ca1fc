import type {
  HandlerObservation,
  HandlerOutcome,
} from '../interfaces/broadcast-instrumentation.interface.js';

/**
 * The observation of a handler call with no span and no latency to record: it only counts
 * the outcome. One per series, reused for every such call; a class, so that the dispatcher's
 * calls through it stay monomorphic and cheap.
 */
export class CountingObservation implements HandlerObservation {
  constructor(private readonly outcomes: Record<HandlerOutcome, number>) {}

  run<T>(call: () => T): T {
    return call();
  }

  end(outcome: HandlerOutcome): void {
    this.outcomes[outcome]++;
  }
}
