import { BroadcastOptionsError } from '../../errors/broadcast-options.error.js';

// Small checks shared by the option resolver; each throws BroadcastOptionsError naming the option.

const NAME_PATTERN = /^[a-zA-Z0-9._-]*$/;

export function positiveInt(
  option: string,
  value: unknown,
  fallback: number,
  max = 2_147_483_647,
): number {
  if (value === undefined) return fallback;
  if (typeof value !== 'number' || !Number.isInteger(value) || value < 1 || value > max) {
    throw new BroadcastOptionsError(option, `an integer from 1 to ${max}`, value);
  }
  return value;
}

export function bool(option: string, value: unknown, fallback: boolean): boolean {
  if (value === undefined) return fallback;
  if (typeof value !== 'boolean') throw new BroadcastOptionsError(option, 'true or false', value);
  return value;
}

export function name(option: string, value: unknown, fallback: string): string {
  if (value === undefined) return fallback;
  if (typeof value !== 'string' || !NAME_PATTERN.test(value) || value.length > 200) {
    throw new BroadcastOptionsError(
      option,
      'a string of letters, digits, ".", "_" or "-" (at most 200)',
      value,
    );
  }
  return value;
}

export function nonEmptyName(option: string, value: unknown): string {
  const result = name(option, value, '');
  if (result === '')
    throw new BroadcastOptionsError(
      option,
      'a non-empty string of letters, digits, ".", "_" or "-"',
      value,
    );
  return result;
}

export function isObject(value: unknown): value is Record<string, any> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
