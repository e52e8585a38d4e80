// Number helpers the scores, phrase choice and forecasts share, so that every figure
// is bounded and rounded the same way wherever it is computed.

/** `x` held to [0, 1]. */
export function clamp01(x: number): number {
  return x < 0 ? 0 : x > 1 ? 1 : x;
}

/** Round for storage and display: scores and shares are not meaningful beyond 3 decimals. */
export function round3(x: number): number {
  return Math.round(x * 1000) / 1000;
}

/** A share as a whole percentage, e.g. 0.42 → "42%". */
export const wholePercent = (x: number) => `${Math.round(x * 100)}%`;

/** A share to a tenth of a percent, e.g. 0.0042 → "0.4%": shares of searches are often under 1 %. */
export const tenthsPercent = (x: number) => `${Math.round(x * 1000) / 10}%`;
