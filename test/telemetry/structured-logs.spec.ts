/**
 * Structured logs: the engine's warnings and errors reach Nest's logger with their fields
 * (topic, partition, offset, group, reason …) as a plain object next to the sentence, so a
 * JSON logger keeps them as data. A capturing LoggerService records the raw arguments.
 */
import { Injectable, type LoggerService } from '@nestjs/common';
import { BroadcastModule, OnBroadcast } from 'nestjs-kafka-broadcast';
import { newKafka, waitFor } from '../support/broker/kafka.js';
import { kafkaClients } from '../support/broker/kafka-clients.js';
import { useNestHarness } from '../support/nest/nest.js';

interface RawLine {
  level: string;
  message: unknown;
  params: unknown[];
}

/** Keeps every call's raw arguments: the sentence, the field object, Nest's context string. */
class RawCapturingLogger implements LoggerService {
  readonly lines: RawLine[] = [];
  log = (message: unknown, ...params: unknown[]) => this.push('log', message, params);
  warn = (message: unknown, ...params: unknown[]) => this.push('warn', message, params);
  error = (message: unknown, ...params: unknown[]) => this.push('error', message, params);
  debug = (message: unknown, ...params: unknown[]) => this.push('debug', message, params);
  verbose = (message: unknown, ...params: unknown[]) => this.push('verbose', message, params);

  /** The field object of the first `level` line whose sentence matches. */
  fields(level: string, pattern: RegExp): Record<string, unknown> | undefined {
    const line = this.lines.find(
      (l) => l.level === level && typeof l.message === 'string' && pattern.test(l.message),
    );
    return line?.params.find(
      (p): p is Record<string, unknown> => typeof p === 'object' && p !== null,
    );
  }

  private push(level: string, message: unknown, params: unknown[]) {
    this.lines.push({ level, message, params });
  }
}

@Injectable()
class ThrowingHandler {
  @OnBroadcast('jobs')
  handle(): void {
    throw new RangeError('no such job');
  }
}

describe.each(kafkaClients())('structured engine logs through Nest, %s client', (client) => {
  it('a skipped record and a failing handler log their fields as data', async () => {
    const h = useNestHarness('logs-fields', undefined, client);
    const logger = new RawCapturingLogger();
    const app = await h.start(
      {
        imports: [BroadcastModule.forRoot(h.options({ lock: false }))],
        providers: [ThrowingHandler],
      },
      { logger },
    );
    const { BroadcastEngine } = await import('nestjs-kafka-broadcast');
    const engine = app.get(BroadcastEngine);
    const groupId = engine.reader.status().groupId;
    const lockId = engine.reader.status().lockId;
    const topic = `${h.prefix}jobs`;

    const producer = newKafka('logs-fields').producer();
    await producer.connect();
    try {
      await producer.send({ topic, messages: [{ value: 'not json' }] });
    } finally {
      await producer.disconnect();
    }
    await engine.publisher.publish('jobs', { id: 1 });
    await waitFor(
      () => engine.reader.status().failed === 1 && engine.reader.status().skipped === 1,
    );

    expect(logger.fields('warn', /^Skipped broadcast/)).toEqual({
      topic: 'jobs',
      partition: 0,
      offset: '0',
      group: groupId,
      lockId,
      reason: expect.stringMatching(/not valid JSON/),
    });
    expect(logger.fields('error', /^Broadcast handler .* failed/)).toEqual({
      topic: 'jobs',
      partition: 0,
      offset: '1',
      group: groupId,
      lockId,
      handler: 'ThrowingHandler.handle',
      reason: 'no such job',
    });
    // Nest's context still names the source.
    const warn = logger.lines.find(
      (l) => l.level === 'warn' && String(l.message).startsWith('Skipped'),
    );
    expect(warn?.params.at(-1)).toBe('Broadcast');
  });
});
