// Google Trends on loopback, for tests and benchmarks. It answers as Google
// answers automated clients today (2025–2026), computed from a simulated world
// (world.ts) with bodies shaped like the recordings in
// ../shared/data/google-trends-recorded. Clients reach it as production reaches
// Google through a proxy: an HTTP CONNECT proxy on loopback (proxy.ts) and TLS
// for trends.google.com and www.google.com with a certificate of our own
// authority. Clients are told apart by their address, so each loopback proxy
// (bound to its own 127.0.0.x) is a client of its own.
//
// How it answers, and where each behaviour is documented:
// - The API (/trends/api/*) wants an NID cookie; without a valid one it answers
//   429 with no Set-Cookie (google-trends-api PR #167: "there is no cookie header
//   in google trends api response when return 429"). A page under
//   trends.google.com hands the cookie out (pytrends #573; in the September 2025
//   re-recording GET /trends/explore/?geo=US answered 404 with Set-Cookie: NID=…).
//   A cookie can go stale (`cookieLifetimeMs`, `revokeCookies()`); then the API
//   answers 429 without Set-Cookie again.
// - Related queries and topics answer {"default":{"rankedList":[]}} (since
//   2024-08-20: pytrends #628, gtrendsR #465, google-trends-api #174).
// - /trends/api/dailytrends answers 404 (since 2025-02-23: google-trends-api
//   #175; SerpApi public-roadmap #2430 calls it fully deprecated). The trending
//   list is the RSS feed /trending/rss?geo=XX (RSS 2.0, namespace
//   https://trends.google.com/trending/rss: ht:approx_traffic, ht:picture,
//   ht:news_item); reports say it needs no cookie.
// - A budget of HTTPS requests per client address, pages included: past
//   `requestsPerMinute` in a minute, every request gets 302 to
//   www.google.com/sorry/index, whose page answers 429 (the 2025 re-recording).
//   The block lasts (`blockMs`, 30 minutes by default; peers report 30 minutes
//   or more) and a request during it starts it over, so asking again early makes
//   it longer (trendspy #5 and #13, trendspyg's changelog; pytrends #364: "even
//   30 min after that, I still get this error").
// - More than 5 comparison items is a 400, as is a widget token that does not
//   match; a keyword with too little data is zeros with hasData false (world.ts).
// - Yesterday's behaviour (a cookie set on the 429, served related lists) only
//   behind `yesterday`, for the tests of those paths.
//
// It counts every request by kind, by client and by refusal, keeps a log of
// what each request carried (cookie, user agent), and records each block with
// the requests that arrived while it lasted (the probes), so tests can assert
// "at most one probe per cooldown".
import { createHmac, randomBytes } from 'node:crypto';
import { readFileSync, readdirSync } from 'node:fs';
import https from 'node:https';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { PROJECT_ROOT } from '../../../src/config.js';
import type { TestCertificates } from './certificates.js';
import type { SimulatedWorld } from './world.js';

export const REQUEST_KINDS = ['page', 'explore', 'multiline', 'relatedsearches', 'comparedgeo', 'autocomplete', 'trending_rss', 'dailytrends', 'sorry', 'other'] as const;
export type RequestKind = (typeof REQUEST_KINDS)[number];
export const REFUSALS = ['no-cookie-429', 'sorry-302', 'bad-request-400', 'not-found-404'] as const;
export type Refusal = (typeof REFUSALS)[number];
/** Kinds that are Google's API (they want the cookie). */
const API_KINDS = new Set<RequestKind>(['explore', 'multiline', 'relatedsearches', 'comparedgeo', 'autocomplete', 'dailytrends']);

export interface LoopbackGoogleOptions {
  /** HTTPS requests a client address may make in a window before it is blocked; 0 = no limit. Default 30 (a minute). */
  requestsPerMinute?: number;
  /** The window the budget counts over; default a minute (tests scale time down). */
  windowMs?: number;
  /** How long a block lasts after the last request that fell in it; default 30 minutes. */
  blockMs?: number;
  /** How long an NID cookie is taken; default for ever (until revokeCookies()). */
  cookieLifetimeMs?: number;
  /** Yesterday's Google, for tests of the paths it took. */
  yesterday?: { cookieOn429?: boolean; relatedLists?: boolean };
}

/** One block of one client: from the request that went over budget to its end, and the requests that fell in it. */
export interface Block {
  since: number;
  until: number;
  /** When each request during the block arrived (each started the block over). */
  probes: number[];
}

/** What one request carried and how it was answered. */
export interface RequestRecord {
  at: number;
  client: string;
  kind: RequestKind;
  status: number;
  refusal?: Refusal;
  cookie: boolean;
  userAgent: string | undefined;
}

/** A canned answer for a kind, to simulate Google changing (a changed shape, an endpoint gone). */
export interface CannedAnswer {
  status: number;
  body: string;
  contentType?: string;
}

interface ClientState {
  /** Request times within the current window. */
  recent: number[];
  blocks: Block[];
}

const DEFAULTS = { requestsPerMinute: 30, windowMs: 60_000, blockMs: 30 * 60_000 } as const;

function recorded(): { redirect: string; sorry: string; notFound: string } {
  // The 2025 recording's pages (kept in the repository: scripts/make-data.mjs).
  const dir = path.resolve(PROJECT_ROOT, 'test/fixtures/google-trends-recorded/rate-limited-2025/test_interest_over_time_ok__18c9392ff6');
  try {
    const files = readdirSync(dir);
    const read = (pattern: RegExp) => readFileSync(path.join(dir, files.find((f) => pattern.test(f))!), 'utf8');
    return { redirect: read(/_302\./), sorry: read(/sorry_index_429/), notFound: read(/trends_explore_404/) };
  } catch {
    return {
      redirect: '<HTML><HEAD><TITLE>302 Moved</TITLE></HEAD><BODY>https://www.google.com/sorry/index</BODY></HTML>',
      sorry: '<html><title>Sorry</title><form id="captcha-form">Our systems have detected unusual traffic from your computer network.</form></html>',
      notFound: '<html><title>Error 404 (Not Found)!!1</title>404. That’s an error.</html>',
    };
  }
}

// Google's own error pages, short.
const TOO_MANY = '<!DOCTYPE html><html lang=en><meta charset=utf-8><title>Error 429 (Too Many Requests)!!1</title><p><b>429.</b> <ins>That’s an error.</ins><p>We’re sorry, but you have sent too many requests to us recently. <ins>That’s all we know.</ins>';
const BAD_REQUEST = '<!DOCTYPE html><html lang=en><meta charset=utf-8><title>Error 400 (Bad Request)!!1</title><p><b>400.</b> <ins>That’s an error.</ins><p>Your client has issued a malformed or illegal request. <ins>That’s all we know.</ins>';
const PAGE = '<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Google Trends</title></head><body><div id="trends-root"></div></body></html>';

const guard = (json: unknown) => `)]}',\n${JSON.stringify(json)}`;
const keywordRestriction = (value: string) => ({ keyword: [{ type: 'BROAD', value }] });
const xml = (text: string) => text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');

export class LoopbackGoogle {
  /** Requests answered, by kind, and refusals, by refusal. */
  readonly counts = new Map<RequestKind | Refusal, number>();
  /** Every request, by client address. */
  readonly byClient = new Map<string, number>();
  /** What each request carried (the last 20,000). */
  readonly log: RequestRecord[] = [];
  private readonly clients = new Map<string, ClientState>();
  private readonly cookies = new Map<string, number>();
  private cookiesRevokedAt = 0;
  private readonly secret = randomBytes(16);
  private readonly pages = recorded();
  private readonly canned = new Map<RequestKind, CannedAnswer>();
  private server: https.Server | undefined;
  private blockEveryone = false;
  private readonly blockedClients = new Set<string>();
  private options: LoopbackGoogleOptions;
  port = 0;

  constructor(
    private readonly world: SimulatedWorld,
    private readonly tls: TestCertificates,
    options: LoopbackGoogleOptions = {},
  ) {
    this.options = options;
  }

  async start(): Promise<void> {
    this.server = https.createServer({ key: this.tls.key, cert: this.tls.cert }, (req, res) => this.handle(req, res));
    // Clients pace their requests seconds apart on one kept-alive connection, as Google lets them.
    this.server.keepAliveTimeout = 120_000;
    await new Promise<void>((resolve) => this.server!.listen(0, '127.0.0.1', resolve));
    this.port = (this.server.address() as AddressInfo).port;
  }

  async stop(): Promise<void> {
    this.server?.closeAllConnections();
    await new Promise((r) => this.server?.close(r));
  }

  /** Limits and behaviour from now on (a benchmark changes them between phases). */
  setLimits(options: LoopbackGoogleOptions): void {
    this.options = options;
  }

  /** Answer every request with the "sorry" treatment (as when Google blocks an address range), or stop. */
  blockAll(on: boolean): void {
    this.blockEveryone = on;
    if (!on) this.endForcedBlocks();
  }

  /** Block one client address (a proxy's) until `unblock`. */
  block(address: string, on = true): void {
    if (on) this.blockedClients.add(address);
    else {
      this.blockedClients.delete(address);
      this.endForcedBlocks();
    }
  }

  private endForcedBlocks(): void {
    for (const [client, state] of this.clients) {
      const current = state.blocks.at(-1);
      if (current && current.until === Infinity && !this.blockEveryone && !this.blockedClients.has(client)) current.until = Date.now();
    }
  }

  /** Every NID cookie handed out so far goes stale: the API answers 429 to it until the client fetches a page again. */
  revokeCookies(): void {
    this.cookiesRevokedAt = Date.now() + 1;
  }

  /** Answer `kind` with this from now on (Google changed), or as the simulation does again (`undefined`). */
  answerWith(kind: RequestKind, answer: CannedAnswer | undefined): void {
    if (answer) this.canned.set(kind, answer);
    else this.canned.delete(kind);
  }

  /** Requests answered with data (refusals, pages and the sorry page not included). */
  dataRequests(): number {
    return (['explore', 'multiline', 'relatedsearches', 'comparedgeo', 'autocomplete', 'trending_rss'] as const).reduce((n, k) => n + (this.counts.get(k) ?? 0), 0);
  }

  /** Every HTTPS request received, refusals included. */
  totalRequests(): number {
    return [...this.byClient.values()].reduce((a, b) => a + b, 0);
  }

  /** The blocks a client address has had, with the requests that fell in each. */
  blocks(client: string): Block[] {
    return (this.clients.get(client)?.blocks ?? []).map((b) => ({ ...b, probes: [...b.probes] }));
  }

  /** Requests a client address made while it was blocked. */
  probesDuringBlocks(client: string): number {
    return this.blocks(client).reduce((n, b) => n + b.probes.length, 0);
  }

  resetCounts(): void {
    this.counts.clear();
    this.byClient.clear();
    this.log.length = 0;
  }

  /** Forgets every client (their budgets and blocks) and every cookie: the next request of each is a new client's. */
  resetClients(): void {
    this.clients.clear();
    this.cookies.clear();
  }

  private count(kind: RequestKind | Refusal): void {
    this.counts.set(kind, (this.counts.get(kind) ?? 0) + 1);
  }

  private token(id: string, keywords: string[], time: string, geo: string): string {
    const body = Buffer.from(JSON.stringify({ id, keywords, time, geo })).toString('base64url');
    return `APP6_${body}.${createHmac('sha256', this.secret).update(body).digest('base64url').slice(0, 16)}`;
  }

  private readToken(token: string): { id: string; keywords: string[]; time: string; geo: string } | undefined {
    const [body, mac] = token.replace(/^APP6_/, '').split('.');
    if (!body || mac !== createHmac('sha256', this.secret).update(body).digest('base64url').slice(0, 16)) return undefined;
    return JSON.parse(Buffer.from(body, 'base64url').toString('utf8')) as { id: string; keywords: string[]; time: string; geo: string };
  }

  private newCookie(): string {
    const value = `511=${randomBytes(24).toString('base64url')}`;
    this.cookies.set(value, Date.now());
    return value;
  }

  private cookieValid(header: string | undefined): boolean {
    const value = /(?:^|;\s*)NID=([^;]+)/.exec(header ?? '')?.[1];
    const issued = value === undefined ? undefined : this.cookies.get(value);
    if (issued === undefined || issued < this.cookiesRevokedAt) return false;
    return this.options.cookieLifetimeMs === undefined || Date.now() - issued < this.options.cookieLifetimeMs;
  }

  /** Whether this request is over the address's budget or falls in its block; starts or restarts the block. */
  private overBudget(client: string, now: number): boolean {
    let state = this.clients.get(client);
    if (!state) this.clients.set(client, (state = { recent: [], blocks: [] }));
    const blockMs = this.options.blockMs ?? DEFAULTS.blockMs;
    const current = state.blocks.at(-1);
    if (this.blockEveryone || this.blockedClients.has(client)) {
      // Blocked by hand (tests): until unblocked; the requests after the first are probes as well.
      if (current?.until === Infinity) current.probes.push(now);
      else state.blocks.push({ since: now, until: Infinity, probes: [] });
      return true;
    }
    if (current && current.until > now) {
      // Asked again during the block: it starts over.
      current.probes.push(now);
      current.until = now + blockMs;
      return true;
    }
    const limit = this.options.requestsPerMinute ?? DEFAULTS.requestsPerMinute;
    if (limit === 0) return false;
    const windowMs = this.options.windowMs ?? DEFAULTS.windowMs;
    state.recent = state.recent.filter((t) => t > now - windowMs);
    if (state.recent.length >= limit) {
      state.blocks.push({ since: now, until: now + blockMs, probes: [] });
      state.recent = [];
      return true;
    }
    state.recent.push(now);
    return false;
  }

  private kindOf(host: string, pathname: string): RequestKind {
    if (host.startsWith('www.google.com')) return pathname.startsWith('/sorry/') ? 'sorry' : 'other';
    if (pathname === '/trends' || pathname === '/trends/' || pathname === '/trends/explore' || pathname === '/trends/explore/') return 'page';
    if (pathname === '/trends/api/explore') return 'explore';
    if (pathname.startsWith('/trends/api/widgetdata/')) {
      const widget = pathname.split('/').pop();
      return widget === 'multiline' || widget === 'comparedgeo' || widget === 'relatedsearches' ? widget : 'other';
    }
    if (pathname.startsWith('/trends/api/autocomplete/')) return 'autocomplete';
    if (pathname === '/trends/api/dailytrends') return 'dailytrends';
    if (pathname === '/trending/rss') return 'trending_rss';
    return 'other';
  }

  private handle(req: IncomingMessage, res: ServerResponse): void {
    const host = req.headers.host ?? 'trends.google.com';
    const url = new URL(req.url ?? '/', `https://${host}`);
    const client = req.socket.remoteAddress ?? 'unknown';
    const kind = this.kindOf(host, url.pathname);
    const now = Date.now();
    this.byClient.set(client, (this.byClient.get(client) ?? 0) + 1);
    const answer = (status: number, body: string, headers: Record<string, string>, refusal?: Refusal) => {
      this.count(refusal ?? kind);
      this.log.push({ at: now, client, kind, status, ...(refusal ? { refusal } : {}), cookie: this.cookieValid(req.headers.cookie), userAgent: req.headers['user-agent'] });
      if (this.log.length > 20_000) this.log.splice(0, this.log.length - 20_000);
      res.writeHead(status, headers).end(body);
    };
    const html = { 'content-type': 'text/html; charset=UTF-8' };

    if (kind === 'sorry') return answer(429, this.pages.sorry, html);
    if (this.overBudget(client, now)) {
      const location = `https://www.google.com/sorry/index?continue=${encodeURIComponent(url.toString())}&q=${randomBytes(12).toString('base64url')}`;
      return answer(302, this.pages.redirect, { ...html, location }, 'sorry-302');
    }
    const canned = this.canned.get(kind);
    if (canned) return answer(canned.status, canned.body, { 'content-type': canned.contentType ?? 'application/json; charset=utf-8' });
    if (kind === 'page') {
      // The 2025 recording: the explore page with a trailing slash is a 404 that still sets the cookie.
      const cookie = `NID=${this.newCookie()}; expires=${new Date(now + 183 * 86_400_000).toUTCString()}; path=/; domain=.google.com; HttpOnly`;
      return url.pathname === '/trends/explore/' ? answer(404, this.pages.notFound, { ...html, 'set-cookie': cookie }) : answer(200, PAGE, { ...html, 'set-cookie': cookie });
    }
    if (API_KINDS.has(kind) && !this.cookieValid(req.headers.cookie)) {
      const headers: Record<string, string> = { ...html };
      if (this.options.yesterday?.cookieOn429) headers['set-cookie'] = `NID=${this.newCookie()}; path=/; domain=.google.com; HttpOnly`;
      return answer(429, TOO_MANY, headers, 'no-cookie-429');
    }
    if (kind === 'dailytrends' || kind === 'other') return answer(404, this.pages.notFound, html, 'not-found-404');
    try {
      const body = this.body(kind, url);
      if (body === undefined) return answer(400, BAD_REQUEST, html, 'bad-request-400');
      return answer(200, body, { 'content-type': kind === 'trending_rss' ? 'application/rss+xml; charset=utf-8' : 'application/json; charset=utf-8' });
    } catch (error) {
      return answer(500, String(error), { 'content-type': 'text/plain' });
    }
  }

  /** The body of an admitted request, or undefined for one Google refuses with 400. */
  private body(kind: RequestKind, url: URL): string | undefined {
    const q = (name: string) => url.searchParams.get(name) ?? '';
    switch (kind) {
      case 'explore': {
        let items: Array<{ keyword: string; geo: string; time: string }>;
        try {
          items = (JSON.parse(q('req')) as { comparisonItem: Array<{ keyword: string; geo: string; time: string }> }).comparisonItem;
        } catch {
          return undefined;
        }
        // Google compares at most five terms.
        if (!Array.isArray(items) || items.length === 0 || items.length > 5) return undefined;
        const keywords = items.map((i) => i.keyword);
        const { time, geo } = items[0]!;
        const [start = '', end = ''] = time.split(' ');
        const weekly = (Date.parse(end) - Date.parse(start)) / 86_400_000 > 270;
        const geoRestriction = geo ? { country: geo } : {};
        const widgets: unknown[] = [
          {
            id: 'TIMESERIES', title: 'Interest over time', type: 'fe_line_chart', token: this.token('TIMESERIES', keywords, time, geo),
            request: { time, resolution: weekly ? 'WEEK' : 'DAY', locale: 'en-US', comparisonItem: keywords.map((k) => ({ geo: geoRestriction, complexKeywordsRestriction: keywordRestriction(k) })), requestOptions: { property: '', backend: 'IZG', category: 0 }, userConfig: { userType: 'USER_TYPE_SCRAPER' } },
          },
          {
            id: 'GEO_MAP', title: 'Compared breakdown by region', type: 'fe_geo_chart_explore', token: this.token('GEO_MAP', keywords, time, geo),
            request: { geo: geoRestriction, comparisonItem: keywords.map((k) => ({ time, complexKeywordsRestriction: keywordRestriction(k) })), resolution: geo ? 'REGION' : 'COUNTRY', locale: 'en-US', requestOptions: { property: '', backend: 'IZG', category: 0 }, dataMode: 'PERCENTAGES', userConfig: { userType: 'USER_TYPE_SCRAPER' } },
          },
        ];
        const related = (id: string, keyword: string, keywordType: 'QUERY' | 'ENTITY') => ({
          id, title: keywordType === 'QUERY' ? 'Related queries' : 'Related topics', type: 'fe_related_searches', token: this.token(id, [keyword], time, geo),
          request: { restriction: { geo: geoRestriction, time, originalTimeRangeForExploreUrl: time, complexKeywordsRestriction: keywordRestriction(keyword) }, keywordType, metric: ['TOP', 'RISING'], trendinessSettings: { compareTime: time }, requestOptions: { property: '', backend: 'IZG', category: 0 }, language: 'en', userCountryCode: 'US', userConfig: { userType: 'USER_TYPE_SCRAPER' } },
        });
        if (keywords.length === 1) widgets.push(related('RELATED_TOPICS', keywords[0]!, 'ENTITY'), related('RELATED_QUERIES', keywords[0]!, 'QUERY'));
        else keywords.forEach((k, i) => widgets.push(related(`RELATED_QUERIES_${i}`, k, 'QUERY')));
        return guard({ widgets });
      }
      case 'multiline':
      case 'comparedgeo':
      case 'relatedsearches': {
        const token = this.readToken(q('token'));
        if (!token) return undefined;
        let req: Record<string, unknown>;
        try {
          req = JSON.parse(q('req') || '{}') as Record<string, unknown>;
        } catch {
          return undefined;
        }
        if (kind === 'multiline') {
          if (token.id !== 'TIMESERIES') return undefined;
          const [start = '', end = ''] = token.time.split(' ');
          const rows = this.world.timeline(token.keywords, start, end, `${token.keywords.join('|')}|${token.time}|${token.geo}`);
          return guard({
            default: {
              timelineData: rows.map((r) => ({
                time: String(r.time),
                formattedTime: new Date(r.time * 1000).toUTCString().slice(5, 16),
                formattedAxisTime: new Date(r.time * 1000).toUTCString().slice(5, 11),
                value: r.values,
                hasData: r.hasData,
                formattedValue: r.values.map(String),
                ...(r.partial ? { isPartial: true } : {}),
              })),
              averages: [],
            },
          });
        }
        if (kind === 'comparedgeo') {
          if (!token.id.startsWith('GEO_MAP')) return undefined;
          return guard({ default: { geoMapData: this.world.geo(token.keywords, String(req.resolution ?? 'COUNTRY')) } });
        }
        if (!token.id.startsWith('RELATED_')) return undefined;
        // Today: an empty list for every automated client (pytrends #628).
        if (!this.options.yesterday?.relatedLists) return guard({ default: { rankedList: [] } });
        return guard({ default: { rankedList: this.world.related(token.keywords[0]!, token.id.startsWith('RELATED_TOPICS') ? 'ENTITY' : 'QUERY') } });
      }
      case 'autocomplete':
        return guard({ default: { topics: this.world.autocomplete(decodeURIComponent(url.pathname.split('/').pop() ?? '')) } });
      case 'trending_rss': {
        const geo = q('geo').toUpperCase();
        if (!/^[A-Z]{2}$/.test(geo)) return undefined;
        return this.feed(geo);
      }
      default:
        return undefined;
    }
  }

  /** The trending RSS feed, shaped as Google serves it (RSS 2.0 with its ht namespace). */
  private feed(geo: string): string {
    const date = new Date().toISOString().slice(0, 10);
    const items = this.world.trending(geo, date).map(
      (item) => `<item>
<title>${xml(item.query)}</title>
<ht:approx_traffic>${xml(item.approxTraffic)}</ht:approx_traffic>
<description></description>
<link>https://trends.google.com/trending/rss?geo=${geo}</link>
<pubDate>${xml(item.pubDate)}</pubDate>
<ht:picture>${xml(item.picture)}</ht:picture>
<ht:picture_source>${xml(item.news[0]!.source)}</ht:picture_source>
${item.news.map((n) => `<ht:news_item><ht:news_item_title>${xml(n.title)}</ht:news_item_title><ht:news_item_snippet></ht:news_item_snippet><ht:news_item_url>${xml(n.url)}</ht:news_item_url><ht:news_item_picture>${xml(item.picture)}</ht:news_item_picture><ht:news_item_source>${xml(n.source)}</ht:news_item_source></ht:news_item>`).join('\n')}
</item>`,
    );
    return `<?xml version="1.0" encoding="UTF-8" standalone="yes"?>
<rss xmlns:atom="http://www.w3.org/2005/Atom" xmlns:ht="https://trends.google.com/trending/rss" version="2.0">
<channel>
<title>Daily Search Trends</title>
<description>Recent searches</description>
<link>https://trends.google.com/trending/rss?geo=${geo}</link>
<atom:link href="https://trends.google.com/trending/rss?geo=${geo}" rel="self" type="application/rss+xml"/>
${items.join('\n')}
</channel>
</rss>
`;
  }
}
