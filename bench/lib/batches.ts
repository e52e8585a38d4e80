// How precise a 30-day series served from a five-keyword request is, measured
// on real Google answers: files in the format of ../shared/data/trends-batches
// (one row per request, keyword and day; the same keyword answered in several
// requests with different partners). Requests of any length from 30 days, on
// any dates, are accepted: appearances are compared day by day.
//
// What the refresh does, replayed on each request:
//   - a request of 90 days or more yields the 90-day windows (ending every 30
//     days from its last day) that hold the request's own 100: there the values
//     are exactly what a 90-day request for the five would have said. Windows
//     without it are skipped, since renormalising rounded integers invents
//     precision that Google never gave (a keyword at 7 of 100 over 242 days
//     would read as steps of 14 points, not as a 90-day answer);
//   - a shorter request (30 to 89 days) is its own window;
//   - a keyword is served when the shipped rule (servableFromBatch) accepts its
//     column, and what is served is the window's last 30 days rescaled so their
//     maximum is 100, rounded, as the refresh stores them.
//
// The reference is what a one-keyword 30-day request would say: the mean of
// the keyword's other appearances on those 30 days, each rescaled by its own
// maximum, counting only appearances whose own 30-day peak is at least
// REFERENCE_MIN_PEAK on their request's scale (so a rounding step of theirs is
// at most 2 points). A series without such a reference is not measurable here
// and is counted apart.
//
// Google samples: two answers for the same keyword and days differ even at full
// precision. Two figures show how much of the error is that: `single`, the same
// measure for appearances that are the 100 of their 30 days (what a one-keyword
// request returns), and `selfAgreement`, pairs of such appearances of the same
// keyword and days against each other.
import { readFile } from 'node:fs/promises';
import { servableFromBatch } from '../../src/domain/trends/google/batching.js';
import { median } from './report.js';

export const SERVED_DAYS = 30;
export const WINDOW_DAYS = 90;
/** A reference appearance's 30-day peak must be at least this, on its own request's scale. */
export const REFERENCE_MIN_PEAK = 50;

export interface SeriesErrors {
  /** Served under the shipped rule (servableFromBatch). */
  served: number[];
  /** Every appearance, as a batcher without the rule would serve it. */
  blind: number[];
  /** Appearances that are the 100 of their 30 days: what a one-keyword 30-day request returns. */
  single: number[];
  /** Pairs of such full-precision appearances of the same keyword and days, against each other. */
  selfAgreement: number[];
  /** Served series with no precise reference (not in `served`). */
  unmeasurable: number;
  requests: number;
  keywords: number;
  /** Request lengths seen, in days. */
  requestDays: { min: number; max: number };
}

interface Request {
  id: string;
  geo: string;
  keywords: string[];
  dates: string[];
  /** Per keyword, its values on `dates`, as Google returned them (the request's scale). */
  values: number[][];
}

function csvRows(text: string): string[][] {
  return text
    .trim()
    .split(/\r?\n/)
    .map((line) => line.split(','));
}

function columnIndex(head: string[], name: string, file: string): number {
  const i = head.indexOf(name);
  if (i < 0) throw new Error(`bench:google: ${file} has no "${name}" column (columns: ${head.join(', ')})`);
  return i;
}

const DAY_MS = 86_400_000;
const dayNumber = (date: string) => Date.parse(`${date}T00:00:00Z`) / DAY_MS;

/** The requests of a batches file and its `-index` file, checked: daily values, every keyword on every day. */
export async function readBatches(file: string): Promise<Request[]> {
  const indexFile = file.replace(/\.csv$/, '-index.csv');
  const [valuesText, indexText] = await Promise.all([
    readFile(file, 'utf8'),
    readFile(indexFile, 'utf8').catch((error: unknown) => {
      throw new Error(`bench:google: the index file beside ${file} (${indexFile}) cannot be read: ${(error as Error).message}`);
    }),
  ]);
  const index = csvRows(indexText);
  const ih = index[0]!;
  const idCol = columnIndex(ih, 'request_id', indexFile);
  const geoCol = ih.indexOf('geo');
  const keywordCols = [1, 2, 3, 4, 5].map((j) => columnIndex(ih, `keyword_${j}`, indexFile));
  const requests = new Map<string, { geo: string; keywords: string[]; days: Map<string, Map<string, number>> }>();
  for (const row of index.slice(1)) {
    const keywords = keywordCols.map((c) => row[c] ?? '').filter(Boolean);
    requests.set(row[idCol]!, {
      geo: geoCol >= 0 ? (row[geoCol] ?? '') : '',
      keywords,
      days: new Map(keywords.map((k) => [k, new Map()])),
    });
  }
  const rows = csvRows(valuesText);
  const vh = rows[0]!;
  const [rq, kw, dt, vl] = ['request_id', 'keyword_mid', 'date', 'value'].map((c) => columnIndex(vh, c, file)) as [
    number,
    number,
    number,
    number,
  ];
  for (const row of rows.slice(1)) {
    const request = requests.get(row[rq]!);
    const value = Number(row[vl]);
    if (!request) throw new Error(`bench:google: ${file} names request ${row[rq]}, which ${indexFile} does not list`);
    if (!Number.isFinite(value)) throw new Error(`bench:google: ${file}: "${row[vl]}" is not a number (request ${row[rq]}, ${row[dt]})`);
    request.days.get(row[kw]!)?.set(row[dt]!, value);
  }
  const out: Request[] = [];
  for (const [id, r] of requests) {
    const dates = [...(r.days.get(r.keywords[0]!)?.keys() ?? [])].sort();
    if (dates.length === 0) continue;
    for (let i = 1; i < dates.length; i += 1) {
      if (dayNumber(dates[i]!) - dayNumber(dates[i - 1]!) !== 1) {
        throw new Error(
          `bench:google: request ${id} in ${file} is not daily (${dates[i - 1]} then ${dates[i]}); 30-day series are measured on daily answers`,
        );
      }
    }
    const values = r.keywords.map((k) => dates.map((d) => r.days.get(k)!.get(d) ?? NaN));
    if (values.some((v) => v.some((x) => Number.isNaN(x))))
      throw new Error(`bench:google: request ${id} in ${file} lacks a value for some keyword on some day`);
    out.push({ id, geo: r.geo, keywords: r.keywords, dates, values });
  }
  return out;
}

const rescaled = (xs: readonly number[]) => {
  const m = Math.max(0, ...xs);
  return xs.map((x) => (m > 0 ? (x * 100) / m : 0));
};
const meanAbsDiff = (a: readonly number[], b: readonly number[]) => a.reduce((s, x, i) => s + Math.abs(x - b[i]!), 0) / a.length;

export async function measureBatchedSeries(file: string): Promise<SeriesErrors> {
  const requests = await readBatches(file);
  // geo|keyword → its appearances: request, and value by date on that request's scale.
  const appearances = new Map<string, Array<{ request: string; byDate: Map<string, number> }>>();
  for (const r of requests) {
    r.keywords.forEach((k, i) => {
      const key = `${r.geo}|${k}`;
      const list = appearances.get(key) ?? [];
      list.push({ request: r.id, byDate: new Map(r.dates.map((d, j) => [d, r.values[i]![j]!])) });
      appearances.set(key, list);
    });
  }
  const lengths = requests.map((r) => r.dates.length);
  const out: SeriesErrors = {
    served: [],
    blind: [],
    single: [],
    selfAgreement: [],
    unmeasurable: 0,
    requests: requests.length,
    keywords: appearances.size,
    requestDays: { min: Math.min(...lengths), max: Math.max(...lengths) },
  };
  const selfPairsSeen = new Set<string>();
  const topOf = new Map(requests.map((r) => [r.id, Math.max(0, ...r.values.flat())]));

  for (const r of requests) {
    const n = r.dates.length;
    if (n < SERVED_DAYS) continue;
    const top = topOf.get(r.id)!;
    if (top === 0) continue;
    const ends =
      n >= WINDOW_DAYS ? Array.from({ length: Math.floor((n - WINDOW_DAYS) / SERVED_DAYS) + 1 }, (_, i) => n - i * SERVED_DAYS) : [n];
    for (const end of ends) {
      const start = Math.max(0, end - WINDOW_DAYS);
      if (Math.max(...r.values.map((v) => Math.max(...v.slice(start, end)))) !== top) continue; // not what a request for this window says
      const days = r.dates.slice(end - SERVED_DAYS, end);
      r.keywords.forEach((keyword, i) => {
        const column = r.values[i]!.slice(start, end);
        const last = column.slice(-SERVED_DAYS);
        const peak = Math.max(...last);
        if (peak === 0) return; // nothing to serve: Google has no data for these days
        const served = rescaled(last).map(Math.round);
        const others = (appearances.get(`${r.geo}|${keyword}`) ?? [])
          .filter((a) => a.request !== r.id && days.every((d) => a.byDate.has(d)))
          .map((a) => ({ request: a.request, values: days.map((d) => a.byDate.get(d)!) }));
        const precise = others.filter((o) => Math.max(...o.values) >= REFERENCE_MIN_PEAK);
        const isServed = servableFromBatch(column, r.keywords.length);
        if (precise.length === 0) {
          if (isServed) out.unmeasurable += 1;
          return;
        }
        const scaled = precise.map((o) => rescaled(o.values));
        const reference = days.map((_, d) => scaled.reduce((s, o) => s + o[d]!, 0) / scaled.length);
        const error = meanAbsDiff(served, reference);
        out.blind.push(error);
        if (isServed) out.served.push(error);
        if (peak === top) {
          out.single.push(error);
          for (const o of others.filter((x) => Math.max(...x.values) === topOf.get(x.request))) {
            const pair = [r.id, o.request].sort().join('|') + `|${keyword}|${days[0]}`;
            if (selfPairsSeen.has(pair)) continue;
            selfPairsSeen.add(pair);
            out.selfAgreement.push(meanAbsDiff(served, rescaled(o.values).map(Math.round)));
          }
        }
      });
    }
  }
  return out;
}

export function summarize(errors: number[]) {
  const sorted = [...errors].sort((a, b) => a - b);
  return {
    series: sorted.length,
    median: sorted.length ? Math.round(median(sorted) * 100) / 100 : null,
    p95: sorted.length ? Math.round(sorted[Math.floor(sorted.length * 0.95)]! * 100) / 100 : null,
    within5: sorted.length ? Math.round((sorted.filter((e) => e <= 5).length / sorted.length) * 1000) / 1000 : null,
  };
}
