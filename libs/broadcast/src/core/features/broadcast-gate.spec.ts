import type { BroadcastMessage } from '../../interfaces/broadcast-message.interface.js';
import type { StandardSchemaV1 } from '../../interfaces/standard-schema.interface.js';
import { BroadcastGate } from './broadcast-gate.js';

function schema(validate: (value: unknown) => unknown): StandardSchemaV1 {
  return {
    '~standard': { version: 1, vendor: 'test', validate },
  } as unknown as StandardSchemaV1;
}

function message(payload: unknown): BroadcastMessage {
  return {
    topic: 't',
    partition: 0,
    offset: '0',
    timestamp: 0,
    key: null,
    headers: {},
    payload,
  } as unknown as BroadcastMessage;
}

describe('BroadcastGate', () => {
  it(
    'bounds an async validator that never settles: the message is invalid, reading goes on',
    { timeout: 10_000 },
    async () => {
      const schemas = new Map([['t', schema(() => new Promise(() => {}))]]);
      const gate = new BroadcastGate(
        undefined,
        schemas,
        () => ({ instanceId: 'i', service: 's' }),
        50,
      );
      const admission = await gate.admit(message({ a: 1 }));
      expect(admission).toMatchObject({ skip: 'invalid' });
      expect(JSON.stringify(admission)).toMatch(/did not settle within 50 ms/);
    },
  );

  it('passes what an async validator returns in time', async () => {
    const schemas = new Map([
      ['t', schema(async (value) => ({ value: { ...(value as object), ok: true } }))],
    ]);
    const gate = new BroadcastGate(
      undefined,
      schemas,
      () => ({ instanceId: 'i', service: 's' }),
      1_000,
    );
    expect(await gate.admit(message({ a: 1 }))).toMatchObject({ payload: { a: 1, ok: true } });
  });
});
