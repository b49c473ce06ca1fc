import { BroadcastPublishError } from '../../../errors/broadcast-publish.error.js';
import { BroadcastHeaders as H } from '../../broadcast-headers.js';

/** Which instances a broadcast is for; every instance when omitted. */
export interface BroadcastTarget {
  /** Instance ids (the `instanceId` option). */
  instances?: readonly string[];
  /** Services: group base names (the `groupBaseName` option). */
  services?: readonly string[];
}

/** Who an instance is, for targeting. */
export interface TargetIdentity {
  instanceId: string;
  service: string | undefined;
}

/** The targeting headers of one publish, checked: names only, no commas. */
export function targetHeaders(
  to: BroadcastTarget | undefined,
  exceptInstance: string | undefined,
): Record<string, string> {
  const headers: Record<string, string> = {};
  if (to !== undefined) {
    if (typeof to !== 'object' || to === null)
      throw new BroadcastPublishError('to', '{ instances?: string[], services?: string[] }', to);
    if (to.instances !== undefined) headers[H.toInstances] = list('to.instances', to.instances);
    if (to.services !== undefined) headers[H.toServices] = list('to.services', to.services);
  }
  if (exceptInstance !== undefined) headers[H.except] = exceptInstance;
  return headers;
}

/**
 * Whether a message with these headers is for this instance: in `to.instances` or in
 * `to.services` when either is given (a union), and not the excepted publisher.
 */
export function isTargeted(
  headers: Readonly<Record<string, string>>,
  self: TargetIdentity,
): boolean {
  if (headers[H.except] === self.instanceId) return false;
  const instances = headers[H.toInstances];
  const services = headers[H.toServices];
  if (instances === undefined && services === undefined) return true;
  if (instances !== undefined && split(instances).includes(self.instanceId)) return true;
  return (
    services !== undefined && self.service !== undefined && split(services).includes(self.service)
  );
}

/** The same rule for a roster entry, so receipts expect exactly the targeted instances. */
export function targets(
  to: BroadcastTarget | undefined,
  exceptInstance: string | undefined,
  instance: TargetIdentity,
): boolean {
  return isTargeted(targetHeaders(to, exceptInstance), instance);
}

function list(option: string, names: unknown): string {
  const valid =
    Array.isArray(names) &&
    names.every((n) => typeof n === 'string' && /^[a-zA-Z0-9._-]+$/.test(n));
  if (!valid) throw new BroadcastPublishError(option, 'an array of names ([a-zA-Z0-9._-]+)', names);
  return (names as string[]).join(',');
}

function split(value: string): string[] {
  return value === '' ? [] : value.split(',');
}
