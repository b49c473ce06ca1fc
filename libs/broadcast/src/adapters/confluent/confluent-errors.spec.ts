import type { AttemptNote } from '../shared/client-errors.js';
import { ConfluentErrors, refusalOf } from './confluent-errors.js';

const SECURED = {
  brokers: ['127.0.0.1:9093'],
  ssl: true,
  sasl: { mechanism: 'scram-sha-512' as const, username: 'svc', password: 'pw' },
};

/** What a watcher of the start's attempt hears from one librdkafka log line. */
function heard(errors: ConfluentErrors, line: { severity: number; message: string }) {
  const notes: AttemptNote[] = [];
  const unwatch = errors.watchAttempt((note) => notes.push(note));
  errors.noteClientLog(line);
  unwatch();
  return notes;
}

describe('ConfluentErrors, librdkafka log lines heard during a start', () => {
  it('a refused connection is a note in plain words, without thread, broker and state', () => {
    const notes = heard(new ConfluentErrors({ brokers: ['127.0.0.1:1'] }), {
      severity: 3,
      message:
        '[thrd:127.0.0.1:1/bootstrap]: 127.0.0.1:1/bootstrap: Connect to ipv4#127.0.0.1:1 failed: Connection refused (after 0ms in state CONNECT, 1 identical error(s) suppressed)',
    });
    expect(notes).toEqual([
      { message: 'Connect to ipv4#127.0.0.1:1 failed: Connection refused', fatal: undefined },
    ]);
  });

  it('a refused login ends the attempt naming kafka.sasl; a TLS failure naming kafka.ssl', () => {
    const errors = new ConfluentErrors(SECURED);
    const [login] = heard(errors, {
      severity: 3,
      message:
        '[thrd:sasl_ssl://127.0.0.1:9093/bootstrap]: sasl_ssl://127.0.0.1:9093/bootstrap: SASL authentication error: Authentication failed during authentication due to invalid credentials with SASL mechanism SCRAM-SHA-512 (after 5ms in state AUTH_REQ)',
    });
    expect(login?.fatal?.option).toBe('kafka.sasl');
    expect(login?.fatal?.message).toMatch(
      /invalid credentials with SASL mechanism SCRAM-SHA-512\./,
    );
    expect(login?.fatal?.message).not.toContain('pw');
    const [tls] = heard(errors, {
      severity: 3,
      message:
        'sasl_ssl://127.0.0.1:9093/bootstrap: SSL handshake failed: error:0A000086:SSL routines::certificate verify failed (after 8ms in state SSL_HANDSHAKE)',
    });
    expect(tls?.fatal?.option).toBe('kafka.ssl');
  });

  it('ignores debug lines, other failures, and lines nobody waits for', () => {
    const errors = new ConfluentErrors(SECURED);
    expect(
      heard(errors, { severity: 7, message: 'Connect to ipv4#1 failed: Connection refused' }),
    ).toEqual([]);
    expect(heard(errors, { severity: 3, message: 'Receive failed: Disconnected' })).toEqual([]);
    expect(() =>
      errors.noteClientLog({ severity: 3, message: 'Connection refused' }),
    ).not.toThrow();
  });
});

describe('refusalOf', () => {
  it("gives an error event's authorization refusal the broker's code (the binding's is -1)", () => {
    const event = Object.assign(new Error('cluster authorization failed'), {
      code: -1,
      stack: 'Error: Broker: Cluster authorization failed',
    });
    expect(refusalOf(event)?.code).toBe(31);
    expect(refusalOf(new Error('broker transport failure'))).toBeUndefined();
  });
});
