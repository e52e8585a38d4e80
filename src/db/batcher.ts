// Many small statements issued at the same moment, sent as one. On this kind
// of machine a round trip to Postgres costs far more in syscalls and wake-ups
// than the work inside it, so a worker with 20–50 jobs in flight spends most
// of its time on them. A Batcher lets one statement be in flight; whatever is
// submitted meanwhile waits for it and goes out together in the next one.
// There is no timer: a lone item is sent at once, so batching adds no latency,
// only fewer round trips under load.

export type BatchFn<In, Out> = (items: In[]) => Promise<Out[]>;

interface Pending<In, Out> {
  item: In;
  resolve(out: Out): void;
  reject(error: unknown): void;
}

export class Batcher<In, Out> {
  private queued: Array<Pending<In, Out>> = [];
  private busy = false;
  /** Statements sent and items they carried: their ratio is the batching achieved. */
  readonly stats = { statements: 0, items: 0 };

  /**
   * @param run answers for every item, in order. If it throws for a batch of
   *   several, each item is retried alone, so one bad item fails only itself.
   */
  constructor(
    private readonly run: BatchFn<In, Out>,
    private readonly maxBatch = 200,
  ) {}

  submit(item: In): Promise<Out> {
    const promise = new Promise<Out>((resolve, reject) => this.queued.push({ item, resolve, reject }));
    if (!this.busy) void this.drain();
    return promise;
  }

  private async drain(): Promise<void> {
    this.busy = true;
    try {
      while (this.queued.length > 0) await this.send(this.queued.splice(0, this.maxBatch));
    } finally {
      this.busy = false;
    }
  }

  private async send(batch: Array<Pending<In, Out>>): Promise<void> {
    try {
      this.stats.statements += 1;
      this.stats.items += batch.length;
      const results = await this.run(batch.map((p) => p.item));
      batch.forEach((p, i) => p.resolve(results[i]!));
    } catch (error) {
      if (batch.length === 1) return batch[0]!.reject(error);
      for (const p of batch) await this.send([p]);
    }
  }
}
