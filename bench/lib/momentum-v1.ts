// Momentum as it was scored until 2026-11-23 (kept as bench:momentum's
// baseline): the least-squares trend of the 30-day window, mapped through a
// tanh so a 30-day change of ±25 % scores about 0.88 / 0.12; a forecast's
// direction counted for a third when there was one. The baseline runs it
// without a forecast, as the issue that replaced it measured it.
import { relativeSlopePerDay } from '../../src/domain/scoring/series.js';

const SCALE = 0.25;

export function momentumV1(values: readonly number[]): number | null {
  if (values.length < 14 || values.every((v) => v === 0)) return null;
  const change = relativeSlopePerDay(values) * (values.length - 1);
  return Math.tanh(change / (2 * SCALE)) / 2 + 0.5;
}
