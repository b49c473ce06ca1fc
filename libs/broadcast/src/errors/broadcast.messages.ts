/** Every user-facing error text of the module, in one place. */
export const BroadcastMessages = {
  invalidOption: (option: string, accepted: string, got: unknown) =>
    `Invalid BroadcastModule option "${option}": expected ${accepted}, got ${describe(got)}.`,
  allocationFailed: (elapsedMs: number, attempts: string[]) =>
    `Could not allocate a broadcast consumer group within ${elapsedMs} ms. Tried: ${
      attempts.length ? attempts.join('; ') : 'no group (no attempt finished)'
    }.`,
  poolExhausted: (limit: number) =>
    `Broadcast group pool exhausted: every id 0..${limit - 1} (maxGroups ${limit}) is held by another instance or was refused; raise maxGroups or stop an instance.`,
  stopped: () => 'The broadcast reader was stopped before it became ready.',
  handlersFrozen: (topic: string) =>
    `Cannot add a handler for the new topic "${topic}" after the broadcast reader has started; register it before startup.`,
  unknownDataSourceAccepted: () =>
    'the name of a registered TypeORM DataSource (TypeOrmModule.forRoot({ name, ... })), or lock: false',
  notSerializable: (topic: string) =>
    `Cannot publish to "${topic}": the payload is not JSON-serializable.`,
} as const;

function describe(value: unknown): string {
  if (typeof value === 'string') return JSON.stringify(value);
  if (value === undefined) return 'undefined';
  try {
    return JSON.stringify(value) ?? String(value);
  } catch {
    return String(value);
  }
}
