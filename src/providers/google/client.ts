// Google Trends' HTTP API, spoken directly, as Google answers automated
// clients in late 2026 (docs/operations.md, "How Google answers"):
//
// - The API wants an NID cookie. Whichever answer sets one (a plain 429
//   included, never a block) gives the route its newest; Google rotates it on
//   most answers (gtrends, 2026-09-09). A route warms up on the page that
//   handed it a cookie last (learned, kept in the jar), else the home page
//   (`/trends/`), the explore page, then `/trending` (trendspyg 1.5.2; gtrends:
//   the bare host may answer 301 with no cookie). The jar is shared (Redis).
// - 429s are told apart by what they carry (withCookie): one that hands out a
//   new cookie is the cookie gate (sent again at once, once); a plain one with
//   no new cookie is the rate limit on a route that learned the gate, else,
//   to a cookie from the jar, possibly a stale cookie (a page for a fresh one,
//   the request sent once more). A 302 to /sorry, a 403, an "unusual traffic"
//   page, a 429 with Retry-After or a second plain 429 is a block.
// - The EU consent page is neither a block nor a changed Google; a route's
//   consent cookie (TRENDS_CONSENT_COOKIES) goes with all its requests.
// - A widget's request is sent as explore served it (see widget()).
// - Related queries are read from explore's widget (served again in 2026-09:
//   gtrends) and else through the embed flow
//   (`/trends/embed/explore/RELATED_QUERIES`, a page holding the widget's
//   token, then `widgetdata/relatedsearches` with it), where explore's own
//   widgets answered empty lists (trendspy `client.py`, trendspy #17).
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
import { isConsentPage, isSorryPage, parseEmbedPage, parseGuardedJson, userTypeOf } from './format.js';
import { MalformedResponseError, RateLimitedError, RefusedError } from '../contract.js';
import { EmbedOverQuotaError } from './errors.js';
import { pacedFamilyOf, type EndpointFamily, type ExchangeKind } from './families.js';
import { exchangeOverHttps, GOOGLE_HOST } from './transport.js';

export * from './exchange.js';
import {
  classifyAnswer,
  handsOutCookie,
  isPlainRefusal,
  notSent,
  outcomeOf,
  outcomeOfError,
  reported,
  type ExchangeObserver,
  type RawAnswer,
} from './exchange.js';

export { GOOGLE_HOST };

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
export type Pacer = (family: EndpointFamily) => Promise<void>;

export * from './cookie-jar.js';
import { COOKIE_GATE, processJar, type CookieJar } from './cookie-jar.js';

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

/** One widget of an explore answer; several keywords suffix the per-keyword widgets (_0, _1), the combined ones are not. */
export function widgetOf(widgets: Widget[], id: WidgetId): Widget | undefined {
  return widgets.find((x) => x.id === id) ?? widgets.find((x) => x.id === `${id}_0`);
}

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
  /** After each request's answer (or failure): the route may send its next (one request in flight per route). */
  sent?: () => Promise<void>;
  /** The consent cookie the operator configured for this route (TRENDS_CONSENT_COOKIES), sent with every request. */
  consentCookie?: string;
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
  /** This session went through Google's cookie gate once (a 429 handing out a new cookie, the request sent again). */
  private gatePassed = false;
  /** How the answer was asked, for its provenance (the provider sets it). */
  via: 'explore' | 'embed' | undefined;
  /** The related list is explore's because the route's embed quota was spent. */
  embedOverQuota = false;
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

  /**
   * The route's NID cookie, from the jar, or from a warm-up when the jar has
   * none; none when the route learned that its cookieless API call's 429
   * hands one out (the cookie gate: no page spent on it).
   */
  async ensureCookie(geo: string, what: string): Promise<void> {
    if (this.cookie) return;
    const kept = await this.jar.get(this.route);
    if (kept) {
      this.cookie = kept;
      this.cookieFromJar = true;
      return;
    }
    if ((await this.jar.learned?.(this.route, 'warm_up')) === COOKIE_GATE) return;
    await this.warmUp(geo, what);
  }

  /**
   * The cookie from whichever page hands it out, the page that did last on
   * this route first (learned, kept in the jar): the home page, the explore
   * page, the trending page (gtrends, 2026-09-09: `/trends/` and `/trending`
   * set NID where `https://trends.google.com/` answers 301 without one). A
   * page that refuses without blocking (a plain 429, a 200 or a redirect with
   * no cookie) sends the next; the last refusing is a changed Google, or a
   * block. `afterRefusal`: an API call was just refused with a plain 429; a
   * plain 429 from a page too is then a block at once.
   */
  async warmUp(geo: string, what: string, afterRefusal = false): Promise<void> {
    const query = new URLSearchParams({ geo: geo.split('-')[0] || 'US', hl: this.hl }).toString();
    const pages = [HOME_PATH, `/trends/explore?${query}`, `/trending?${query}`];
    const learned = await this.jar.learned?.(this.route, 'warm_up');
    const first = pages.find((page) => page.split('?')[0] === learned);
    const order = first ? [first, ...pages.filter((page) => page !== first)] : pages;
    for (const [i, path] of order.entries()) {
      const kind: ExchangeKind = path === HOME_PATH ? 'home_page' : 'cookie_page';
      const name = path === HOME_PATH ? 'the home page' : path.startsWith('/trending') ? 'the trending page' : 'the explore page';
      const label =
        i === 0
          ? `${name} (for ${what})`
          : `${name} for a cookie, ${order.length > 2 && i > 1 ? 'two pages' : 'a page'} having refused one (for ${what})`;
      const refused = await this.exchange(kind, label, async (w) => {
        const answer = await this.send(path, 'page', pacedFamilyOf(kind));
        if (isConsentPage(answer.status >= 300 && answer.status < 400 ? '' : answer.body, answer.location))
          classifyAnswer(kind, answer, w, this.route);
        if (handsOutCookie(answer)) {
          await this.keep(answer.nid!);
          if (path.split('?')[0] !== learned) await this.jar.learn?.(this.route, 'warm_up', path.split('?')[0]!);
          return { outcome: 'served' as const, refused: false };
        }
        const noCookieHere =
          (isPlainRefusal(answer) && !afterRefusal) ||
          answer.status === 200 ||
          (answer.status >= 300 && answer.status < 400 && !answer.location?.includes('/sorry/') && !isSorryPage(answer.body));
        if (noCookieHere && i < order.length - 1) return { outcome: 'empty' as const, refused: true };
        classifyAnswer(kind, { ...answer, nid: undefined } as RawAnswer, w, this.route);
        throw new MalformedResponseError(`Google's ${name} for ${w} answered ${answer.status} without a cookie`);
      });
      if (!refused.refused) return;
    }
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

  /**
   * One widget's data, parsed by `parse`, its request sent exactly as explore
   * served it: Google's token signs that request, and any edit is a 401
   * (gtrends, `live_integration/`, 2026-09-09: "never rewrite widget.request;
   * to change a condition, ask explore again"). Returns null for a 401 (its
   * token is stale): the caller asks explore again.
   */
  async widget<T>(widgets: Widget[], id: WidgetId, what: string, parse: (json: unknown) => T): Promise<T | null> {
    const kind = WIDGET_KIND[id];
    const widget = widgetOf(widgets, id);
    try {
      return await this.exchange(kind, what, async (w) => {
        if (!widget) throw new MalformedResponseError(`Google Trends' explore answer for ${w} has no ${id} widget`);
        // The request exactly as explore served it, its key order kept.
        const req = JSON.stringify(widget.request);
        return parse(
          parseGuardedJson(await this.api(kind, PATHS[kind as 'multiline'], { hl: this.hl, tz: '0', req, token: widget.token }, w, ''), w),
        );
      });
    } catch (error) {
      if (!(error instanceof RefusedError) || (error as { status?: number }).status !== 401) throw error;
      return null;
    }
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
      const answer = await this.send(`${PATHS.trending_rss}?${new URLSearchParams({ geo }).toString()}`, 'feed', 'trending');
      return parse(classifyAnswer('trending_rss', answer, w, this.route));
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
    return this.exchange(kind, what, async (w) => parse(classifyAnswer(kind, await this.send(path, as, 'trending', form), w)));
  }

  /** Runs one exchange, reports its outcome (answers and refusals alike) and its latency. */
  private async exchange<T>(kind: ExchangeKind, what: string, run: (what: string) => Promise<T>): Promise<T> {
    const started = Date.now();
    const labelled = () => (this.userType ? { userType: this.userType } : {});
    try {
      const result = await run(what);
      this.options.observe?.({
        kind,
        family: pacedFamilyOf(kind),
        outcome: outcomeOf(result),
        ms: Date.now() - started,
        route: this.route,
        status: 200,
        ...labelled(),
      });
      return result;
    } catch (error) {
      // A cookie page refused inside an API call is reported once, as the page: the API request was never sent.
      // A request the route's pace stopped was never sent at all: nothing to report.
      // A block or rate limit is of the family whose request Google refused (the innermost exchange: a cookie page's own).
      if (error instanceof RateLimitedError && error.family === undefined) error.family = pacedFamilyOf(kind);
      if (typeof error === 'object' && error !== null && !reported.has(error) && !notSent.has(error)) {
        reported.add(error);
        this.options.observe?.({
          kind,
          family: pacedFamilyOf(kind),
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
   * A request that needs the route's cookie. Google's 429s are told apart by
   * what they carry (gtrends, 2026-09-09):
   * - a 429 that hands out a new NID is the cookie gate: the request is sent
   *   again at once with it, once; the route learns the gate;
   * - a plain 429 with no new cookie, on a route that learned the gate, is the
   *   explore family's rate limit (a token bucket): a block, backed off;
   * - elsewhere, a plain 429 to a cookie from the jar may mean Google no longer
   *   takes it: a cookie page is asked for a fresh one and the request sent
   *   once more (trendspyg 1.5.2); any other 429, or a second one, is a block.
   * The kept cookie is replaced only by a new one: a block does not cost the
   * route its cookie.
   */
  private async withCookie(kind: ExchangeKind, url: string, as: 'api' | 'embed', what: string, geo: string): Promise<string> {
    await this.ensureCookie(geo, what);
    const sentWith = this.cookie;
    let answer = await this.send(url, as, pacedFamilyOf(kind));
    if (answer.status === 429 && answer.nid && answer.nid !== sentWith && !isSorryPage(answer.body) && !this.gatePassed) {
      this.gatePassed = true;
      if (this.cookie !== answer.nid) await this.keep(answer.nid);
      if ((await this.jar.learned?.(this.route, 'warm_up')) !== COOKIE_GATE) await this.jar.learn?.(this.route, 'warm_up', COOKIE_GATE);
      answer = await this.send(url, as, pacedFamilyOf(kind));
    } else if (isPlainRefusal(answer) && !answer.nid) {
      const gate = (await this.jar.learned?.(this.route, 'warm_up')) === COOKIE_GATE;
      if (gate) {
        // A cookieless call the gate no longer answers with a cookie: the next warm-up asks the pages again.
        if (!sentWith) await this.jar.learn?.(this.route, 'warm_up', '');
        throw new RateLimitedError(
          `Google Trends rate-limited this client: a plain 429 with no new cookie (no Retry-After) while fetching ${what}, where its cookie gate hands one out: the explore family's token bucket is empty`,
          'too_many_429',
          undefined,
          true,
        );
      }
      if (this.cookieFromJar && !this.cookieRefreshed) {
        this.cookieRefreshed = true;
        this.cookie = undefined;
        await this.warmUp(geo, what, true);
        answer = await this.send(url, as, pacedFamilyOf(kind));
      } else if (!sentWith && !this.cookieRefreshed) {
        // Sent without a cookie (a gate the route had learned is gone): a page for one, then once more.
        this.cookieRefreshed = true;
        await this.warmUp(geo, what, true);
        answer = await this.send(url, as, pacedFamilyOf(kind));
      }
    }
    // A plain 429 to explore that a fresh cookie did not lift is its rate limit (gtrends, 2026-09-09: "a fresh NID
    // from /trends/explore, then at once: 3/3 429"; only time helps): the route's explore bucket is empty, not blocked.
    if (pacedFamilyOf(kind) === 'explore' && isPlainRefusal(answer) && !answer.nid && this.cookieRefreshed)
      throw new RateLimitedError(
        `Google Trends rate-limited this client: a plain 429 with no new cookie (no Retry-After) while fetching ${what}, a fresh cookie included: the explore family's token bucket is empty`,
        'too_many_429',
        undefined,
        true,
      );
    return classifyAnswer(kind, answer, what, this.route);
  }

  private async send(path: string, as: SendAs, family: EndpointFamily, form?: string): Promise<RawAnswer> {
    const pace = as === 'embed' ? (this.options.paceEmbed ?? this.options.pace) : this.options.pace;
    if (pace) {
      try {
        const wait = () => pace(family);
        await (this.options.outsideDeadline ? this.options.outsideDeadline(wait) : wait());
      } catch (error) {
        if (typeof error === 'object' && error !== null) notSent.add(error);
        throw error;
      }
    }
    this.requests += 1;
    const consent = this.options.consentCookie;
    const nid = as === 'feed' || as === 'rpc' ? undefined : this.cookie;
    const cookie = nid && consent ? `${nid}; ${consent}` : (nid ?? consent);
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
    const answer = await exchangeOverHttps(this.agent, path, headers, form).finally(() => this.options.sent?.());
    // Google hands out and rotates NID on most answers, its cookie-gate 429 included (gtrends, 2026-09-09):
    // keep the newest the route was given; never one from a block, the feed or the cookieless RPC.
    const keeps = answer.status < 300 || (answer.status === 429 && !isSorryPage(answer.body));
    if (answer.nid && as !== 'feed' && as !== 'rpc' && answer.nid !== this.cookie && keeps) {
      this.cookie = answer.nid;
      await this.jar.set(this.route, answer.nid);
    }
    return answer;
  }
}
