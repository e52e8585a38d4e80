// A kind's share of empty, no-data or changed answers "jumps" when the last 20
// are at least 30 points above the (up to) 200 before them.
import { describe, expect, it } from 'vitest';
import { AnswerShiftWatch } from '../../src/domain/trends/google/answer-shift.js';

const feed = (watch: AnswerShiftWatch, kind: string, outcomes: string[]) =>
  outcomes.map((o) => watch.record(kind, o)).filter((s) => s !== undefined);
const times = (n: number, outcome: string) => Array.from({ length: n }, () => outcome);
/** n answers of which `share` (rounded down, spread evenly) are `bad`. */
const mix = (n: number, share: number, bad = 'empty') =>
  Array.from({ length: n }, (_, i) => (Math.floor((i + 1) * share) > Math.floor(i * share) ? bad : 'served'));

describe('the answer shift watch', () => {
  it('warns once when the recent share jumps 30 points above the baseline, and names the kind and both shares', () => {
    const watch = new AnswerShiftWatch();
    expect(feed(watch, 'multiline', mix(100, 0.05, 'no_data'))).toEqual([]);
    const shifts = feed(watch, 'multiline', mix(40, 0.5, 'no_data'));
    expect(shifts).toHaveLength(1);
    expect(shifts[0]).toMatchObject({ kind: 'multiline', recent: 20, baseline: expect.any(Number) });
    expect(shifts[0]!.recentShare - shifts[0]!.baselineShare).toBeGreaterThanOrEqual(0.3);
    expect(shifts[0]!.baselineShare).toBeLessThan(0.1);
  });

  it('does not warn for a kind that is always empty (related lists today), nor for a rise under 30 points', () => {
    const watch = new AnswerShiftWatch();
    expect(feed(watch, 'relatedsearches', times(300, 'empty'))).toEqual([]);
    expect(feed(watch, 'comparedgeo', [...mix(100, 0.1, 'no_data'), ...mix(40, 0.35, 'no_data')])).toEqual([]);
  });

  it('waits for enough answers on both sides before it says anything', () => {
    const watch = new AnswerShiftWatch();
    // 19 served then 20 changed: a baseline of 19 is too short to compare with.
    expect(feed(watch, 'explore', [...times(19, 'served'), ...times(20, 'changed_shape')])).toEqual([]);
    // One more served answer before the change, and it is a jump.
    const fresh = new AnswerShiftWatch();
    expect(feed(fresh, 'explore', [...times(20, 'served'), ...times(20, 'changed_shape')])).toHaveLength(1);
  });

  it('ignores blocks and errors (they say nothing about what Google serves), and keeps kinds apart', () => {
    const watch = new AnswerShiftWatch();
    expect(feed(watch, 'autocomplete', [...times(50, 'served'), ...times(50, 'blocked'), ...times(50, 'error')])).toEqual([]);
    expect(feed(watch, 'multiline', times(30, 'empty'))).toEqual([]); // another kind's first answers: no baseline yet
  });

  it('warns again only after the share has come back near the baseline', () => {
    const watch = new AnswerShiftWatch();
    feed(watch, 'multiline', times(50, 'served'));
    expect(feed(watch, 'multiline', times(20, 'empty'))).toHaveLength(1);
    expect(feed(watch, 'multiline', times(10, 'empty'))).toEqual([]); // still high: said already
    feed(watch, 'multiline', times(40, 'served')); // back to normal
    expect(feed(watch, 'multiline', times(20, 'empty'))).toHaveLength(1);
  });
});
