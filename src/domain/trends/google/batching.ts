// Refreshing many insights with few requests: up to five keywords per Google
// Trends request, normalised together. Google scales each request to its
// largest point and rounds to integers, so a keyword much less popular than
// its partners comes back as a few coarse integers: put only keywords of
// comparable popularity together (the GTAB lesson), and serve a keyword from a
// batch only where it kept its precision. Pure: data in, data out.

/** Google takes up to five terms in one request. */
export const BATCH_SIZE = 5;

/**
 * A keyword is served from a batch only when its own peak there is at least
 * this (out of 100), i.e. its partners were at most about 10x more popular; otherwise
 * it gets a request of its own. Chosen on real five-keyword answers
 * (../shared/data/trends-batches; see bench:google and docs/benchmarks).
 */
export const MIN_PEAK_IN_BATCH = 10;

export interface Levelled {
  /** Popularity relative to a common anchor (research step compare_anchor, refined by refreshes); null when unknown. */
  level: number | null;
}

/**
 * Groups of up to five neighbours in popularity, most popular first. Items of
 * unknown popularity come last: too small for the anchor to measure, they sit
 * next to the smallest measured ones, whose levels the answer then passes on.
 * A member the answer leaves without precision is regrouped with the others
 * so left (refresh-leftovers.job.ts), by the level the answer measured.
 */
export function groupByLevel<T extends Levelled>(items: readonly T[], size = BATCH_SIZE): T[][] {
  const known = items.filter((i) => i.level !== null && i.level > 0).sort((a, b) => b.level! - a.level!);
  const unknown = items.filter((i) => i.level === null || i.level <= 0);
  const ordered = [...known, ...unknown];
  const groups: T[][] = [];
  for (let i = 0; i < ordered.length; i += size) groups.push(ordered.slice(i, i + size));
  return groups;
}

/**
 * The level given to the most popular member of a group whose levels are all
 * unknown: research could not measure them against the anchor (a mean of 0.5
 * against the anchor's 100 is the smallest it resolves), so this bounds them
 * from above, and their partners' levels follow from the answer.
 */
export const UNMEASURED_LEVEL = 0.005;

/** Whether a keyword's column in a batched answer kept enough precision to be served. */
export function servableFromBatch(column: readonly number[], batchSize: number): boolean {
  return batchSize === 1 || Math.max(0, ...column) >= MIN_PEAK_IN_BATCH;
}

/**
 * Levels learned from one batched answer: each member's mean relative to the
 * member whose level is known best (the group's leader), scaled by that level.
 * Members whose mean is 0 learn nothing.
 */
export function levelsFromBatch(means: readonly number[], leaderIndex: number, leaderLevel: number | null): Array<number | null> {
  const leaderMean = means[leaderIndex] ?? 0;
  return means.map((m) => (leaderLevel !== null && leaderLevel > 0 && leaderMean > 0 && m > 0 ? (leaderLevel * m) / leaderMean : null));
}
