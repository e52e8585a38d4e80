// Google Trends' HTTP API, spoken directly: the same endpoints the
// google-trends-api package calls, with one difference that matters for the
// budget. The package makes an `explore` request for every widget it wants;
// one explore answer carries the tokens of all its widgets (the series, the
// map, related queries and related topics), so we ask it once and fetch as
// many widgets as the caller needs. Autocomplete needs no explore at all.
//
// Every exchange of one caller's request goes through one egress agent (see
// egress.ts) and is counted, so the budget is measured, not guessed.
import type https from 'node:https';
import { request as httpsRequest } from 'node:https';
import { classifyNonJson, parseGuardedJson } from './google-format.js';
import { MalformedResponseError, RateLimitedError } from './types.js';

export const GOOGLE_HOST = 'trends.google.com';
const MAX_ANSWER_BYTES = 5 * 1024 * 1024;

export type WidgetId = 'TIMESERIES' | 'GEO_MAP' | 'RELATED_QUERIES' | 'RELATED_TOPICS';
export const WIDGET_PATHS: Record<WidgetId, string> = {
  TIMESERIES: '/trends/api/widgetdata/multiline',
  GEO_MAP: '/trends/api/widgetdata/comparedgeo',
  RELATED_QUERIES: '/trends/api/widgetdata/relatedsearches',
  RELATED_TOPICS: '/trends/api/widgetdata/relatedsearches',
};

export interface Widget {
  id: string;
  request: Record<string, unknown>;
  token: string;
}

export interface ComparisonItem {
  keyword: string;
  geo: string;
  /** "YYYY-MM-DD YYYY-MM-DD" */
  time: string;
}

/**
 * Cookies Google hands a client with its first 429, one per egress route
 * (each route is a different client to Google).
 */
const cookies = new Map<string, string>();

/** The HTTPS exchanges of one caller's request, over one agent, counted. */
export class GoogleSession {
  /** HTTPS requests sent so far (cookie retries included). */
  requests = 0;

  constructor(
    private readonly agent: https.Agent,
    private readonly route: string,
    private readonly hl = 'en-US',
  ) {}

  /** One explore: the widgets (with tokens) for these comparison items. */
  async explore(items: ComparisonItem[], what: string): Promise<Widget[]> {
    const body = await this.get('/trends/api/explore', { hl: this.hl, tz: '0', req: JSON.stringify({ comparisonItem: items, category: 0, property: '' }) }, what);
    const json = parseGuardedJson(body, what) as { widgets?: unknown };
    if (!Array.isArray(json?.widgets)) throw new MalformedResponseError(`Google Trends' explore answer for ${what} has no widgets`);
    return (json.widgets as Array<Record<string, unknown>>).filter(
      (w): w is Record<string, unknown> & Widget => typeof w.id === 'string' && typeof w.token === 'string' && typeof w.request === 'object' && w.request !== null,
    );
  }

  /** One widget's data; `overrides` change its request (e.g. a map's resolution). */
  async widget(widgets: Widget[], id: WidgetId, what: string, overrides: Record<string, unknown> = {}): Promise<unknown> {
    // Several keywords: per-keyword widgets are suffixed (_0, _1); the combined ones are not.
    const widget = widgets.find((w) => w.id === id) ?? widgets.find((w) => w.id === `${id}_0`);
    if (!widget) throw new MalformedResponseError(`Google Trends' explore answer for ${what} has no ${id} widget`);
    const req = JSON.stringify({ ...widget.request, ...overrides });
    const body = await this.get(WIDGET_PATHS[id], { hl: this.hl, tz: '0', req, token: widget.token }, what);
    return parseGuardedJson(body, what);
  }

  async autocomplete(term: string, what: string): Promise<unknown> {
    return parseGuardedJson(await this.get(`/trends/api/autocomplete/${encodeURIComponent(term)}`, { hl: this.hl, tz: '0' }, what), what);
  }

  async dailyTrends(geo: string, date: string, what: string): Promise<unknown> {
    const ed = date.replaceAll('-', '');
    return parseGuardedJson(await this.get('/trends/api/dailytrends', { hl: this.hl, tz: '0', geo, ed, ns: '15' }, what), what);
  }

  private async get(path: string, query: Record<string, string>, what: string): Promise<string> {
    const url = `${path}?${new URLSearchParams(query).toString()}`;
    let answer = await this.send(url);
    // Google's first answer to a new client can be a 429 that sets a cookie; with it, the same request works.
    if (answer.status === 429 && answer.cookie) {
      cookies.set(this.route, answer.cookie);
      answer = await this.send(url);
    }
    if (answer.status === 302 || answer.status === 429) {
      const where = answer.location?.includes('/sorry/') ? ' (redirect to its "sorry" page)' : '';
      throw new RateLimitedError(`Google Trends is rate limiting us: ${answer.status}${where} while fetching ${what}`);
    }
    if (answer.status !== 200) classifyNonJson(answer.body, `${what} (HTTP ${answer.status})`);
    return answer.body;
  }

  private send(path: string): Promise<{ status: number; body: string; cookie?: string; location?: string }> {
    this.requests += 1;
    const cookie = cookies.get(this.route);
    return new Promise((resolve, reject) => {
      const req = httpsRequest(
        { host: GOOGLE_HOST, path, method: 'GET', agent: this.agent, headers: { accept: 'application/json, text/plain, */*', ...(cookie ? { cookie } : {}) } },
        (res) => {
          const chunks: Buffer[] = [];
          let size = 0;
          res.on('data', (chunk: Buffer) => {
            size += chunk.length;
            if (size > MAX_ANSWER_BYTES) return req.destroy(new MalformedResponseError(`Google Trends answered more than ${MAX_ANSWER_BYTES} bytes`));
            chunks.push(chunk);
          });
          res.once('end', () => {
            const setCookie = res.headers['set-cookie']?.[0]?.split(';')[0];
            resolve({
              status: res.statusCode ?? 0,
              body: Buffer.concat(chunks).toString('utf8'),
              ...(setCookie ? { cookie: setCookie } : {}),
              ...(res.headers.location ? { location: res.headers.location } : {}),
            });
          });
          res.once('error', reject);
        },
      );
      req.once('error', reject);
      req.end();
    });
  }
}

/** Forgets the cookies (tests that start a Google of their own). */
export function forgetGoogleCookies(): void {
  cookies.clear();
}
