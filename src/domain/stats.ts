// Order statistics that the forecasts and the spend report share. Not simple-statistics' median:
// at an even length it rounds the mean of the middle two differently in the last bit, and the
// forecasts' calibration tables were measured with this arithmetic.

/** The middle value of a non-empty list (the mean of the middle two at an even length). */
export function median(values: readonly number[]): number {
  const s = [...values].sort((a, b) => a - b);
  const m = s.length >> 1;
  return s.length % 2 ? s[m]! : (s[m - 1]! + s[m]!) / 2;
}
