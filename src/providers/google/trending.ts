// Google's trending searches by three roads, tried in order until one serves:
//
// 1. The RSS feed, /trending/rss?geo=XX (format.ts reads it). It answered 500
//    for every country in late 2026 (issue 51), when discovery had no other road.
// 2. The Trending Now RPC the /trending page itself calls: POST
//    /_/TrendsUi/data/batchexecute?rpcids=i0OFE with
//    f.req=[[["i0OFE","[null,null,\"US\",0,\"en\",24,1]",null,"generic"]]]
//    (country, language, the last 24 hours). Its answer (rt=c) is `)]}'` and
//    then length-prefixed JSON chunks; the chunk that matters is the envelope
//    ["wrb.fr","i0OFE","<payload as a JSON string>",…]. A null payload is
//    Google's error for the call (an actor's changelog: an error for every
//    country from 2026-11-09). In the payload, element 1 is the list of trends,
//    each an array: [0] the search, [3][0] when it started (Unix seconds),
//    [6] the search volume (a bucket's lower bound), [8] its rise in percent,
//    [9] the searches it groups. Sources: peers' clients reading it
//    (lipsum-app's Thai "Trending Now" client, m4rk4's feed handler, the
//    dailyTrends of a TypeScript Google Trends client), none of which Google
//    documents. News comes by another RPC (w4opAf), which is not asked: this
//    road's items carry no news.
// 3. The /trending page, where the RPC's answer is also embedded in the
//    page's data block `AF_initDataCallback({key: 'ds:N', …, data: <the RPC's
//    payload>, sideChannel: {}})`, as Google's Wiz pages embed their first
//    RPC answers. That is a shape chosen, not one observed: peers report the
//    page as a shell filled by the RPC; docs/providers.md says so.
//
// Each answer is checked against its shape: a changed shape is an error that
// names the road, never data. A road that fails hands over to the next; when
// every road fails, the error names each road and why, and is of the kind
// that decides what happens next (a block: wait; no answer: retry; a refusal:
// another route; only changed shapes: fail for good).
import type { GoogleSession } from './client.js';
import { GoogleUnavailableError } from './exchange.js';
import { isSorryPage, parseTrendingFeed } from './format.js';
import { MalformedResponseError, RateLimitedError, RefusedError } from '../contract.js';
import type { TrendingFeed, TrendingItem, TrendingRoad } from '../../domain/trends/answers.js';
import { ConsentRequiredError } from './errors.js';

export const TRENDING_PATHS = {
  rss: '/trending/rss',
  rpc: '/_/TrendsUi/data/batchexecute',
  page: '/trending',
} as const;
export const TRENDING_RPC_ID = 'i0OFE';
/** The window the RPC is asked for, in hours (the page offers 4, 24, 48 and 168). */
const RPC_HOURS = 24;
const ROAD_NAMES: Record<TrendingRoad, string> = {
  rss: 'the RSS feed',
  rpc: 'the Trending Now RPC',
  page: 'the /trending page',
};
const MAX_ITEMS = 100;
const MAX_TEXT = 300;

/** The RPC's form body: f.req as the page sends it. */
export function trendingRpcForm(geo: string, language: string): string {
  const inner = JSON.stringify([null, null, geo, 0, language, RPC_HOURS, 1]);
  return `f.req=${encodeURIComponent(JSON.stringify([[[TRENDING_RPC_ID, inner, null, 'generic']]]))}`;
}

export function trendingRpcPath(hl: string): string {
  return `${TRENDING_PATHS.rpc}?${new URLSearchParams({ rpcids: TRENDING_RPC_ID, 'source-path': TRENDING_PATHS.page, hl, rt: 'c' }).toString()}`;
}

function changed(road: TrendingRoad, what: string, reason: string): never {
  throw new MalformedResponseError(`Google Trends answer for ${what} through ${ROAD_NAMES[road]} is malformed: ${reason}`);
}

/** Google's bucket as the RSS feed writes it: 200+, 2K+, 10K+, 1M+. */
export function trafficBucket(volume: number): string {
  const short = (n: number) => String(Math.round(n * 10) / 10);
  if (volume >= 1e6) return `${short(volume / 1e6)}M+`;
  // The feed writes thousands plainly up to 5000+, then 10K+ (its buckets).
  if (volume >= 1e4) return `${short(volume / 1e3)}K+`;
  return `${Math.round(volume)}+`;
}

/** The ListTrends payload (the RPC's, the page's): its element 1, each trend checked. */
export function trendsOfPayload(payload: unknown, road: TrendingRoad, what: string): TrendingItem[] {
  if (!Array.isArray(payload)) changed(road, what, 'the payload is not an array');
  const list: unknown = payload[1] ?? [];
  if (!Array.isArray(list)) changed(road, what, 'the payload has no list of trends at [1]');
  const items: TrendingItem[] = [];
  for (const trend of list.slice(0, MAX_ITEMS)) {
    if (!Array.isArray(trend) || typeof trend[0] !== 'string' || trend[0].trim() === '')
      changed(road, what, 'a trend has no search at [0]');
    const volume: unknown = trend[6];
    if (volume !== null && volume !== undefined && (typeof volume !== 'number' || !Number.isFinite(volume) || volume < 0))
      changed(road, what, `a trend's volume at [6] is ${JSON.stringify(volume).slice(0, 40)}, not a number`);
    const started: unknown = Array.isArray(trend[3]) ? trend[3][0] : null;
    items.push({
      query: trend[0].replace(/\s+/g, ' ').trim().slice(0, MAX_TEXT),
      approxTraffic: typeof volume === 'number' ? trafficBucket(volume) : '',
      published: typeof started === 'number' && Number.isFinite(started) ? new Date(started * 1000).toISOString() : null,
      news: [],
    });
  }
  return items;
}

/**
 * The RPC's answer: the `)]}'` guard, then chunks, each a length line and a
 * JSON line. The i0OFE envelope must be there; its payload null is Google's
 * error for the call (a GoogleUnavailableError: Google unwell, not a new shape).
 */
export function parseTrendingRpc(body: string, what: string): TrendingItem[] {
  if (!/^\)\]\}'/.test(body))
    changed('rpc', what, `it does not start with Google's )]}' guard: "${body.slice(0, 60).replace(/\s+/g, ' ')}"`);
  const chunks: unknown[] = [];
  for (const line of body.replace(/^\)\]\}'/, '').split('\n')) {
    const text = line.trim();
    if (text === '' || /^\d+$/.test(text)) continue;
    try {
      chunks.push(JSON.parse(text));
    } catch {
      changed('rpc', what, `a chunk is not JSON: "${text.slice(0, 60)}"`);
    }
  }
  const envelope = chunks
    .flatMap((chunk) => (Array.isArray(chunk) ? chunk : []))
    .find((entry): entry is unknown[] => Array.isArray(entry) && entry[0] === 'wrb.fr' && entry[1] === TRENDING_RPC_ID);
  if (!envelope) changed('rpc', what, `no ["wrb.fr","${TRENDING_RPC_ID}",…] envelope`);
  if (envelope[2] === null || envelope[2] === undefined) {
    const status = Array.isArray(envelope[5]) ? ` (status ${JSON.stringify(envelope[5]).slice(0, 20)})` : '';
    throw new GoogleUnavailableError(`Google answered the Trending Now RPC for ${what} with an error${status}`);
  }
  if (typeof envelope[2] !== 'string') changed('rpc', what, 'the envelope holds no JSON string at [2]');
  let payload: unknown;
  try {
    payload = JSON.parse(envelope[2]);
  } catch {
    changed('rpc', what, "the envelope's payload is not JSON");
  }
  return trendsOfPayload(payload, 'rpc', what);
}

/**
 * The /trending page's embedded data: the first `AF_initDataCallback({…
 * data: …, sideChannel: …})` whose data is a list of trends. A page without
 * one is a changed shape, unless it is Google's "sorry" page.
 */
export function parseTrendingPage(html: string, what: string): TrendingItem[] {
  let blocks = 0;
  for (const match of html.matchAll(/AF_initDataCallback\(\{[^]*?\bdata:([^]*?), sideChannel: ?\{\}\}\);/g)) {
    if ((blocks += 1) > 20) break;
    let data: unknown;
    try {
      data = JSON.parse(match[1]!);
    } catch {
      continue;
    }
    if (Array.isArray(data) && Array.isArray(data[1])) return trendsOfPayload(data, 'page', what);
  }
  // A block page in a 200 is still a block (classifyAnswer caught the others).
  if (isSorryPage(html))
    throw new RateLimitedError(
      `Google Trends is rate limiting us (its "sorry" page) while fetching ${what} through the /trending page`,
      'unusual_traffic',
    );
  changed('page', what, blocks === 0 ? 'no AF_initDataCallback data block' : 'no data block holds a list of trends');
}

/** An error that came with no answer from Google at all (DNS, a refused connection): the other roads are on the same host. */
function noAnswer(error: unknown): boolean {
  return typeof (error as { code?: unknown }).code === 'string';
}

/** The failure that decides what happens when no road served, in this order: a block, no answer, a refusal, a changed shape. */
function decisive(failures: Array<{ road: TrendingRoad; error: unknown }>): unknown {
  const first = (test: (e: unknown) => boolean) => failures.find((f) => test(f.error))?.error;
  return (
    first((e) => e instanceof RateLimitedError) ??
    first((e) => !(e instanceof RefusedError) && !(e instanceof MalformedResponseError)) ??
    first((e) => e instanceof RefusedError) ??
    failures[0]!.error
  );
}

/** Google's trending searches for `geo`: the first road that serves, with which one it was and why the ones before did not. */
/** Each road, asked on its own: `readTrending` tries them in order, `insights google check` asks all three. */
export function trendingRoads(
  session: GoogleSession,
  geo: string,
  hl: string,
  what: string,
): Record<TrendingRoad, () => Promise<TrendingItem[]>> {
  const language = hl.split('-')[0] || 'en';
  return {
    rss: () =>
      session.trendingRoad(
        'trending_rss',
        `${TRENDING_PATHS.rss}?${new URLSearchParams({ geo }).toString()}`,
        `${what} (RSS feed)`,
        (xml) => parseTrendingFeed(xml, `${what} (RSS feed)`).items,
      ),
    rpc: () =>
      session.trendingRoad(
        'trending_rpc',
        trendingRpcPath(hl),
        `${what} (Trending Now RPC)`,
        (body) => parseTrendingRpc(body, what),
        trendingRpcForm(geo, language),
      ),
    page: () =>
      session.trendingRoad(
        'trending_page',
        `${TRENDING_PATHS.page}?${new URLSearchParams({ geo, hl }).toString()}`,
        `${what} (/trending page)`,
        (html) => parseTrendingPage(html, what),
      ),
  };
}

export async function readTrending(session: GoogleSession, geo: string, hl: string, what: string): Promise<TrendingFeed> {
  const roads = trendingRoads(session, geo, hl, what);
  const failures: Array<{ road: TrendingRoad; error: unknown }> = [];
  for (const road of ['rss', 'rpc', 'page'] as const) {
    try {
      const items = await roads[road]();
      const passedOver = failures.map((f) => ({ road: f.road, why: whyPassedOver(f.error) }));
      return { kind: 'trendingFeed', items, road, ...(passedOver.length ? { passedOver } : {}) };
    } catch (error) {
      // Google's EU consent page is the route's, whatever the road: the others would meet it too.
      if (error instanceof ConsentRequiredError) throw error;
      failures.push({ road, error });
      if (noAnswer(error)) break;
    }
  }
  const error = decisive(failures);
  const said = failures.map((f) => `${ROAD_NAMES[f.road]}: ${messageOf(f.error)}`).join('; ');
  const tried =
    failures.length === 3 ? 'every road' : `${failures.map((f) => ROAD_NAMES[f.road]).join(', ')} (no answer came, so not the others)`;
  if (error instanceof Error) error.message = `no road to Google's trending searches for ${what} served (${tried}): ${said}`;
  throw error;
}

/**
 * Why a road was passed over, in fixed words: the evidence of a run is shown to
 * API clients, and Google's own text (quoted in the errors) stays with the
 * operator (the exchange's report, the logs).
 */
function whyPassedOver(error: unknown): string {
  if (error instanceof RateLimitedError) return 'blocked';
  if (error instanceof RefusedError) return 'refused';
  if (error instanceof MalformedResponseError) return 'changed shape';
  if (error instanceof GoogleUnavailableError) return 'Google answered with an error';
  return 'no answer';
}

const messageOf = (error: unknown) => (error instanceof Error ? error.message : String(error)).slice(0, 300);
