// `insights seed --demo`: real 30-day Google Trends windows from the GTAB anchor
// bank (data/trends-series in the repository, or any folder in its format),
// read in place. Every score shown is computed by the same domain code as real
// research, over that real data; what a bare series cannot support is null
// with the reason. They are recorded real series of 2020, not startup ideas:
// source `recorded-series`, in the US market they were recorded in, asked by
// the topic's name, and dated (their title and every answer say "recorded"
// with their first and last day). The quick start's startup ideas are the
// simulated ones of demo-research.ts, which rank above them.
import { createReadStream } from 'node:fs';
import { access } from 'node:fs/promises';
import path from 'node:path';
import { createInterface } from 'node:readline';
import type { Db } from '../db/connection.js';
import { SOURCES } from '../domain/catalog.js';
import { newId } from '../domain/ids.js';
import { classifyCategory, type CategoryChoice } from '../domain/research/category.js';
import { DIMENSIONS, type DimensionScores, unsupported } from '../domain/scoring/dimensions.js';
import { assessMomentum } from '../domain/scoring/momentum.js';
import { combineScores } from '../domain/scoring/overall.js';
import { seriesQuality, type SeriesPoint } from '../domain/scoring/series.js';
import { forecast as fitForecast } from '../domain/forecast/forecaster.js';
import { upsertForecast } from '../insights/forecast.repository.js';
import { upsertInsight } from '../insights/insight.repository.js';
import { replaceTrendPoints, upsertInsightSeries } from '../insights/trend-point.repository.js';

export const DEMO_WINDOW_DAYS = 30;
export const DEFAULT_DEMO_COUNT = 48;
const DAILY_FILE = 'gtab-us-daily.csv';
/** Google topic id → its name and Freebase types (455 of the 466 topics), beside the series. */
const NAMES_FILE = 'keyword-names.tsv';

export class DemoDataMissingError extends Error {}

export async function readSeriesCsv(dir: string): Promise<Map<string, SeriesPoint[]>> {
  const file = path.join(dir, DAILY_FILE);
  try {
    await access(file);
  } catch {
    throw new DemoDataMissingError(
      `No demo data at ${file}. Pass --from DIR pointing at a folder with ${DAILY_FILE} (series_id,date,value), ` +
        'such as data/trends-series in the repository (the default; DEMO_SERIES_DIR moves it).',
    );
  }
  const series = new Map<string, SeriesPoint[]>();
  const lines = createInterface({ input: createReadStream(file), crlfDelay: Infinity });
  let header = true;
  for await (const line of lines) {
    if (header) {
      header = false;
      if (!line.startsWith('series_id,date,value')) {
        throw new DemoDataMissingError(`${file} does not start with the header series_id,date,value`);
      }
      continue;
    }
    if (line.trim() === '') continue;
    const [id, date, value] = line.split(',');
    const v = Number(value);
    if (!id || !date || !/^\d{4}-\d{2}-\d{2}$/.test(date) || !Number.isFinite(v)) continue;
    let points = series.get(id);
    if (!points) series.set(id, (points = []));
    points.push({ date, value: v });
  }
  for (const points of series.values()) points.sort((a, b) => a.date.localeCompare(b.date));
  return series;
}

/** A demo topic as keyword-names.tsv describes it: its name and its Freebase types ("Dish", "Ingredient"). */
export interface KeywordTopic {
  name: string;
  types: string[];
}

/** Topic names and Freebase types by Google topic id ("/m/01245r" → Raclette, Dish and Food); empty when the file is absent. */
export async function readKeywordTopics(dir: string): Promise<Map<string, KeywordTopic>> {
  const topics = new Map<string, KeywordTopic>();
  try {
    await access(path.join(dir, NAMES_FILE));
  } catch {
    return topics;
  }
  const lines = createInterface({ input: createReadStream(path.join(dir, NAMES_FILE)), crlfDelay: Infinity });
  for await (const line of lines) {
    const [mid, name, types] = line.split('\t');
    if (!mid || !name || mid === 'keyword_mid') continue;
    topics.set(mid.trim(), {
      name: name.trim(),
      types: (types ?? '')
        .split(',')
        .map((t) => t.trim())
        .filter(Boolean),
    });
  }
  return topics;
}

/** Topic names by Google topic id ("/m/01245r" → "Raclette"); empty when the file is absent. */
export async function readKeywordNames(dir: string): Promise<Map<string, string>> {
  return new Map([...(await readKeywordTopics(dir))].map(([mid, topic]) => [mid, topic.name]));
}

/**
 * A demo topic's category: its name and its Freebase types are all the
 * evidence a bare series has (the types decide: "Dish", "Ingredient" are
 * Food & Drink). A topic without a name stays uncategorized.
 */
export function categoryOfDemoTopic(name: string | undefined, freebaseTypes: readonly string[]): CategoryChoice {
  if (name === undefined) return classifyCategory({ idea: '', phrases: [], topics: [] });
  return classifyCategory({ idea: name, phrases: [], topics: [], freebaseTypes });
}

/** Cuts the last `days` and rescales them by the window's own maximum, as Google does per request. */
export function lastWindowRescaled(points: readonly SeriesPoint[], days: number): SeriesPoint[] {
  const window = points.slice(-days);
  const max = Math.max(...window.map((p) => p.value));
  if (!(max > 0)) return window.map((p) => ({ ...p, value: 0 }));
  return window.map((p) => ({ date: p.date, value: Math.round((p.value / max) * 100) }));
}

const MISSING_IN_DEMO: Record<Exclude<(typeof DIMENSIONS)[number], 'momentum'>, string> = {
  demand: 'needs a comparison against an anchor term; the demo series has none',
  durability: 'needs the 5-year series; the demo keeps 90 days',
  reach: 'needs interest by region; the demo series is US-only',
  breadth: 'needs autocomplete topics, the modifier comparison or related lists; the demo series has none',
  pain: 'needs the modifier comparison or related queries; the demo series has none',
  intent: 'needs the modifier comparison or related queries; the demo series has none',
  whitespace: 'needs the modifier comparison, autocomplete topics or related queries; the demo series has none',
};

export function scoreDemoSeries(
  window: readonly SeriesPoint[],
  window90?: readonly SeriesPoint[],
  forecast7?: ReadonlyArray<{ value: number }> | null,
) {
  const dimensions = { momentum: assessMomentum({ days30: window, days90: window90, forecast7 }).momentum } as DimensionScores;
  for (const [name, reason] of Object.entries(MISSING_IN_DEMO)) {
    dimensions[name as keyof typeof MISSING_IN_DEMO] = unsupported(reason);
  }
  const quality = seriesQuality(window, DEMO_WINDOW_DAYS);
  return { dimensions, overall: combineScores(dimensions, quality.quality), quality };
}

/** The Google topic id of a series id ("gtab_US:/m/01245r" → "/m/01245r"). */
export function topicOf(seriesId: string): string {
  return seriesId.split(':').slice(1).join(':') || seriesId;
}

/**
 * Picks `count` series evenly across the sorted ids, among those whose last
 * window has enough non-zero days to say anything (the rest would only show
 * "not enough data" rows). People read the demo by its topics' names, so when
 * `names` covers enough of them, only named topics are picked.
 */
export function chooseDemoSeries(all: Map<string, SeriesPoint[]>, count: number, names: ReadonlyMap<string, string> = new Map()): string[] {
  const usable = [...all.entries()]
    .filter(([, points]) => points.length >= DEMO_WINDOW_DAYS)
    .filter(([, points]) => points.slice(-DEMO_WINDOW_DAYS).filter((p) => p.value > 0).length >= 20)
    .map(([id]) => id)
    .sort();
  const named = usable.filter((id) => names.has(topicOf(id)));
  const pool = named.length >= Math.min(count, usable.length) ? named : usable;
  if (pool.length <= count) return pool;
  const step = pool.length / count;
  return Array.from({ length: count }, (_, i) => pool[Math.floor(i * step)]!);
}

/** What a seed loaded: how many insights, and how many of them carry their topic's name. */
export interface DemoSeedResult {
  inserted: number;
  named: number;
  dir: string;
}

export async function seedDemo(db: Db, dir: string, count = DEFAULT_DEMO_COUNT): Promise<DemoSeedResult> {
  const all = await readSeriesCsv(dir);
  const topics = await readKeywordTopics(dir);
  const names = new Map([...topics].map(([mid, topic]) => [mid, topic.name]));
  const chosen = chooseDemoSeries(all, count, names);
  if (chosen.length === 0) throw new DemoDataMissingError(`${path.join(dir, DAILY_FILE)} has no usable series`);
  const fetchedAt = new Date();
  await db.transaction().execute(async (trx) => {
    for (const seriesId of chosen) {
      const window = lastWindowRescaled(all.get(seriesId)!, DEMO_WINDOW_DAYS);
      const window90 = lastWindowRescaled(all.get(seriesId)!, 90);
      // Fitted on the 90 days, as the refresh does: the same forecaster, over real data.
      const forecast = fitForecast(
        window90.map((p) => p.date),
        window90.map((p) => p.value),
        7,
      );
      const { dimensions, overall } = scoreDemoSeries(window, window90, forecast.withheld ? null : forecast.points);
      const topic = topicOf(seriesId);
      const first = window90[0]!.date;
      const last = window.at(-1)!.date;
      // People search by the topic's name (Google's own topic id is kept in the idea, for provenance).
      const name = names.get(topic);
      const id = await upsertInsight(trx, {
        id: newId('insight'),
        idea_key: `demo:${seriesId}`,
        title: `${name ?? `Google topic ${topic}`} — US search interest`,
        idea: `Recorded real US Google Trends interest in ${name ? `${name} (Google topic ${topic})` : `the Google topic ${topic}`}, ${first} to ${last} (the last ${window.length} days shown, all ${window90.length} kept): a real series of ${first.slice(0, 4)}, not a startup idea`,
        primary_keyword: name ?? topic,
        keywords: [name ?? topic],
        category: categoryOfDemoTopic(name, topics.get(topic)?.types ?? []).category,
        source: SOURCES.recordedSeries,
        geo: 'US',
        overall_score: overall.score,
        confidence: overall.confidence,
        dimensions,
        summary: `${dimensions.momentum.explanation} A recorded series (${first} to ${last}): only momentum can be scored from a bare series; the other dimensions say what evidence they need.`,
        status: 'active',
      });
      await replaceTrendPoints(trx, id, window, fetchedAt);
      await upsertInsightSeries(trx, id, '90d', window90, fetchedAt);
      await upsertForecast(trx, id, forecast, fetchedAt);
    }
  });
  return { inserted: chosen.length, named: chosen.filter((id) => names.has(topicOf(id))).length, dir };
}
