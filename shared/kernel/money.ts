/** Money is computed in integer minor units (centimes) and exposed as {amount: "123.45", currency: "MAD"}. */
export const CURRENCY = 'MAD' as const;

export interface Money {
  amount: string;
  currency: typeof CURRENCY;
}

export function toMinor(amount: string): number {
  const m = /^(-)?(\d+)\.(\d{2})$/.exec(amount);
  if (!m) throw new Error(`not a two-decimal amount: ${amount}`);
  const v = Number(m[2]) * 100 + Number(m[3]);
  if (!Number.isSafeInteger(v)) throw new Error(`amount out of range: ${amount}`);
  return m[1] ? -v : v;
}

/** A MAD amount as typed in a query ("250", "250.5", "250.50") to minor units. */
export function parseMad(s: string): number {
  const [units, cents = ''] = s.split('.');
  return toMinor(`${units}.${cents.padEnd(2, '0')}`);
}

export function formatMinor(minor: number): string {
  if (!Number.isSafeInteger(minor)) throw new Error(`not an integer amount of minor units: ${minor}`);
  const sign = minor < 0 ? '-' : '';
  const abs = Math.abs(minor);
  return `${sign}${Math.floor(abs / 100)}.${String(abs % 100).padStart(2, '0')}`;
}

export const money = (minor: number): Money => ({ amount: formatMinor(minor), currency: CURRENCY });
