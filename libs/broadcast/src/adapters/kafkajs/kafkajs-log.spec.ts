import type { BroadcastLogger } from '../../interfaces/broadcast-logger.interface.js';
import { createLogCreator, logLevel } from './kafkajs-log.js';

function route(namespace: string, level: number, log: Record<string, unknown>) {
  const lines: { level: string; message: string }[] = [];
  const logger: BroadcastLogger = {
    log: (message) => void lines.push({ level: 'log', message }),
    warn: (message) => void lines.push({ level: 'warn', message }),
    error: (message) => void lines.push({ level: 'error', message }),
    debug: (message) => void lines.push({ level: 'debug', message }),
  };
  const connectionErrors: string[] = [];
  const entry = createLogCreator(logger, (m) => connectionErrors.push(m))(logLevel.DEBUG);
  entry({ namespace, level, label: '', log: { timestamp: '', message: '', ...log } } as never);
  return { lines, connectionErrors };
}

describe('kafkajs log routing', () => {
  it('a rebalance of the group goes to debug: the engine reports membership itself', () => {
    const { lines } = route('Runner', logLevel.WARN, {
      message: 'The group is rebalancing, re-joining',
      error: 'The group is rebalancing, so a rejoin is needed',
    });
    expect(lines.map((l) => l.level)).toEqual(['debug']);
  });

  it('other kafkajs warnings and errors keep their level', () => {
    expect(
      route('Runner', logLevel.WARN, { message: 'Something else' }).lines.map((l) => l.level),
    ).toEqual(['warn']);
    expect(
      route('Consumer', logLevel.ERROR, { message: 'Unexpected' }).lines.map((l) => l.level),
    ).toEqual(['error']);
  });

  it('the KIP-394 two-step join is dropped; connection errors go to debug and are noted', () => {
    expect(
      route('Runner', logLevel.ERROR, { message: 'x', type: 'MEMBER_ID_REQUIRED' }).lines,
    ).toEqual([]);
    const refused = route('Connection', logLevel.ERROR, {
      message: 'Connection error',
      error: 'connect ECONNREFUSED',
    });
    expect(refused.lines.map((l) => l.level)).toEqual(['debug']);
    expect(refused.connectionErrors).toEqual(['Connection error: connect ECONNREFUSED']);
  });
});
