import { LIBRARY_VERSION } from './library-version.js';

/** What an instance writes into its group membership, for other instances' rosters. */
export interface MemberInfo {
  /** Marks the member as one of this library's instances. */
  nkb: 1;
  id: string;
  v: string;
  since: number;
  /** 0 when the instance does not answer receipts (option `receipts: false`). */
  r?: 0;
}

export function encodeMemberInfo(instanceId: string, since: number, receipts: boolean): string {
  const info: MemberInfo = { nkb: 1, id: instanceId, v: LIBRARY_VERSION, since };
  if (!receipts) info.r = 0;
  return JSON.stringify(info);
}

/** The member's info, or undefined for members of other clients (or older versions). */
export function decodeMemberInfo(userData: string | undefined): MemberInfo | undefined {
  if (!userData) return undefined;
  try {
    const info = JSON.parse(userData) as Partial<MemberInfo> | null;
    if (info?.nkb !== 1 || typeof info.id !== 'string') return undefined;
    return {
      nkb: 1,
      id: info.id,
      v: typeof info.v === 'string' ? info.v : 'unknown',
      since: typeof info.since === 'number' ? info.since : 0,
      ...(info.r === 0 && { r: 0 as const }),
    };
  } catch {
    return undefined;
  }
}
