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
 * this (out of 100), i.e. its partners were at most 4x more popular; otherwise
 * it gets a request of its own. Chosen on real five-keyword answers
 * (../shared/data/trends-batches; see bench:google and docs/benchmarks).
 */
export const MIN_PEAK_IN_BATCH = 25;

/** Partners grouped by their measured popularity may differ by at most this factor. */
export const MAX_LEVEL_RATIO = 100 / MIN_PEAK_IN_BATCH;

export interface Levelled {
  /** Popularity relative to a common anchor (research step 12, refined by refreshes); null when unknown. */
  level: number | null;
}

/**
 * Groups of up to five, most popular first: each group's members are within
 * MAX_LEVEL_RATIO of its first. Items with no known level go in groups of their
 * own kind (the refresh then learns their levels from the answer).
 */
export function groupByLevel<T extends Levelled>(items: readonly T[], size = BATCH_SIZE, maxRatio = MAX_LEVEL_RATIO): T[][] {
  const known = items.filter((i) => i.level !== null && i.level > 0).sort((a, b) => b.level! - a.level!);
  const unknown = items.filter((i) => i.level === null || i.level <= 0);
  const groups: T[][] = [];
  let group: T[] = [];
  for (const item of known) {
    const leader = group[0];
    if (leader && (group.length >= size || leader.level! / item.level! > maxRatio)) {
      groups.push(group);
      group = [];
    }
    group.push(item);
  }
  if (group.length > 0) groups.push(group);
  for (let i = 0; i < unknown.length; i += size) groups.push(unknown.slice(i, i + size));
  return groups;
}

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
