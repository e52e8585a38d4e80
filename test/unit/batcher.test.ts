import { describe, expect, it } from 'vitest';
import { Batcher } from '../../src/db/batcher.js';

describe('Batcher', () => {
  it('sends a lone item at once and groups what arrives while a batch is in flight', async () => {
    const batches: number[][] = [];
    const batcher = new Batcher(async (items: number[]) => {
      batches.push(items);
      await new Promise((r) => setTimeout(r, 5));
      return items.map((n) => n * 10);
    });
    expect(await batcher.submit(1)).toBe(10);
    await new Promise((r) => setTimeout(r, 0)); // idle again
    const results = await Promise.all([2, 3, 4, 5].map((n) => batcher.submit(n)));
    expect(results).toEqual([20, 30, 40, 50]);
    expect(batches).toEqual([[1], [2], [3, 4, 5]]);
    expect(batcher.stats).toEqual({ statements: 3, items: 5 });
  });

  it('retries each item of a failed batch alone, so only the bad one fails', async () => {
    const batcher = new Batcher(async (items: string[]) => {
      if (items.includes('bad')) throw new Error('bad row');
      return items.map((s) => s.toUpperCase());
    });
    const first = batcher.submit('a');
    const outcomes = await Promise.allSettled(['b', 'bad', 'c'].map((s) => batcher.submit(s)));
    expect(await first).toBe('A');
    expect(outcomes.map((o) => (o.status === 'fulfilled' ? o.value : (o.reason as Error).message))).toEqual(['B', 'bad row', 'C']);
  });

  it('caps a batch at maxBatch items', async () => {
    const sizes: number[] = [];
    const batcher = new Batcher(async (items: number[]) => {
      sizes.push(items.length);
      return items;
    }, 3);
    await Promise.all(Array.from({ length: 8 }, (_, i) => batcher.submit(i)));
    expect(sizes).toEqual([1, 3, 3, 1]);
  });
});
