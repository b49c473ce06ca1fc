import { BroadcastMessages } from '../../errors/broadcast.messages.js';
import { deferred } from '../../shared/async.utils.js';
import { CLOSE_BOUND_MS, PortClosure } from './port-closure.js';

const CLOSED = BroadcastMessages.kafkaClientClosed();

describe('PortClosure', () => {
  it('refuses every call once close() began, and closes once', async () => {
    const closure = new PortClosure();
    const closeClients = vi.fn(async () => undefined);
    const closing = closure.close(closeClients);
    expect(closure.close(closeClients)).toBe(closing);
    await expect(closure.run(async () => 'sent')).rejects.toThrow(CLOSED);
    expect(() => closure.refuse()).toThrow(CLOSED);
    expect(() => closure.track({ stop: async () => undefined })).toThrow(CLOSED);
    await closing;
    expect(closeClients).toHaveBeenCalledTimes(1);
    expect(closure.signal.aborted).toBe(true);
  });

  it('lets a call in flight finish before it closes the clients, and stops the consumers', async () => {
    const closure = new PortClosure();
    const order: string[] = [];
    const sent = deferred<void>();
    const sending = closure.run(() => sent.promise.then(() => void order.push('sent')));
    closure.track({ stop: async () => void order.push('consumer stopped') });
    const closing = closure.close(async () => void order.push('clients closed'));
    await new Promise((resolve) => setImmediate(resolve));
    expect(order).toEqual(['consumer stopped']);
    sent.resolve();
    await Promise.all([sending, closing]);
    expect(order).toEqual(['consumer stopped', 'sent', 'clients closed']);
  });

  it('cuts a call still in flight after CLOSE_BOUND_MS: it fails as closed', async () => {
    vi.useFakeTimers();
    try {
      const closure = new PortClosure();
      const stuck = deferred<void>();
      const sending = closure.run(() => stuck.promise);
      sending.catch(() => undefined);
      const closing = closure.close(async () => stuck.reject(new Error('connection closed')));
      await vi.advanceTimersByTimeAsync(CLOSE_BOUND_MS);
      await closing;
      await expect(sending).rejects.toThrow(CLOSED);
    } finally {
      vi.useRealTimers();
    }
  });

  it('a consumer that stopped by itself is not stopped again', async () => {
    const closure = new PortClosure();
    const stop = vi.fn(async () => undefined);
    const consumer = { stop };
    closure.track(consumer);
    closure.untrack(consumer);
    await closure.close(async () => undefined);
    expect(stop).not.toHaveBeenCalled();
  });
});
