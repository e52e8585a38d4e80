// Durations as operators type them: a whole number and a unit, `90d`, `24h`, `30m`, `45s`.

const UNITS_MS = { s: 1_000, m: 60_000, h: 3_600_000, d: 86_400_000 } as const;
export const DURATION_FORMAT = 'a whole number and a unit: s, m, h or d (e.g. 90d, 24h, 30m)';

/** Milliseconds, or null when the text is not a duration (see DURATION_FORMAT). */
export function parseDuration(text: string): number | null {
  const m = /^(\d{1,6})([smhd])$/.exec(text.trim());
  if (!m) return null;
  return Number(m[1]) * UNITS_MS[m[2] as keyof typeof UNITS_MS];
}
