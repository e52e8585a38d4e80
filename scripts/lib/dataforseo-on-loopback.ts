// A DataForSEO on loopback for tests and benchmarks: its two live endpoints
// the provider uses, answering the JSON shapes of its v3 docs (the envelope,
// tasks, explore items, search-volume results), its Basic auth, its billing
// and its limits:
//   a wrong login or password     HTTP 401, status_code 40100
//   money running out              each task costs its price; below it, HTTP 402 with 40200
//   its per-minute limits          past `perMinute` tasks in a window: the task answers 40202
//   a task that fails              failNext(n, code): the next n tasks answer that code (50000, 40501 …)
// Figures come from a deterministic world: each keyword has a popularity of its
// own (1–1000), from which its series, maps, related lists and monthly searches
// follow. Plain HTTP on 127.0.0.1 (the product allows http: only to this machine).
import { createHash, randomUUID } from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { LOOPBACK_COUNTRIES, LOOPBACK_REGIONS } from './loopback-places.js';

export const FAKE_LOGIN = 'loopback-login';
export const FAKE_PASSWORD = 'loopback-password';
/** Per task, in US dollars: what the fake bills (DataForSEO's list prices are read from its answers, not assumed). */
export const FAKE_PRICES = { explore: 0.009, searchVolume: 0.075 } as const;

const EXPLORE = '/v3/keywords_data/google_trends/explore/live';
const VOLUME = '/v3/keywords_data/google_ads/search_volume/live';

export interface DataForSeoOnLoopback {
  url: string;
  /** DATAFORSEO_* for a process that should use it. */
  env: Record<string, string>;
  /** Every task answered or refused, in order. */
  requests: Array<{ endpoint: 'explore' | 'searchVolume' | 'other'; status: number; code: number; body: unknown }>;
  /** Dollars left; each answered task spends its price. */
  balanceUsd: number;
  /** The password it accepts (change it to simulate a rotated or wrong one). */
  password: string;
  /** The next `n` tasks answer `code` (a task-level failure under a top-level 20000). */
  failNext(n: number, code: number, message?: string): void;
  stop(): Promise<void>;
}

export interface LoopbackOptions {
  balanceUsd?: number;
  /** Tasks per window per endpoint before 40202 (DataForSEO: Trends 250 a minute, Google Ads 12). */
  perMinute?: { explore: number; searchVolume: number };
  windowMs?: number;
}

/** A keyword's popularity in the simulated world, 1–1000 (same keyword, same value). */
export function popularityOf(keyword: string): number {
  const h = createHash('sha256').update(keyword.toLowerCase()).digest();
  return 1 + (h.readUInt32BE(0) % 1000);
}
const wobble = (keyword: string, i: number) => {
  const h = createHash('sha256').update(`${keyword.toLowerCase()}|${i}`).digest();
  return 0.8 + (h.readUInt16BE(0) / 65535) * 0.4;
};

const WINDOWS: Record<string, { points: number; stepDays: number }> = {
  past_30_days: { points: 31, stepDays: 1 },
  past_90_days: { points: 91, stepDays: 1 },
  past_12_months: { points: 53, stepDays: 7 },
  past_5_years: { points: 261, stepDays: 7 },
};

const day = (ms: number) => new Date(ms).toISOString().slice(0, 10);

function graphItem(keywords: string[], timeRange: string) {
  const { points, stepDays } = WINDOWS[timeRange] ?? WINDOWS.past_12_months!;
  const now = Date.UTC(new Date().getUTCFullYear(), new Date().getUTCMonth(), new Date().getUTCDate());
  const raw = keywords.map((k) => Array.from({ length: points }, (_, i) => popularityOf(k) * wobble(k, i) * (1 + (0.3 * i) / points)));
  const peak = Math.max(...raw.flat());
  const data = Array.from({ length: points }, (_, i) => {
    const from = now - (points - 1 - i) * stepDays * 86_400_000;
    return {
      date_from: day(from),
      date_to: day(from + (stepDays - 1) * 86_400_000),
      timestamp: Math.floor(from / 1000),
      missing_data: false,
      values: raw.map((series) => Math.round((series[i]! / peak) * 100)),
    };
  });
  return {
    position: 1,
    type: 'google_trends_graph',
    title: 'Interest over time',
    keywords,
    data,
    averages: raw.map((_, k) => Math.round(data.reduce((s, d) => s + d.values[k]!, 0) / data.length)),
  };
}

function mapItem(keywords: string[], locationCode: number | undefined) {
  const places = locationCode === 2840 ? LOOPBACK_REGIONS.US! : locationCode === undefined ? LOOPBACK_COUNTRIES : [];
  const raw = places.map(([code], i) => keywords.map((k) => popularityOf(`${k}|${code}`) * (1 - i * 0.05)));
  const peak = Math.max(1, ...raw.flat());
  return {
    position: 2,
    type: 'google_trends_map',
    title: locationCode === undefined ? 'Compared breakdown by region' : 'Compared breakdown by subregion',
    keywords,
    data: places.map(([code, name], i) => ({
      geo_id: code,
      geo_name: name,
      values: raw[i]!.map((v) => Math.round((v / peak) * 100)),
      max_value_index: keywords.length === 1 ? null : raw[i]!.indexOf(Math.max(...raw[i]!)),
    })),
  };
}

function queriesItem(keyword: string) {
  const top = ['app', 'free', 'best', 'price', 'how to', 'problem', 'vs', 'alternative'].map((word, i) => ({
    query: word === 'best' || word === 'how to' ? `${word} ${keyword}` : `${keyword} ${word}`,
    value: 100 - i * 11,
  }));
  const rising = [
    { query: `${keyword} ai`, value: 'Breakout' },
    { query: `${keyword} near me`, value: 350 },
    { query: `cheap ${keyword}`, value: 120 },
  ];
  return { position: 3, type: 'google_trends_queries_list', title: 'Related queries', keywords: [keyword], data: { top, rising } };
}

function topicsItem(keyword: string) {
  const id = (i: number) => `/m/0${createHash('sha1').update(`${keyword}|${i}`).digest('hex').slice(0, 5)}`;
  return {
    position: 4,
    type: 'google_trends_topics_list',
    title: 'Related topics',
    keywords: [keyword],
    data: {
      top: [0, 1, 2].map((i) => ({ topic_id: id(i), topic_title: `${keyword} topic ${i + 1}`, topic_type: 'Topic', value: 100 - i * 20 })),
      rising: [{ topic_id: id(9), topic_title: `${keyword} trend`, topic_type: 'Topic', value: '+250%' }],
    },
  };
}

function volumeResult(keyword: string, locationCode: number | undefined, languageCode: string | undefined) {
  const p = popularityOf(keyword);
  const volume = p < 15 ? null : Math.round((p * p) / 10);
  const now = new Date();
  const months = Array.from({ length: 12 }, (_, i) => {
    const d = new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth() - 1 - i, 1));
    return {
      year: d.getUTCFullYear(),
      month: d.getUTCMonth() + 1,
      search_volume: volume === null ? null : Math.round(volume * wobble(keyword, i)),
    };
  });
  const competitionIndex = volume === null ? null : p % 101;
  return {
    keyword: keyword.toLowerCase(),
    spell: null,
    location_code: locationCode ?? null,
    language_code: languageCode ?? null,
    search_partners: false,
    competition: competitionIndex === null ? null : competitionIndex < 34 ? 'LOW' : competitionIndex < 67 ? 'MEDIUM' : 'HIGH',
    competition_index: competitionIndex,
    search_volume: volume,
    low_top_of_page_bid: volume === null ? null : Math.round(p) / 500,
    high_top_of_page_bid: volume === null ? null : Math.round(p) / 120,
    cpc: volume === null ? null : Math.round(p) / 250,
    monthly_searches: volume === null ? null : months,
  };
}

const envelope = (status: number, message: string, tasks: unknown[] | null, cost: number) => ({
  version: '0.1.20261101',
  status_code: status,
  status_message: message,
  time: '0.1000 sec.',
  cost,
  tasks_count: tasks?.length ?? 0,
  tasks_error: (tasks ?? []).filter((t) => (t as { status_code: number }).status_code !== 20000).length,
  tasks,
});

export async function startDataForSeoOnLoopback(options: LoopbackOptions = {}): Promise<DataForSeoOnLoopback> {
  const perMinute = options.perMinute ?? { explore: 250, searchVolume: 12 };
  const windowMs = options.windowMs ?? 60_000;
  const windows = { explore: { start: 0, count: 0 }, searchVolume: { start: 0, count: 0 } };
  const failures: Array<{ code: number; message: string }> = [];
  const state: DataForSeoOnLoopback = {
    url: '',
    env: {},
    requests: [],
    balanceUsd: options.balanceUsd ?? 100,
    password: FAKE_PASSWORD,
    failNext(n, code, message = code === 50000 ? 'Internal Error.' : code === 40501 ? "Invalid Field: 'keywords'." : 'Task failed.') {
      for (let i = 0; i < n; i++) failures.push({ code, message });
    },
    stop: async () => {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };

  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const send = (status: number, body: unknown, endpoint: 'explore' | 'searchVolume' | 'other', code: number, parsed: unknown) => {
        state.requests.push({ endpoint, status, code, body: parsed });
        res.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(body));
      };
      const endpoint = req.url === EXPLORE ? 'explore' : req.url === VOLUME ? 'searchVolume' : 'other';
      let parsed: unknown;
      try {
        parsed = JSON.parse(Buffer.concat(chunks).toString('utf8'));
      } catch {
        parsed = undefined;
      }
      const expected = `Basic ${Buffer.from(`${FAKE_LOGIN}:${state.password}`).toString('base64')}`;
      if (req.headers.authorization !== expected)
        return send(401, envelope(40100, 'You are not authorized to access this resource.', null, 0), endpoint, 40100, parsed);
      if (req.method !== 'POST' || endpoint === 'other') return send(404, envelope(40400, 'Not Found.', null, 0), endpoint, 40400, parsed);
      const price = FAKE_PRICES[endpoint];
      if (state.balanceUsd < price) return send(402, envelope(40200, 'Payment Required.', null, 0), endpoint, 40200, parsed);
      const task = Array.isArray(parsed) && parsed.length === 1 ? (parsed[0] as Record<string, unknown>) : undefined;
      const base = { id: randomUUID(), time: '0.0900 sec.', path: ['v3', ...req.url!.split('/').slice(2)], data: task ?? null };
      const taskError = (code: number, message: string) =>
        send(
          200,
          envelope(20000, 'Ok.', [{ ...base, status_code: code, status_message: message, cost: 0, result_count: 0, result: null }], 0),
          endpoint,
          code,
          parsed,
        );
      if (!task) return send(200, envelope(40503, 'POST Data Is Invalid.', null, 0), endpoint, 40503, parsed);
      const now = Date.now();
      const w = windows[endpoint];
      if (now - w.start >= windowMs) Object.assign(w, { start: now, count: 0 });
      w.count += 1;
      if (w.count > perMinute[endpoint]) return taskError(40202, 'The rate-limit per minute has been exceeded.');
      const failure = failures.shift();
      if (failure) return taskError(failure.code, failure.message);
      const keywords = task.keywords;
      if (!Array.isArray(keywords) || keywords.length === 0 || keywords.some((k) => typeof k !== 'string'))
        return taskError(40501, "Invalid Field: 'keywords'.");
      const locationCode = typeof task.location_code === 'number' ? task.location_code : undefined;
      let result: unknown[];
      if (endpoint === 'explore') {
        if (keywords.length > 5) return taskError(40501, "Invalid Field: 'keywords'.");
        const types = Array.isArray(task.item_types) ? (task.item_types as string[]) : ['google_trends_graph'];
        const timeRange = typeof task.time_range === 'string' ? task.time_range : 'past_12_months';
        if (!WINDOWS[timeRange]) return taskError(40501, "Invalid Field: 'time_range'.");
        const items: unknown[] = [];
        for (const type of types) {
          if (type === 'google_trends_graph') items.push(graphItem(keywords as string[], timeRange));
          else if (type === 'google_trends_map') items.push(mapItem(keywords as string[], locationCode));
          // Related lists are served for a single keyword only.
          else if (type === 'google_trends_queries_list' && keywords.length === 1) items.push(queriesItem(keywords[0] as string));
          else if (type === 'google_trends_topics_list' && keywords.length === 1) items.push(topicsItem(keywords[0] as string));
          else if (!type.startsWith('google_trends_')) return taskError(40501, "Invalid Field: 'item_types'.");
        }
        result = [
          {
            keywords,
            type: 'web',
            location_code: locationCode ?? null,
            language_code: 'en',
            check_url: `https://trends.google.com/trends/explore?q=${encodeURIComponent((keywords as string[]).join(','))}`,
            datetime: new Date().toISOString().replace('T', ' ').replace(/\..*$/, ' +00:00'),
            items_count: items.length,
            items,
          },
        ];
      } else {
        if (keywords.some((k) => (k as string).length > 80 || /[!@%^*()={};~`<>?\\|]/.test(k as string)))
          return taskError(40501, "Invalid Field: 'keywords'.");
        result = (keywords as string[]).map((k) => volumeResult(k, locationCode, task.language_code as string | undefined));
      }
      state.balanceUsd = Math.round((state.balanceUsd - price) * 1e6) / 1e6;
      send(
        200,
        envelope(
          20000,
          'Ok.',
          [{ ...base, status_code: 20000, status_message: 'Ok.', cost: price, result_count: result.length, result }],
          price,
        ),
        endpoint,
        20000,
        parsed,
      );
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  state.url = `http://127.0.0.1:${port}`;
  state.env = { DATAFORSEO_API_URL: state.url, DATAFORSEO_LOGIN: FAKE_LOGIN, DATAFORSEO_PASSWORD: FAKE_PASSWORD };
  return state;
}
