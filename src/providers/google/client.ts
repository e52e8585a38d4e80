// Google Trends' HTTP API, spoken directly, as Google answers automated
// clients in late 2026 (docs/operations.md, "How Google answers"):
//
// - The API wants an NID cookie, and a 429 does not hand one out
//   (google-trends-api PR #167). From an address Google has seen before, only
//   the home page does: a cookieless load of any other page answers 429
//   (trendspyg 1.5.2, its `_warm_up`). So a route warms up on the home page
//   (`/trends/`, where `https://trends.google.com/` redirects: gtrends'
//   session bootstrap test, 2026-09-09), and tries one other page only if the
//   home page refuses it. The cookie is kept per route in a jar every process
//   shares (Redis), so a restart keeps it (trendspyg 1.6.0's jar: a returning
//   visitor is served where a new session is refused), and it is replaced
//   only when Google hands out a new one.
// - A block comes as a 302 to www.google.com/sorry, a plain "Error 429 (Too
//   Many Requests)" page, a 403, or an "unusual traffic" page, sometimes with
//   Retry-After. A plain 429 to a cookie from the jar is the one ambiguous
//   answer: Google no longer takes the cookie, or blocks us. It is read as the
//   first once per request (a fresh cookie from the home page, the request
//   sent again), unless it carries Retry-After; a plain 429 from the home page
//   then, or a second one, is a block.
// - Related queries are served through the embed flow
//   (`/trends/embed/explore/RELATED_QUERIES`, a page holding the widget's
//   token, then `widgetdata/relatedsearches` with it), where the explore
//   page's own widgets answer empty lists (trendspy `client.py`, trendspy #17).
//   Embed pages have a quota of their own: they are paced by the caller's
//   embed pacer, and a token labelled USER_TYPE_EMBED_OVER_QUOTA is a wait.
// - Every token says how Google labels the client (`userConfig.userType`):
//   read from each, reported with the answer.
// - Requests carry what a browser sends: a desktop Chrome User-Agent, Accept,
//   Accept-Language from `hl`, and the explore page as Referer.
// - One explore answer carries the tokens of all its widgets, so it is asked
//   once and as many widgets are fetched as the caller needs. Autocomplete and
//   the RSS feed need no explore.
//
// Every exchange goes through `exchange()`: the one place where an answer is
// classified (served, empty, no data; blocked, refused, changed shape, over
// the embed quota), counted and reported to the observer. The caller's pacer
// is asked before each request, so the route's rate is kept in HTTPS requests,
// the cookie pages included.
import type https from 'node:https';
import { request as httpsRequest } from 'node:https';
import { parseEmbedPage, parseGuardedJson, userTypeOf } from './format.js';
import { EmbedOverQuotaError, MalformedResponseError } from '../../trends/types.js';
import { traceRequest } from '../../observability/tracing.js';

export * from './exchange.js';
import {
  classifyAnswer,
  handsOutCookie,
  isPlainRefusal,
  notSent,
  outcomeOf,
  outcomeOfError,
  reported,
  type ExchangeKind,
  type ExchangeObserver,
  type RawAnswer,
} from './exchange.js';

export const GOOGLE_HOST = 'trends.google.com';
const MAX_ANSWER_BYTES = 5 * 1024 * 1024;

/** What a desktop Chrome sends; Google serves browsers, and a bare client stands out (pytrends #602, trendspy #4). */
export const BROWSER_USER_AGENT =
  'Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Safari/537.36';
const EXPLORE_PAGE = `https://${GOOGLE_HOST}/trends/explore`;
/** The home page: `https://trends.google.com/` answers 301 to it, and it hands out the NID cookie. */
export const HOME_PATH = '/trends/';

/**
 * Called before every HTTPS request of a session: resolves when the route may
 * send its next request (its pace), or throws to stop the request (the route
 * is cooling down). Waiting here is outside the request's deadline.
 */
export type Pacer = () => Promise<void>;

/**
 * The NID cookie of each egress route: each route is a different client to
 * Google. Shared by every process (Redis, see egress-pool.ts) so a restart or
 * another worker does not spend a page load to learn it again.
 */
export interface CookieJar {
  get(route: string): Promise<string | undefined>;
  /** Keeps the route's newest cookie; a cookie Google refused is replaced only once a new one is handed out. */
  set(route: string, cookie: string): Promise<void>;
}

/** A jar in this process's memory: `insights google check`, and tests of the client alone. */
export class MemoryCookieJar implements CookieJar {
  private readonly cookies = new Map<string, string>();
  async get(route: string) {
    return this.cookies.get(route);
  }
  async set(route: string, cookie: string) {
    this.cookies.set(route, cookie);
  }
  clear(route?: string) {
    if (route === undefined) this.cookies.clear();
    else this.cookies.delete(route);
  }
}

/** The jar of a session given none. */
const processJar = new MemoryCookieJar();

/** Forgets this process's own cookies (a Google of one's own in tests). */
export function forgetGoogleCookies(route?: string): void {
  processJar.clear(route);
}

export type WidgetId = 'TIMESERIES' | 'GEO_MAP' | 'RELATED_QUERIES' | 'RELATED_TOPICS';
const WIDGET_KIND: Record<WidgetId, ExchangeKind> = {
  TIMESERIES: 'multiline',
  GEO_MAP: 'comparedgeo',
  RELATED_QUERIES: 'relatedsearches',
  RELATED_TOPICS: 'relatedsearches',
};
const PATHS = {
  explore: '/trends/api/explore',
  multiline: '/trends/api/widgetdata/multiline',
  comparedgeo: '/trends/api/widgetdata/comparedgeo',
  relatedsearches: '/trends/api/widgetdata/relatedsearches',
  embed_relatedsearches: '/trends/api/widgetdata/relatedsearches',
  autocomplete: '/trends/api/autocomplete/',
  trending_rss: '/trending/rss',
  embed: '/trends/embed/explore/',
} as const;

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

export interface SessionOptions {
  hl?: string;
  pace?: Pacer;
  /** Before each embed page: the route's embed pace (its own quota) as well as its request pace. Default: `pace`. */
  paceEmbed?: Pacer;
  observe?: ExchangeObserver;
  /** Where the route's cookie is kept; default this process's memory. */
  jar?: CookieJar;
  /** Runs a wait outside the request's deadline (see withEgress). */
  outsideDeadline?: <T>(wait: () => Promise<T>) => Promise<T>;
}

/** `rpc`: a cookieless form POST (the Trending Now RPC, trending.ts). */
type SendAs = 'api' | 'page' | 'embed' | 'feed' | 'rpc';

/** The HTTPS exchanges of one caller's request, over one agent and one route, counted. */
export class GoogleSession {
  /** HTTPS requests sent so far (the cookie pages and a cookie retry included). */
  requests = 0;
  /** How Google labelled the client in the last token this session read. */
  userType: string | undefined;
  private cookie: string | undefined;
  /** The cookie was taken from the jar, not handed out in this session: a plain 429 may mean Google no longer takes it. */
  private cookieFromJar = false;
  private cookieRefreshed = false;
  private readonly hl: string;
  private readonly jar: CookieJar;

  constructor(
    private readonly agent: https.Agent,
    private readonly route: string,
    private readonly options: SessionOptions = {},
  ) {
    this.hl = options.hl ?? 'en-US';
    this.jar = options.jar ?? processJar;
  }

  /** The route's NID cookie, from the jar, or from a warm-up when the jar has none. */
  async ensureCookie(geo: string, what: string): Promise<void> {
    if (this.cookie) return;
    const kept = await this.jar.get(this.route);
    if (kept) {
      this.cookie = kept;
      this.cookieFromJar = true;
      return;
    }
    await this.warmUp(geo, what);
  }

  /**
   * The cookie as a returning visitor gets it: the home page, and, if it
   * refuses without blocking (a plain 429, or no cookie), one other page. A
   * plain 429 on that one, the home page tried, is a block. `afterRefusal`:
   * an API call was just refused with a plain 429; a plain 429 from the home
   * page too is then a block at once (no second page sent into it).
   */
  async warmUp(geo: string, what: string, afterRefusal = false): Promise<void> {
    let refusedBy: RawAnswer | undefined;
    await this.exchange('home_page', `the home page (for ${what})`, async (w) => {
      const answer = await this.send(HOME_PATH, 'page');
      if (handsOutCookie(answer)) return this.keep(answer.nid!);
      if ((isPlainRefusal(answer) && !afterRefusal) || answer.status === 200) {
        refusedBy = answer;
        return { outcome: 'empty' as const };
      }
      classifyAnswer('home_page', { ...answer, nid: undefined } as RawAnswer, w);
      throw new MalformedResponseError(`Google's home page for ${w} answered ${answer.status} without a cookie`);
    });
    if (!refusedBy) return;
    const path = `/trends/explore?${new URLSearchParams({ geo: geo.split('-')[0] || 'US', hl: this.hl }).toString()}`;
    await this.exchange('cookie_page', `the explore page for a cookie, the home page having refused one (for ${what})`, async (w) => {
      const answer = await this.send(path, 'page');
      if (handsOutCookie(answer)) return this.keep(answer.nid!);
      classifyAnswer('cookie_page', { ...answer, nid: undefined } as RawAnswer, w);
      throw new MalformedResponseError(`Google's explore page for ${w} answered ${answer.status} without a cookie`);
    });
  }

  private async keep(nid: string): Promise<{ outcome: 'served' }> {
    this.cookie = nid;
    this.cookieFromJar = false;
    await this.jar.set(this.route, nid);
    return { outcome: 'served' };
  }

  /** One explore: the widgets (with tokens) for these comparison items. */
  async explore(items: ComparisonItem[], what: string): Promise<Widget[]> {
    return this.exchange('explore', what, async (w) => {
      const json = parseGuardedJson(
        await this.api(
          'explore',
          PATHS.explore,
          { hl: this.hl, tz: '0', req: JSON.stringify({ comparisonItem: items, category: 0, property: '' }) },
          w,
          items[0]?.geo ?? '',
        ),
        w,
      ) as { widgets?: unknown };
      if (!Array.isArray(json?.widgets)) throw new MalformedResponseError(`Google Trends' explore answer for ${w} has no widgets`);
      const widgets = (json.widgets as Array<Record<string, unknown>>).filter(
        (x): x is Record<string, unknown> & Widget =>
          typeof x.id === 'string' && typeof x.token === 'string' && typeof x.request === 'object' && x.request !== null,
      );
      this.userType = widgets.map((x) => userTypeOf(x.request)).find((label) => label !== null) ?? this.userType;
      return widgets;
    });
  }

  /** One widget's data, parsed by `parse`; `overrides` change its request (e.g. a map's resolution). */
  async widget<T>(
    widgets: Widget[],
    id: WidgetId,
    what: string,
    parse: (json: unknown) => T,
    overrides: Record<string, unknown> = {},
  ): Promise<T> {
    const kind = WIDGET_KIND[id];
    return this.exchange(kind, what, async (w) => {
      // Several keywords: per-keyword widgets are suffixed (_0, _1); the combined ones are not.
      const widget = widgets.find((x) => x.id === id) ?? widgets.find((x) => x.id === `${id}_0`);
      if (!widget) throw new MalformedResponseError(`Google Trends' explore answer for ${w} has no ${id} widget`);
      const req = JSON.stringify({ ...widget.request, ...overrides });
      return parse(
        parseGuardedJson(await this.api(kind, PATHS[kind as 'multiline'], { hl: this.hl, tz: '0', req, token: widget.token }, w, ''), w),
      );
    });
  }

  /**
   * A related list through the embed flow: the embed page for one keyword,
   * whose token `widgetdata/relatedsearches` serves the lists the explore
   * widgets no longer do. An over-quota token stops here (no data request).
   */
  async embedRelated<T>(
    item: ComparisonItem,
    id: 'RELATED_QUERIES' | 'RELATED_TOPICS',
    what: string,
    parse: (json: unknown) => T,
  ): Promise<T> {
    const widget = await this.exchange('embed_page', `the embed page of ${what}`, async (w) => {
      const req = JSON.stringify({ comparisonItem: [item], category: 0, property: '' });
      const query = { req, tz: '0', hl: this.hl.split('-')[0] ?? 'en' };
      const page = parseEmbedPage(
        await this.withCookie('embed_page', `${PATHS.embed}${id}?${new URLSearchParams(query).toString()}`, 'embed', w, item.geo),
        w,
      );
      if (page.userType) this.userType = page.userType;
      if (page.userType === 'USER_TYPE_EMBED_OVER_QUOTA') {
        throw new EmbedOverQuotaError(
          `Google Trends' embed quota is spent on route ${this.route} (its token for ${w} says USER_TYPE_EMBED_OVER_QUOTA): the route's related lists wait`,
        );
      }
      return { ...page, outcome: 'served' as const };
    });
    return this.exchange('embed_relatedsearches', what, async (w) =>
      parse(
        parseGuardedJson(
          await this.api(
            'embed_relatedsearches',
            PATHS.embed_relatedsearches,
            { hl: this.hl, tz: '0', req: JSON.stringify(widget.request), token: widget.token },
            w,
            item.geo,
          ),
          w,
        ),
      ),
    );
  }

  async autocomplete<T>(term: string, what: string, parse: (json: unknown) => T): Promise<T> {
    return this.exchange('autocomplete', what, async (w) =>
      parse(
        parseGuardedJson(
          await this.api('autocomplete', `${PATHS.autocomplete}${encodeURIComponent(term)}`, { hl: this.hl, tz: '0' }, w, ''),
          w,
        ),
      ),
    );
  }

  /** The trending searches feed. Reports say it needs no cookie, so none is fetched for it. */
  async trendingFeed<T>(geo: string, what: string, parse: (xml: string) => T): Promise<T> {
    return this.exchange('trending_rss', what, async (w) => {
      const answer = await this.send(`${PATHS.trending_rss}?${new URLSearchParams({ geo }).toString()}`, 'feed');
      return parse(classifyAnswer('trending_rss', answer, w));
    });
  }

  /**
   * One road to the trending searches (trending.ts says which and how each is
   * read): the feed and the RPC without a cookie, as peers send them; `form`
   * makes it the RPC's POST. The page may hand out a cookie, kept as any is.
   */
  async trendingRoad<T>(
    kind: 'trending_rss' | 'trending_rpc' | 'trending_page',
    path: string,
    what: string,
    parse: (body: string) => T,
    form?: string,
  ): Promise<T> {
    const as: SendAs = kind === 'trending_rss' ? 'feed' : kind === 'trending_rpc' ? 'rpc' : 'page';
    return this.exchange(kind, what, async (w) => parse(classifyAnswer(kind, await this.send(path, as, form), w)));
  }

  /** Runs one exchange, reports its outcome (answers and refusals alike) and its latency. */
  private async exchange<T>(kind: ExchangeKind, what: string, run: (what: string) => Promise<T>): Promise<T> {
    const started = Date.now();
    const labelled = () => (this.userType ? { userType: this.userType } : {});
    try {
      const result = await run(what);
      this.options.observe?.({ kind, outcome: outcomeOf(result), ms: Date.now() - started, route: this.route, status: 200, ...labelled() });
      return result;
    } catch (error) {
      // A cookie page refused inside an API call is reported once, as the page: the API request was never sent.
      // A request the route's pace stopped was never sent at all: nothing to report.
      if (typeof error === 'object' && error !== null && !reported.has(error) && !notSent.has(error)) {
        reported.add(error);
        this.options.observe?.({
          kind,
          outcome: outcomeOfError(error),
          ms: Date.now() - started,
          route: this.route,
          detail: error instanceof Error ? error.message : String(error),
          ...labelled(),
        });
      }
      throw error;
    }
  }

  private api(kind: ExchangeKind, path: string, query: Record<string, string>, what: string, geo: string): Promise<string> {
    return this.withCookie(kind, `${path}?${new URLSearchParams(query).toString()}`, 'api', what, geo);
  }

  /**
   * A request that needs the route's cookie. A plain 429 to a cookie from the
   * jar means Google may no longer take it: the home page is asked for a fresh
   * one (which replaces it in the jar) and the request sent once more; any
   * other 429, a plain 429 from the home page then, or a second one, is a
   * block, and nothing more is sent into it. The kept cookie is replaced only
   * by a new one: a block does not cost the route its cookie.
   */
  private async withCookie(kind: ExchangeKind, url: string, as: 'api' | 'embed', what: string, geo: string): Promise<string> {
    await this.ensureCookie(geo, what);
    let answer = await this.send(url, as);
    if (isPlainRefusal(answer) && this.cookieFromJar && !this.cookieRefreshed) {
      this.cookieRefreshed = true;
      this.cookie = undefined;
      // Yesterday's Google set the cookie on the 429 itself (send() kept it); today's needs the home page.
      if (answer.nid) await this.keep(answer.nid);
      else await this.warmUp(geo, what, true);
      answer = await this.send(url, as);
    }
    return classifyAnswer(kind, answer, what);
  }

  private async send(path: string, as: SendAs, form?: string): Promise<RawAnswer> {
    const pace = as === 'embed' ? (this.options.paceEmbed ?? this.options.pace) : this.options.pace;
    if (pace) {
      try {
        await (this.options.outsideDeadline ? this.options.outsideDeadline(pace) : pace());
      } catch (error) {
        if (typeof error === 'object' && error !== null) notSent.add(error);
        throw error;
      }
    }
    this.requests += 1;
    const cookie = as === 'feed' || as === 'rpc' ? undefined : this.cookie;
    const language = this.hl.split('-')[0] ?? 'en';
    const headers: Record<string, string> = {
      'user-agent': BROWSER_USER_AGENT,
      'accept-language': language === this.hl ? this.hl : `${this.hl},${language};q=0.9`,
      accept:
        as === 'api'
          ? 'application/json, text/plain, */*'
          : as === 'feed'
            ? 'application/rss+xml, application/xml;q=0.9, */*;q=0.8'
            : as === 'rpc'
              ? '*/*'
              : 'text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8',
      ...(form !== undefined ? { 'content-type': 'application/x-www-form-urlencoded;charset=UTF-8', 'x-same-domain': '1' } : {}),
      ...(as === 'api' || as === 'embed' ? { referer: EXPLORE_PAGE } : {}),
      ...(cookie ? { cookie } : {}),
    };
    const answer = await new Promise<RawAnswer>((resolve, reject) => {
      const method = form === undefined ? 'GET' : 'POST';
      const req = httpsRequest({ host: GOOGLE_HOST, path, method, agent: this.agent, headers }, (res) => {
        const chunks: Buffer[] = [];
        let size = 0;
        res.on('data', (chunk: Buffer) => {
          size += chunk.length;
          if (size > MAX_ANSWER_BYTES)
            return req.destroy(new MalformedResponseError(`Google Trends answered more than ${MAX_ANSWER_BYTES} bytes`));
          chunks.push(chunk);
        });
        res.once('end', () => {
          const nid = res.headers['set-cookie']?.map((c) => c.split(';')[0]!.trim()).find((c) => c.startsWith('NID='));
          const retryAfter = res.headers['retry-after'];
          resolve({
            status: res.statusCode ?? 0,
            body: Buffer.concat(chunks).toString('utf8'),
            ...(nid ? { nid } : {}),
            ...(res.headers.location ? { location: res.headers.location } : {}),
            ...(typeof retryAfter === 'string' ? { retryAfter } : {}),
          });
        });
        res.once('error', reject);
      });
      traceRequest(req, GOOGLE_HOST);
      req.once('error', reject);
      req.end(form);
    });
    // Google rotates NID on most answers (gtrends, 2026-09-09): keep the newest the route was given.
    if (answer.nid && as !== 'feed' && as !== 'rpc' && answer.nid !== this.cookie && answer.status < 300) {
      this.cookie = answer.nid;
      await this.jar.set(this.route, answer.nid);
    }
    return answer;
  }
}
