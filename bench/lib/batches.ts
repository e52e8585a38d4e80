// How precise a series served from a five-keyword request is, measured on real
// Google answers: files in the format of ../shared/data/trends-batches (the
// same keyword answered in several 5-keyword requests with different
// partners). For each request and each daily refresh window (the last 90 days,
// stepping back 30 days at a time) it does what the refresh does: renormalise
// the five columns together over the window (as a 90-day request would), keep
// a keyword only when its peak there is at least MIN_PEAK_IN_BATCH, and serve
// its last 30 days rescaled to 0–100. The reference is what the keyword's
// other requests say for those 30 days (their median, each rescaled the same
// way): Google's answers differ from request to request by sampling, so the
// same measure is taken of what one-keyword requests serve (appearances that
// are their window's 100) as the floor no batching can beat.
import { readFile } from 'node:fs/promises';
import { MIN_PEAK_IN_BATCH } from '../../src/domain/trends/batching.js';

export interface SeriesErrors {
  /** Served under the rule (peak in the batch at least MIN_PEAK_IN_BATCH). */
  served: number[];
  /** Every appearance, as a batcher without the rule would serve it. */
  blind: number[];
  /** Appearances that were their window's 100: what a one-keyword request returns. */
  single: number[];
  requests: number;
  keywords: number;
}

function parseCsv(text: string): string[][] {
  return text
    .trim()
    .split('\n')
    .map((line) => line.split(','));
}

const rescale = (xs: readonly number[]) => {
  const m = Math.max(0, ...xs);
  return xs.map((x) => (m > 0 ? Math.round((x * 100) / m) : 0));
};

function median(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  const mid = Math.floor(s.length / 2);
  return s.length % 2 ? s[mid]! : (s[mid - 1]! + s[mid]!) / 2;
}

export async function measureBatchedSeries(file: string, windowDays = 90, servedDays = 30, minPeak = MIN_PEAK_IN_BATCH): Promise<SeriesErrors> {
  const indexFile = file.replace(/\.csv$/, '-index.csv');
  const [values, index] = await Promise.all([readFile(file, 'utf8'), readFile(indexFile, 'utf8')]);
  const head = parseCsv(index)[0]!;
  const col = (name: string) => head.indexOf(name);
  const requests = new Map<string, string[]>();
  for (const row of parseCsv(index).slice(1)) {
    requests.set(row[col('request_id')]!, [1, 2, 3, 4, 5].map((j) => row[col(`keyword_${j}`)]!).filter(Boolean));
  }
  const series = new Map<string, number[]>(); // request|keyword → values by date
  for (const [request, keyword, , value] of parseCsv(values).slice(1)) {
    const key = `${request}|${keyword}`;
    const list = series.get(key) ?? [];
    list.push(Number(value));
    series.set(key, list);
  }
  const appearances = new Map<string, string[]>(); // keyword → requests
  for (const [request, keywords] of requests) for (const k of keywords) appearances.set(k, [...(appearances.get(k) ?? []), request]);

  const out: SeriesErrors = { served: [], blind: [], single: [], requests: requests.size, keywords: appearances.size };
  const length = Math.min(...[...series.values()].map((s) => s.length));
  for (let end = length; end >= windowDays; end -= servedDays) {
    for (const [request, keywords] of requests) {
      const windows = keywords.map((k) => series.get(`${request}|${k}`)!.slice(end - windowDays, end));
      const top = Math.max(0, ...windows.flat());
      if (top === 0) continue;
      keywords.forEach((keyword, i) => {
        const column = windows[i]!.map((v) => Math.round((v * 100) / top));
        const served = rescale(column.slice(-servedDays));
        const others = appearances
          .get(keyword)!
          .filter((r) => r !== request)
          .map((r) => series.get(`${r}|${keyword}`)!.slice(end - servedDays, end))
          .filter((w) => Math.max(...w) > 0)
          .map(rescale);
        if (others.length < 2 || Math.max(...served) === 0) return;
        const reference = served.map((_, d) => median(others.map((o) => o[d]!)));
        const error = served.reduce((sum, v, d) => sum + Math.abs(v - reference[d]!), 0) / servedDays;
        out.blind.push(error);
        if (Math.max(...column) >= minPeak) out.served.push(error);
        if (Math.max(...column) === 100) out.single.push(error);
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
