// Google Trends' HTTP API, spoken directly, as Google answers automated
// clients in 2025–2026:
//
// - The API wants an NID cookie, and a 429 no longer hands one out
//   (google-trends-api PR #167); a page under trends.google.com does (pytrends
//   #573; in the 2025 re-recording, GET /trends/explore/?geo=US answered 404
//   with Set-Cookie: NID=…). So each egress route fetches the cookie from a page
//   before its first API call, and again when Google stops taking it: at most
//   once per request, and a second refusal is a block.
// - Requests carry what a browser sends: a desktop Chrome User-Agent, Accept,
//   Accept-Language from `hl`, and the explore page as Referer.
// - One explore answer carries the tokens of all its widgets, so it is asked
//   once and as many widgets are fetched as the caller needs (the npm package
//   asks one explore per widget). Autocomplete and the RSS feed need no explore.
//
// Every exchange goes through `exchange()`: the one place where an answer is
// classified (served, empty, no data; blocked, refused, changed shape), counted
// and reported to the observer. The caller's pacer is asked before each
// request, so the route's rate is kept in HTTPS requests, the cookie page included.
import type https from 'node:https';
import { request as httpsRequest } from 'node:https';
import { isSorryPage, parseGuardedJson } from './google-format.js';
import { MalformedResponseError, RateLimitedError, RefusedError, type AnswerOutcome } from './types.js';

export const GOOGLE_HOST = 'trends.google.com';
const MAX_ANSWER_BYTES = 5 * 1024 * 1024;

/** What a desktop Chrome sends; Google serves browsers, and a bare client stands out (pytrends #602, trendspy #4). */
export const BROWSER_USER_AGENT = 'Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Safari/537.36';
const EXPLORE_PAGE = `https://${GOOGLE_HOST}/trends/explore`;

/** The kinds of HTTPS exchange the product makes with Google (counted per kind in /metrics, checked by `insights google check`). */
export const EXCHANGE_KINDS = ['cookie_page', 'explore', 'multiline', 'comparedgeo', 'relatedsearches', 'autocomplete', 'trending_rss'] as const;
export type ExchangeKind = (typeof EXCHANGE_KINDS)[number];

/** An exchange's outcome: one of Google's six, or `error` when no answer came (network, timeout, a 5xx). */
export type ExchangeOutcome = AnswerOutcome | 'error';

export interface ExchangeReport {
  kind: ExchangeKind;
  outcome: ExchangeOutcome;
  ms: number;
  route: string;
  /** HTTP status, when an answer came. */
  status?: number;
  /** Why, for anything but served. */
  detail?: string;
}
export type ExchangeObserver = (report: ExchangeReport) => void;

/**
 * Called before every HTTPS request of a session: resolves when the route may
 * send its next request (its pace), or throws to stop the request (the route
 * is cooling down). Waiting here is outside the request's deadline.
 */
export type Pacer = () => Promise<void>;

export type WidgetId = 'TIMESERIES' | 'GEO_MAP' | 'RELATED_QUERIES' | 'RELATED_TOPICS';
const WIDGET_KIND: Record<WidgetId, ExchangeKind> = {
  TIMESERIES: 'multiline',
  GEO_MAP: 'comparedgeo',
  RELATED_QUERIES: 'relatedsearches',
  RELATED_TOPICS: 'relatedsearches',
};
const PATHS: Record<Exclude<ExchangeKind, 'cookie_page'>, string> = {
  explore: '/trends/api/explore',
  multiline: '/trends/api/widgetdata/multiline',
  comparedgeo: '/trends/api/widgetdata/comparedgeo',
  relatedsearches: '/trends/api/widgetdata/relatedsearches',
  autocomplete: '/trends/api/autocomplete/',
  trending_rss: '/trending/rss',
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

/** Google's answer to one HTTPS request, before it is classified. */
export interface RawAnswer {
  status: number;
  body: string;
  /** The NID cookie it set ("NID=…"), if any. */
  nid?: string;
  location?: string;
}

/** Google answered 5xx: neither about us nor about the request; retried like a network error. */
export class GoogleUnavailableError extends Error {
  override name = 'GoogleUnavailableError';
}

/** Errors already reported by an inner exchange. */
const reported = new WeakSet<object>();

/** NID cookies, one per egress route: each route is a different client to Google. */
const cookies = new Map<string, string>();

/** Forgets the cookies (a Google of one's own in tests; `insights google check` starts from none). */
export function forgetGoogleCookies(route?: string): void {
  if (route === undefined) cookies.clear();
  else cookies.delete(route);
}

/**
 * How Google answered, decided in one place for every kind of exchange. A
 * redirect to www.google.com/sorry, or its 429 page, is a block (the 2025
 * re-recording: 302, then 429 with a captcha form); 400 is a refusal; 404 on
 * an endpoint, or a 200 that is not its format, is a changed shape; 5xx is
 * Google being unwell. Returns the body of a 200.
 */
export function classifyAnswer(kind: ExchangeKind, answer: RawAnswer, what: string): string {
  const { status } = answer;
  if (status === 302 || status === 303 || status === 307) {
    if (answer.location?.includes('/sorry/') || isSorryPage(answer.body)) {
      throw new RateLimitedError(`Google Trends blocked this client: ${status} to its "sorry" page while fetching ${what}`);
    }
    throw new MalformedResponseError(`Google Trends redirected ${what} to ${(answer.location ?? '(nowhere)').slice(0, 120)}: not how it answers; Google may have changed (run \`insights google check\`)`);
  }
  if (status === 429) throw new RateLimitedError(`Google Trends blocked this client: 429${isSorryPage(answer.body) ? ' (its "sorry" page)' : ''} while fetching ${what}`);
  if (status === 400) throw new RefusedError(`Google Trends refused ${what} (HTTP 400): the request, or a proxy in the way, is at fault`);
  if (status >= 500) throw new GoogleUnavailableError(`Google Trends answered ${status} to ${what}; will retry`);
  if (kind === 'cookie_page') {
    if (!answer.nid) throw new MalformedResponseError(`Google's page for ${what} (HTTP ${status}) handed out no NID cookie: Google has changed how it identifies clients (run \`insights google check\`)`);
    return answer.body;
  }
  if (status === 404) throw new MalformedResponseError(`Google Trends answered 404 to ${what}: the endpoint is gone (run \`insights google check\`)`);
  if (status !== 200) throw new MalformedResponseError(`Google Trends answered ${status} to ${what}: not how it answers (run \`insights google check\`)`);
  return answer.body;
}

/** The outcome an error stands for (the errors classifyAnswer and the parsers throw). */
export function outcomeOfError(error: unknown): ExchangeOutcome {
  if (error instanceof RateLimitedError) return 'blocked';
  if (error instanceof RefusedError) return 'refused';
  if (error instanceof MalformedResponseError) return 'changed_shape';
  return 'error';
}

const outcomeOf = (parsed: unknown): AnswerOutcome => {
  const outcome = (parsed as { outcome?: AnswerOutcome } | undefined)?.outcome;
  if (outcome) return outcome;
  const items = (parsed as { items?: unknown[] } | undefined)?.items;
  return Array.isArray(items) && items.length === 0 ? 'empty' : 'served';
};

export interface SessionOptions {
  hl?: string;
  pace?: Pacer;
  observe?: ExchangeObserver;
  /** Runs a wait outside the request's deadline (see withEgress). */
  outsideDeadline?: <T>(wait: () => Promise<T>) => Promise<T>;
}

/** The HTTPS exchanges of one caller's request, over one agent and one route, counted. */
export class GoogleSession {
  /** HTTPS requests sent so far (the cookie page and a cookie retry included). */
  requests = 0;
  private cookieRefreshed = false;
  private readonly hl: string;

  constructor(
    private readonly agent: https.Agent,
    private readonly route: string,
    private readonly options: SessionOptions = {},
  ) {
    this.hl = options.hl ?? 'en-US';
  }

  /** The route's NID cookie, fetched from a page when it has none. */
  async ensureCookie(geo: string, what: string): Promise<void> {
    if (!cookies.has(this.route)) await this.fetchCookie(geo, what);
  }

  /** A page under trends.google.com, for the NID cookie it hands out. */
  async fetchCookie(geo: string, what: string): Promise<void> {
    const path = `/trends/explore?${new URLSearchParams({ geo: geo.split('-')[0] || 'US', hl: this.hl }).toString()}`;
    await this.exchange('cookie_page', `the cookie page (for ${what})`, async (w) => {
      const answer = await this.send(path, 'page');
      classifyAnswer('cookie_page', answer, w);
      cookies.set(this.route, answer.nid!);
      return { outcome: 'served' as const };
    });
  }

  /** One explore: the widgets (with tokens) for these comparison items. */
  async explore(items: ComparisonItem[], what: string): Promise<Widget[]> {
    return this.exchange('explore', what, async (w) => {
      const json = parseGuardedJson(await this.api('explore', PATHS.explore, { hl: this.hl, tz: '0', req: JSON.stringify({ comparisonItem: items, category: 0, property: '' }) }, w, items[0]?.geo ?? ''), w) as { widgets?: unknown };
      if (!Array.isArray(json?.widgets)) throw new MalformedResponseError(`Google Trends' explore answer for ${w} has no widgets`);
      return (json.widgets as Array<Record<string, unknown>>).filter(
        (x): x is Record<string, unknown> & Widget => typeof x.id === 'string' && typeof x.token === 'string' && typeof x.request === 'object' && x.request !== null,
      );
    });
  }

  /** One widget's data, parsed by `parse`; `overrides` change its request (e.g. a map's resolution). */
  async widget<T>(widgets: Widget[], id: WidgetId, what: string, parse: (json: unknown) => T, overrides: Record<string, unknown> = {}): Promise<T> {
    const kind = WIDGET_KIND[id];
    return this.exchange(kind, what, async (w) => {
      // Several keywords: per-keyword widgets are suffixed (_0, _1); the combined ones are not.
      const widget = widgets.find((x) => x.id === id) ?? widgets.find((x) => x.id === `${id}_0`);
      if (!widget) throw new MalformedResponseError(`Google Trends' explore answer for ${w} has no ${id} widget`);
      const req = JSON.stringify({ ...widget.request, ...overrides });
      return parse(parseGuardedJson(await this.api(kind, PATHS[kind as Exclude<ExchangeKind, 'cookie_page'>], { hl: this.hl, tz: '0', req, token: widget.token }, w, ''), w));
    });
  }

  async autocomplete<T>(term: string, what: string, parse: (json: unknown) => T): Promise<T> {
    return this.exchange('autocomplete', what, async (w) =>
      parse(parseGuardedJson(await this.api('autocomplete', `${PATHS.autocomplete}${encodeURIComponent(term)}`, { hl: this.hl, tz: '0' }, w, ''), w)),
    );
  }

  /** The trending searches feed. Reports say it needs no cookie, so none is fetched for it. */
  async trendingFeed<T>(geo: string, what: string, parse: (xml: string) => T): Promise<T> {
    return this.exchange('trending_rss', what, async (w) => {
      const answer = await this.send(`${PATHS.trending_rss}?${new URLSearchParams({ geo }).toString()}`, 'feed');
      return parse(classifyAnswer('trending_rss', answer, w));
    });
  }

  /** Runs one exchange, reports its outcome (answers and refusals alike) and its latency. */
  private async exchange<T>(kind: ExchangeKind, what: string, run: (what: string) => Promise<T>): Promise<T> {
    const started = Date.now();
    try {
      const result = await run(what);
      this.options.observe?.({ kind, outcome: outcomeOf(result), ms: Date.now() - started, route: this.route, status: 200 });
      return result;
    } catch (error) {
      // A cookie page refused inside an API call is reported once, as the page: the API request was never sent.
      if (typeof error === 'object' && error !== null && !reported.has(error)) {
        reported.add(error);
        this.options.observe?.({ kind, outcome: outcomeOfError(error), ms: Date.now() - started, route: this.route, detail: error instanceof Error ? error.message : String(error) });
      }
      throw error;
    }
  }

  /**
   * An API call with the route's cookie. A plain 429 (not the "sorry" page)
   * means Google no longer takes the cookie: a fresh one from the page, and the
   * same request once more; a second 429 is a block.
   */
  private async api(kind: ExchangeKind, path: string, query: Record<string, string>, what: string, geo: string): Promise<string> {
    await this.ensureCookie(geo, what);
    const url = `${path}?${new URLSearchParams(query).toString()}`;
    let answer = await this.send(url, 'api');
    if (answer.status === 429 && !isSorryPage(answer.body) && !this.cookieRefreshed) {
      this.cookieRefreshed = true;
      // Yesterday's Google set the cookie on the 429 itself (send() kept it); today's needs the page.
      if (!answer.nid) await this.fetchCookie(geo, what);
      answer = await this.send(url, 'api');
    }
    return classifyAnswer(kind, answer, what);
  }

  private async send(path: string, as: 'api' | 'page' | 'feed'): Promise<RawAnswer> {
    if (this.options.pace) {
      const pace = this.options.pace;
      await (this.options.outsideDeadline ? this.options.outsideDeadline(pace) : pace());
    }
    this.requests += 1;
    const cookie = as === 'feed' ? undefined : cookies.get(this.route);
    const language = this.hl.split('-')[0] ?? 'en';
    const headers: Record<string, string> = {
      'user-agent': BROWSER_USER_AGENT,
      'accept-language': language === this.hl ? this.hl : `${this.hl},${language};q=0.9`,
      accept:
        as === 'api' ? 'application/json, text/plain, */*' : as === 'feed' ? 'application/rss+xml, application/xml;q=0.9, */*;q=0.8' : 'text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8',
      ...(as === 'api' ? { referer: EXPLORE_PAGE } : {}),
      ...(cookie ? { cookie } : {}),
    };
    const answer = await new Promise<RawAnswer>((resolve, reject) => {
      const req = httpsRequest({ host: GOOGLE_HOST, path, method: 'GET', agent: this.agent, headers }, (res) => {
        const chunks: Buffer[] = [];
        let size = 0;
        res.on('data', (chunk: Buffer) => {
          size += chunk.length;
          if (size > MAX_ANSWER_BYTES) return req.destroy(new MalformedResponseError(`Google Trends answered more than ${MAX_ANSWER_BYTES} bytes`));
          chunks.push(chunk);
        });
        res.once('end', () => {
          const nid = res.headers['set-cookie']?.map((c) => c.split(';')[0]!.trim()).find((c) => c.startsWith('NID='));
          resolve({
            status: res.statusCode ?? 0,
            body: Buffer.concat(chunks).toString('utf8'),
            ...(nid ? { nid } : {}),
            ...(res.headers.location ? { location: res.headers.location } : {}),
          });
        });
        res.once('error', reject);
      });
      req.once('error', reject);
      req.end();
    });
    // Any answer may renew the cookie; keep the newest.
    if (answer.nid && as !== 'feed') cookies.set(this.route, answer.nid);
    return answer;
  }
}
