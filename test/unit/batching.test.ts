import { describe, expect, it } from 'vitest';
import { groupByLevel, levelsFromBatch, MIN_PEAK_IN_BATCH, servableFromBatch } from '../../src/domain/trends/google/batching.js';

describe('batching keywords into one Google request', () => {
  it('groups neighbours in popularity, five at a time, the unmeasured last', () => {
    const items = [0.5, 3, null, 0.01, 40, 2, 0.9, null, 7, 0.02, 0.03].map((level, i) => ({ id: `k${i}`, level }));
    const groups = groupByLevel(items);
    expect(groups.map((g) => g.map((i) => i.level))).toEqual([[40, 7, 3, 2, 0.9], [0.5, 0.03, 0.02, 0.01, null], [null]]);
    expect(groupByLevel([])).toEqual([]);
  });

  it('serves a keyword from a batch only where its peak kept precision', () => {
    expect(servableFromBatch([0, 3, MIN_PEAK_IN_BATCH, 2], 5)).toBe(true);
    expect(servableFromBatch([0, 3, MIN_PEAK_IN_BATCH - 1, 2], 5)).toBe(false);
    expect(servableFromBatch([0, 1, 0], 1)).toBe(true); // alone, it is its own scale
  });

  it("learns each member's level from the leader's and the answer's means", () => {
    expect(levelsFromBatch([50, 10, 0], 0, 2)).toEqual([2, 0.4, null]);
    expect(levelsFromBatch([50, 10], 0, null)).toEqual([null, null]);
  });
});
