import { BroadcastOptionsError } from '../errors/broadcast-options.error.js';
import type { StandardSchemaV1 } from '../interfaces/standard-schema.interface.js';

/**
 * A broadcast topic with its payload type, and optionally a Standard Schema validator. Pass
 * it to publish(), @OnBroadcast() and engine.on() instead of the topic name, so publisher and
 * handlers agree on the payload at compile time (and at run time with a schema).
 */
export interface BroadcastDefinition<T = unknown> {
  readonly topic: string;
  readonly schema: StandardSchemaV1<unknown, T> | undefined;
  /** Carries T for the compiler only; never set. */
  readonly __payload?: T;
}

/** A topic name or a definition. */
export type BroadcastTopic<T = unknown> = string | BroadcastDefinition<T>;

/**
 * Defines a typed broadcast: `defineBroadcast<ProductChanged>('product.changed')`, or with a
 * validator (zod, valibot, arktype, …) whose output type becomes the payload type:
 * `defineBroadcast('product.changed', { schema: z.object({ id: z.number() }) })`.
 */
export function defineBroadcast<T>(
  topic: string,
  options: { schema?: StandardSchemaV1<unknown, T> } = {},
): BroadcastDefinition<T> {
  if (typeof topic !== 'string' || !/^[a-zA-Z0-9._-]+$/.test(topic))
    throw new BroadcastOptionsError('defineBroadcast topic', 'a name ([a-zA-Z0-9._-]+)', topic);
  const schema = options.schema;
  if (schema !== undefined && typeof schema?.['~standard']?.validate !== 'function')
    throw new BroadcastOptionsError(
      'defineBroadcast schema',
      'a Standard Schema validator',
      schema,
    );
  return Object.freeze({ topic, schema });
}

export function topicName(topic: BroadcastTopic<unknown>): string {
  return typeof topic === 'string' ? topic : topic.topic;
}

/** The validated (possibly transformed) value, or the issues as text. */
export type Validation = { value: unknown } | { issues: string[] };

/** Runs a Standard Schema; a validator that throws counts as an issue. */
export function validate(
  schema: StandardSchemaV1,
  value: unknown,
): Validation | Promise<Validation> {
  let result: StandardSchemaV1.Result<unknown> | Promise<StandardSchemaV1.Result<unknown>>;
  try {
    result = schema['~standard'].validate(value);
  } catch (error) {
    return { issues: [`validator threw: ${String(error)}`] };
  }
  if (result instanceof Promise)
    return result.then(toValidation, (error: unknown) => ({
      issues: [`validator threw: ${String(error)}`],
    }));
  return toValidation(result);
}

function toValidation(result: StandardSchemaV1.Result<unknown>): Validation {
  if (!result.issues) return { value: result.value };
  return { issues: result.issues.map(describeIssue) };
}

function describeIssue(issue: StandardSchemaV1.Issue): string {
  const path = issue.path
    ?.map((p) => (typeof p === 'object' ? String(p.key) : String(p)))
    .join('.');
  return path ? `${path}: ${issue.message}` : issue.message;
}
