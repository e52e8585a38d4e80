// Google Trends on loopback, for tests and benchmarks: an HTTPS server that
// answers the endpoints Google Trends' clients call (explore, the multiline,
// relatedsearches and comparedgeo widgets, autocomplete, dailytrends) with
// bodies shaped like the recordings in ../shared/data/google-trends-recorded,
// computed from a simulated world (world.ts). Clients reach it as production
// reaches Google through a proxy: an HTTP CONNECT proxy on loopback (proxy.ts)
// and TLS for trends.google.com with a certificate of our own authority.
//
// It behaves like Google when pushed: a new client's first request gets a 429
// that sets a cookie; past a per-client limit it answers 302 to /sorry (then
// 429) for a while. Clients are told apart by their address, so each loopback
// proxy (bound to its own 127.0.0.x) is a client of its own. Every request is
// counted by kind and by client.
import { createHmac, randomBytes } from 'node:crypto';
import { readFileSync, readdirSync } from 'node:fs';
import https from 'node:https';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { PROJECT_ROOT } from '../../../src/config.js';
import type { TestCertificates } from './certificates.js';
import type { SimulatedWorld } from './world.js';

export type RequestKind = 'explore' | 'multiline' | 'relatedsearches' | 'comparedgeo' | 'autocomplete' | 'dailytrends' | 'other';
export type Refusal = 'cookie-429' | 'sorry-302' | 'sorry-429' | 'bad-token';

interface ClientState {
  cookie: string | undefined;
  tokens: number;
  at: number;
  blockedUntil: number;
}

export interface LoopbackGoogleOptions {
  /** Requests a client may make per minute before Google blocks it; 0 = no limit. */
  ratePerMinute?: number;
  /** Requests a client may make at once before the per-minute rate applies. */
  burst?: number;
  /** How long a client over its limit stays blocked. */
  blockMs?: number;
}

function recordedSorry(): { redirect: string; page: string } {
  const dir = path.resolve(PROJECT_ROOT, '../shared/data/google-trends-recorded/rate-limited-2025/test_interest_over_time_ok__18c9392ff6');
  try {
    const files = readdirSync(dir);
    return {
      redirect: readFileSync(path.join(dir, files.find((f) => /_302\./.test(f))!), 'utf8'),
      page: readFileSync(path.join(dir, files.find((f) => /sorry_index_429/.test(f))!), 'utf8'),
    };
  } catch {
    return { redirect: '<HTML><HEAD><TITLE>302 Moved</TITLE></HEAD><BODY>google.com/sorry/</BODY></HTML>', page: '<html><title>429 Too Many Requests</title>unusual traffic</html>' };
  }
}

const guard = (json: unknown) => `)]}',\n${JSON.stringify(json)}`;
const keywordRestriction = (value: string) => ({ keyword: [{ type: 'BROAD', value }] });

export class LoopbackGoogle {
  readonly counts = new Map<RequestKind | Refusal, number>();
  readonly byClient = new Map<string, number>();
  private readonly clients = new Map<string, ClientState>();
  private readonly secret = randomBytes(16);
  private readonly sorry = recordedSorry();
  private server: https.Server | undefined;
  private blockEveryone = false;
  private readonly blockedClients = new Set<string>();
  port = 0;

  constructor(
    private readonly world: SimulatedWorld,
    private readonly tls: TestCertificates,
    private options: LoopbackGoogleOptions = {},
  ) {}

  async start(): Promise<void> {
    this.server = https.createServer({ key: this.tls.key, cert: this.tls.cert }, (req, res) => this.handle(req, res));
    await new Promise<void>((resolve) => this.server!.listen(0, '127.0.0.1', resolve));
    this.port = (this.server.address() as AddressInfo).port;
  }

  async stop(): Promise<void> {
    this.server?.closeAllConnections();
    await new Promise((r) => this.server?.close(r));
  }

  /** Limits from now on (a benchmark raises them for research, lowers them for the proxy comparison). */
  setLimits(options: LoopbackGoogleOptions): void {
    this.options = options;
    for (const c of this.clients.values()) c.tokens = options.burst ?? 10;
  }

  /** Answer every request with the "sorry" treatment (as when Google blocks an address range), or stop. */
  blockAll(on: boolean): void {
    this.blockEveryone = on;
  }

  /** Block one client address (a proxy's) until `unblock`. */
  block(address: string, on = true): void {
    if (on) this.blockedClients.add(address);
    else this.blockedClients.delete(address);
  }

  /** Requests answered with data, by kind (refusals not included). */
  dataRequests(): number {
    return (['explore', 'multiline', 'relatedsearches', 'comparedgeo', 'autocomplete', 'dailytrends'] as const).reduce((n, k) => n + (this.counts.get(k) ?? 0), 0);
  }

  /** Every HTTPS request received, refusals included. */
  totalRequests(): number {
    return [...this.counts.values()].reduce((a, b) => a + b, 0);
  }

  resetCounts(): void {
    this.counts.clear();
    this.byClient.clear();
  }

  /** Forgets every client (their cookies and limits): the next request of each is a new client's. */
  resetClients(): void {
    this.clients.clear();
  }

  private count(kind: RequestKind | Refusal, client: string): void {
    this.counts.set(kind, (this.counts.get(kind) ?? 0) + 1);
    this.byClient.set(client, (this.byClient.get(client) ?? 0) + 1);
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

  /** null when the request may be answered; else how Google refuses it. */
  private admit(client: string, cookie: string | undefined, kind: RequestKind): Refusal | null {
    const now = Date.now();
    let state = this.clients.get(client);
    if (!state) {
      state = { cookie: `NID=511=${randomBytes(12).toString('base64url')}`, tokens: this.options.burst ?? 10, at: now, blockedUntil: 0 };
      this.clients.set(client, state);
      if (!cookie) return 'cookie-429';
    }
    if (this.blockEveryone || this.blockedClients.has(client) || state.blockedUntil > now) return kind === 'explore' ? 'sorry-302' : 'sorry-429';
    const rate = this.options.ratePerMinute ?? 0;
    if (rate > 0) {
      state.tokens = Math.min(this.options.burst ?? 10, state.tokens + ((now - state.at) / 60_000) * rate);
      state.at = now;
      if (state.tokens < 1) {
        state.blockedUntil = now + (this.options.blockMs ?? 30_000);
        return kind === 'explore' ? 'sorry-302' : 'sorry-429';
      }
      state.tokens -= 1;
    }
    return null;
  }

  private handle(req: import('node:http').IncomingMessage, res: import('node:http').ServerResponse): void {
    const url = new URL(req.url ?? '/', 'https://trends.google.com');
    const client = req.socket.remoteAddress ?? 'unknown';
    const kind: RequestKind = url.pathname === '/trends/api/explore'
      ? 'explore'
      : url.pathname.startsWith('/trends/api/widgetdata/')
        ? (url.pathname.split('/').pop() as RequestKind)
        : url.pathname.startsWith('/trends/api/autocomplete/')
          ? 'autocomplete'
          : url.pathname === '/trends/api/dailytrends'
            ? 'dailytrends'
            : 'other';
    const refusal = this.admit(client, req.headers.cookie, kind);
    if (refusal) {
      this.count(refusal, client);
      if (refusal === 'cookie-429') return void res.writeHead(429, { 'set-cookie': `${this.clients.get(client)!.cookie}; expires=Fri, 01-Jan-2100 00:00:00 GMT; path=/; domain=.google.com`, 'content-type': 'text/html' }).end('Too Many Requests');
      if (refusal === 'sorry-302') {
        return void res.writeHead(302, { location: `https://www.google.com/sorry/index?continue=${encodeURIComponent(url.toString())}`, 'content-type': 'text/html' }).end(this.sorry.redirect);
      }
      return void res.writeHead(429, { 'content-type': 'text/html' }).end(this.sorry.page);
    }
    try {
      const body = this.answer(kind, url);
      if (body === undefined) {
        this.count('bad-token', client);
        return void res.writeHead(400, { 'content-type': 'text/html' }).end('<html>Error 400 (Bad Request)</html>');
      }
      this.count(kind, client);
      res.writeHead(200, { 'content-type': 'application/json; charset=utf-8' }).end(body);
    } catch (error) {
      this.count('other', client);
      res.writeHead(500, { 'content-type': 'text/plain' }).end(String(error));
    }
  }

  /** The body for an admitted request, or undefined for a widget request whose token does not match. */
  private answer(kind: RequestKind, url: URL): string | undefined {
    const q = (name: string) => url.searchParams.get(name) ?? '';
    switch (kind) {
      case 'explore': {
        const request = JSON.parse(q('req')) as { comparisonItem: Array<{ keyword: string; geo: string; time: string }> };
        const items = request.comparisonItem;
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
        const req = JSON.parse(q('req') || '{}') as Record<string, unknown>;
        if (!token) return undefined;
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
                hasData: r.values.map(() => true),
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
        return guard({ default: { rankedList: this.world.related(token.keywords[0]!, token.id.startsWith('RELATED_TOPICS') ? 'ENTITY' : 'QUERY') } });
      }
      case 'autocomplete':
        return guard({ default: { topics: this.world.autocomplete(decodeURIComponent(url.pathname.split('/').pop() ?? '')) } });
      case 'dailytrends': {
        const date = q('ed') || new Date().toISOString().slice(0, 10).replaceAll('-', '');
        return guard({ default: { trendingSearchesDays: [{ date, formattedDate: date, trendingSearches: this.world.dailyTrends(q('geo'), date) }] } });
      }
      default:
        return undefined;
    }
  }
}
