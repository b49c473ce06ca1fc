/**
 * A value read from the OpenTelemetry globals (the tracer provider, the propagator's fields),
 * looked up again every `everyCalls` reads, or at once when asked: the application may register
 * its SDK after the engine started, but looking on every message would cost more than the work
 * it saves.
 */
export class RecheckedValue<T> {
  private value: T | undefined;
  private callsToRecheck = 0;

  constructor(
    private readonly lookUp: () => T,
    private readonly everyCalls: number,
  ) {}

  get(lookNow = false): T {
    if (lookNow || this.callsToRecheck-- <= 0 || this.value === undefined) {
      this.value = this.lookUp();
      this.callsToRecheck = this.everyCalls;
    }
    return this.value;
  }
}
