import { stringSerializers } from '@platformatic/kafka';
import { bytesSerializers, toProducedHeaders } from './platformatic-serializers.js';

describe('bytesSerializers', () => {
  it('writes strings as UTF-8 and Buffers as they are (the client drops Buffers)', () => {
    const bytes = Buffer.from([0xff, 0x00, 0x41]);
    expect(stringSerializers.value(bytes as never)).toBeUndefined();
    expect(bytesSerializers.value(bytes)).toBe(bytes);
    expect(bytesSerializers.key('product-7')).toEqual(Buffer.from('product-7'));
    expect(bytesSerializers.value(undefined)).toBeUndefined();
  });
});

describe('toProducedHeaders', () => {
  it('keeps every value of a repeated header, strings and Buffers alike', () => {
    const headers = toProducedHeaders({ trace: ['a', Buffer.from('b')], origin: 'x' })!;
    expect([...headers].map(([name, value]) => [name.toString(), value.toString()])).toEqual([
      ['trace', 'a'],
      ['trace', 'b'],
      ['origin', 'x'],
    ]);
    expect(toProducedHeaders(undefined)).toBeUndefined();
  });
});
