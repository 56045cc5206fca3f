// Credits as text ↔ integer micro-credits (1 credit = $1 = 1,000,000 micro-credits). Never floats.
import { StoreError } from './errors.js';

export const MICROS_PER_CREDIT = 1_000_000;
const AMOUNT = /^(\d+)(?:\.(\d{1,6}))?$/;

/** `"12.5"` → 12_500_000. At most 6 decimals; more, a sign, an exponent or a non-number is refused. */
export function parseCredits(text: string): number {
  const match = AMOUNT.exec(text.trim());
  if (match === null)
    throw new StoreError(
      'GW_ERR_STORE_INVALID',
      `'${text}' is not an amount of credits (e.g. 10 or 2.5, at most 6 decimals)`,
    );
  const micros = BigInt(match[1]!) * BigInt(MICROS_PER_CREDIT) + BigInt((match[2] ?? '').padEnd(6, '0'));
  if (micros > BigInt(Number.MAX_SAFE_INTEGER))
    throw new StoreError('GW_ERR_STORE_INVALID', `'${text}' credits is too large`);
  return Number(micros);
}

/** 12_500_000 → `"12.5"`; whole amounts without a point. */
export function formatCredits(micros: number): string {
  const sign = micros < 0 ? '-' : '';
  const abs = Math.abs(micros);
  const whole = Math.floor(abs / MICROS_PER_CREDIT);
  const fraction = String(abs % MICROS_PER_CREDIT)
    .padStart(6, '0')
    .replace(/0+$/, '');
  return `${sign}${whole}${fraction ? '.' + fraction : ''}`;
}
