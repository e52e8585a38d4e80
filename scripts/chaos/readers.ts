// The soak's API readers: several keys (Free ones among them, whose quota
// must hold exactly), several routes, conditional requests, on whichever web
// process is up.
import type { Slot } from './supervisor.js';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

export interface ApiStats {
  requests: number;
  status: Record<string, number>;
  transportErrors: number;
  timeouts: number;
  grantedByFreeKey: Map<string, number>;
  /** Where the answers were read (x-read-from: primary or replica), with a Postgres replica. */
  readFrom: Record<string, number>;
}

/** Readers on both web processes: several keys, several routes, conditional requests. */
export function startReaders(
  webs: () => Slot[],
  keys: { free: string[]; pro: string; enterprise: string },
  random: () => number,
  stats: ApiStats,
  concurrency: number,
): { stop(): Promise<void> } {
  let stopped = false;
  const insightIds: string[] = [];
  const etags = new Map<string, string>();
  const routes = () => {
    const id = insightIds[Math.floor(random() * insightIds.length)];
    const list = [
      '/api/insights?limit=5',
      '/api/insights?limit=3&min_score=0.2&sort=newest',
      '/api/categories',
      '/api/sources',
      '/api/usage',
      '/readyz',
    ];
    if (id) list.push(`/api/insights/${id}`, `/api/insights/${id}/trend-data`, `/api/insights/${id}/research`);
    return list;
  };
  const loop = async () => {
    while (!stopped) {
      const candidates = webs().filter((s) => s.process.running);
      const web = candidates[Math.floor(random() * candidates.length)];
      const url = web?.env.PORT ? `http://127.0.0.1:${web.env.PORT}` : undefined;
      if (!url) {
        await sleep(50);
        continue;
      }
      // Keys join during the soak (a fresh Free key per burst of runs).
      const allKeys = [...keys.free, keys.pro, keys.enterprise];
      const key = allKeys[Math.floor(random() * allKeys.length)]!;
      const all = routes();
      const route = all[Math.floor(random() * all.length)]!;
      const headers: Record<string, string> = { authorization: `Bearer ${key}` };
      const etag = etags.get(`${key}|${route}`);
      if (etag && random() < 0.3) headers['if-none-match'] = etag;
      try {
        const res = await fetch(`${url}${route}`, { headers, signal: AbortSignal.timeout(20_000) });
        const body = await res.text();
        stats.requests += 1;
        stats.status[res.status] = (stats.status[res.status] ?? 0) + 1;
        // /api/usage answers with the quota spent too, uncounted (it says when the quota resets): not a grant.
        if ((res.status === 200 || res.status === 304) && keys.free.includes(key) && route.startsWith('/api/') && route !== '/api/usage') {
          stats.grantedByFreeKey.set(key, (stats.grantedByFreeKey.get(key) ?? 0) + 1);
        }
        const from = res.headers.get('x-read-from');
        if (from) stats.readFrom[from] = (stats.readFrom[from] ?? 0) + 1;
        const tag = res.headers.get('etag');
        if (tag) etags.set(`${key}|${route}`, tag);
        if (res.status === 200 && route === '/api/insights?limit=5') {
          for (const item of (JSON.parse(body) as { data: Array<{ id: string }> }).data)
            if (!insightIds.includes(item.id)) insightIds.push(item.id);
        }
      } catch (error) {
        if ((error as Error).name === 'TimeoutError') stats.timeouts += 1;
        else stats.transportErrors += 1;
        await sleep(50);
      }
      await sleep(Math.floor(random() * 30));
    }
  };
  const loops = Array.from({ length: concurrency }, loop);
  return {
    async stop() {
      stopped = true;
      await Promise.all(loops);
    },
  };
}
