import { DEFAULT_RECEIPTS_TOPIC } from '../core/options/feature-options.resolver.js';
import { DEFAULT_RECEIPT_TIMEOUT_MS } from '../core/publishing/publish-features.js';
import type { BroadcastTarget } from '../core/features/targeting/targeting.js';
import { parseDuration } from './duration.js';

/** `publish`'s options as commander hands them over. */
export interface PublishInput {
  key?: string;
  header?: string[];
  /** Each --to-instances value, comma-separated ids. */
  toInstances?: string[];
  /** Each --to-services value, comma-separated group base names. */
  toServices?: string[];
  /** --receipts alone (true) or with its timeout. */
  receipts?: string | true;
  receiptsTopic?: string;
}

/** One publish, checked: nothing is sent unless every option is valid. */
export interface PublishRequest {
  /** The payload as given (valid JSON). */
  value: string;
  key: string | null;
  headers: Record<string, string>;
  /** Only these instances and/or services handle it (the library's `to`); everyone when undefined. */
  to: BroadcastTarget | undefined;
  /** Wait for the instances' acknowledgements, on the application's receipts topic. */
  receipts: { timeoutMs: number; topic: string } | undefined;
}

/** Instance ids and group base names, as the library's targeting accepts them. */
const NAME = /^[a-zA-Z0-9._-]+$/;

/** Checks `publish <topic> <json>`'s payload and options; throws naming the bad one. */
export function parsePublishRequest(json: string, input: PublishInput): PublishRequest {
  try {
    JSON.parse(json);
  } catch (error) {
    throw new Error(`<json> is not valid JSON: ${(error as Error).message}`);
  }
  const headers = Object.fromEntries(
    (input.header ?? []).map((h) => {
      const at = h.indexOf('=');
      if (at <= 0) throw new Error(`--header must be name=value, got '${h}'`);
      return [h.slice(0, at), h.slice(at + 1)];
    }),
  );
  const instances = names('--to-instances', 'instance ids', 'instance', input.toInstances);
  const services = names(
    '--to-services',
    'services (group base names)',
    'service',
    input.toServices,
  );
  const to =
    instances || services
      ? { ...(instances && { instances }), ...(services && { services }) }
      : undefined;
  return {
    value: json,
    key: input.key ?? null,
    headers,
    to,
    receipts: receiptsOption(input),
  };
}

/** The names of every use of a repeatable, comma-separated option; undefined when not used. */
function names(
  option: string,
  what: string,
  one: string,
  values: string[] | undefined,
): string[] | undefined {
  if (values === undefined || values.length === 0) return undefined;
  const list = values.flatMap((v) => v.split(',').map((n) => n.trim())).filter(Boolean);
  for (const name of list)
    if (!NAME.test(name))
      throw new Error(
        `${option} takes ${what} separated by commas (letters, digits, '.', '_' and '-'), got '${values.join(',')}'`,
      );
  if (list.length === 0) throw new Error(`${option} names no ${one}`);
  return list;
}

function receiptsOption(input: PublishInput): PublishRequest['receipts'] {
  if (input.receipts === undefined) {
    if (input.receiptsTopic !== undefined)
      throw new Error('--receipts-topic applies only with --receipts');
    return undefined;
  }
  const topic = input.receiptsTopic ?? DEFAULT_RECEIPTS_TOPIC;
  if (topic.trim() === '') throw new Error('--receipts-topic must name a topic');
  return { timeoutMs: receiptsTimeout(input.receipts), topic };
}

/** --receipts' timeout: milliseconds, or a duration; the library's default without one. */
function receiptsTimeout(value: string | true): number {
  if (value === true) return DEFAULT_RECEIPT_TIMEOUT_MS;
  const text = value.trim();
  let ms = /^\d+$/.test(text) ? Number(text) : Number.NaN;
  if (Number.isNaN(ms)) {
    try {
      ms = parseDuration('--receipts', text);
    } catch {
      // Reported below, with what --receipts accepts.
    }
  }
  if (!Number.isSafeInteger(ms) || ms <= 0)
    throw new Error(
      `--receipts takes a timeout in milliseconds (e.g. 5000) or a duration like 30s or 2m, got '${value}'`,
    );
  return ms;
}
