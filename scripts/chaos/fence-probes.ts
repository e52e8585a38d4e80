// Read-your-writes from a client's side (the LSN fence, with a Postgres
// replica): what a client has just been told, the API shows at once, whichever
// web process answers and wherever it reads. A run the API accepted (202) is
// there when the client follows its Location; an insight a webhook announced
// is there when the receiver's owner asks for it. A 404 for either is a read
// older than the write the client saw: a violation.
import type { WebhookReceiver } from './receiver.js';
import type { Slot } from './supervisor.js';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
/** Answers a client tries again after (the web process was away or busy): not an answer about the data. */
const RETRYABLE = new Set([408, 429, 502, 503, 504]);
const RETRY_FOR_MS = 60_000;

export interface FenceStats {
  probes: number;
  /** Where the probes were answered from (x-read-from): the replica, or the primary the fence sent them to. */
  readFrom: Record<string, number>;
  /** Reads older than the write the client had seen. */
  stale: string[];
  /** Probes with no answer about the data within a minute (web processes away): said, not counted as stale. */
  unanswered: number;
}

export function startFenceProbes(webs: () => Slot[], receiver: WebhookReceiver, readerKeys: string[], random: () => number) {
  const stats: FenceStats = { probes: 0, readFrom: {}, stale: [], unanswered: 0 };

  /** GETs `path` as `key` until it gets an answer about the data; a 404 is a stale read. */
  const probe = async (path: string, key: string, what: string): Promise<void> => {
    const deadline = Date.now() + RETRY_FOR_MS;
    while (Date.now() < deadline) {
      const live = webs().filter((s) => s.process.running && s.env.PORT);
      const web = live[Math.floor(random() * live.length)];
      if (!web) {
        await sleep(50);
        continue;
      }
      try {
        const res = await fetch(`http://127.0.0.1:${web.env.PORT}${path}`, {
          headers: { authorization: `Bearer ${key}` },
          signal: AbortSignal.timeout(20_000),
        });
        await res.arrayBuffer();
        if (RETRYABLE.has(res.status)) {
          await sleep(100);
          continue;
        }
        stats.probes += 1;
        const from = res.headers.get('x-read-from') ?? 'primary';
        stats.readFrom[from] = (stats.readFrom[from] ?? 0) + 1;
        if (res.status !== 200) stats.stale.push(`${what}: GET ${path} answered ${res.status} by ${web.name} (read from the ${from})`);
        return;
      } catch {
        await sleep(100); // killed mid-request: ask again
      }
    }
    stats.unanswered += 1;
  };

  // Every insight.created the receiver answered 200 is looked up once, as its owner would on being told.
  let stopped = false;
  let seen = 0;
  const inFlight = new Set<Promise<void>>();
  const announcements = (async () => {
    while (!stopped) {
      for (; seen < receiver.receipts.length; seen += 1) {
        const r = receiver.receipts[seen]!;
        if (r.answered !== 200 || r.type !== 'insight.created' || !r.insightId) continue;
        const key = readerKeys[seen % readerKeys.length]!;
        const p = probe(`/api/insights/${r.insightId}`, key, `insight ${r.insightId} announced by webhook ${r.webhookId}`);
        inFlight.add(p);
        void p.finally(() => inFlight.delete(p));
      }
      await sleep(100);
    }
  })();

  return {
    stats,
    /** After a 202: the run is there at its Location. */
    followRun: (runId: string, key: string) => probe(`/api/research-runs/${runId}`, key, `run ${runId} accepted by the API`),
    async stop(): Promise<void> {
      stopped = true;
      await announcements;
      await Promise.all(inFlight);
    },
  };
}
