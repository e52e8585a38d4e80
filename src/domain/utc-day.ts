// The UTC calendar day that daily counts are kept by: the API quota, the
// research allowance, webhook sends and the paid provider's bill all start
// again at UTC midnight.

/** The UTC calendar day of `at`, e.g. "2026-11-22". */
export function utcDay(at: Date): string {
  return at.toISOString().slice(0, 10);
}

/** The next UTC midnight after `at`: when the day's counts start again. */
export function nextUtcMidnight(at: Date): Date {
  return new Date(Date.UTC(at.getUTCFullYear(), at.getUTCMonth(), at.getUTCDate() + 1));
}

/** The UTC calendar day `days` after `day` (both "YYYY-MM-DD"): the dates of a weekly series and its forecast. */
export function addUtcDays(day: string, days: number): string {
  return utcDay(new Date(Date.parse(`${day}T00:00:00Z`) + days * 86_400_000));
}
