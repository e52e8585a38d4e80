// A least-recently-used map bounded by a cost (entries or bytes): what the
// response and key caches are built on. Map keeps insertion order, so moving
// an entry to the end on every read makes the first entry the coldest.

export class Lru<K, V> {
  private readonly map = new Map<K, { value: V; cost: number }>();
  private total = 0;

  constructor(
    /** The bound: the sum of the entries' costs never exceeds it. */
    private readonly budget: number,
    private readonly costOf: (key: K, value: V) => number = () => 1,
  ) {}

  get size(): number {
    return this.map.size;
  }

  /** The sum of the entries' costs (bytes, for the response cache). */
  get cost(): number {
    return this.total;
  }

  get(key: K): V | undefined {
    const entry = this.map.get(key);
    if (!entry) return undefined;
    this.map.delete(key);
    this.map.set(key, entry);
    return entry.value;
  }

  /** Stores the value, evicting the coldest entries until it fits; one that alone exceeds the budget is not kept. */
  set(key: K, value: V): void {
    this.delete(key);
    const cost = this.costOf(key, value);
    if (cost > this.budget) return;
    while (this.total + cost > this.budget) {
      const coldest = this.map.keys().next();
      if (coldest.done) break;
      this.delete(coldest.value);
    }
    this.map.set(key, { value, cost });
    this.total += cost;
  }

  delete(key: K): void {
    const entry = this.map.get(key);
    if (!entry) return;
    this.map.delete(key);
    this.total -= entry.cost;
  }

  /** Removes every entry for which `stale` says so. */
  prune(stale: (key: K, value: V) => boolean): void {
    for (const [key, entry] of this.map) if (stale(key, entry.value)) this.delete(key);
  }
}
