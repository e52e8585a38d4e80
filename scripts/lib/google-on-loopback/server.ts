// Google Trends on loopback, for tests and benchmarks. It answers as Google
// answers automated clients in late 2026, computed from a simulated world
// (world.ts) with bodies shaped like the recordings in
// ../shared/data/google-trends-recorded. Clients reach it as production reaches
// Google through a proxy: an HTTP CONNECT proxy on loopback (proxy.ts) and TLS
// for trends.google.com and www.google.com with a certificate of our own
// authority. Clients are told apart by their address, so each loopback proxy
// (bound to its own 127.0.0.x) is a client of its own.
//
// How it answers, and where each behaviour is documented:
// - The API (/trends/api/*) wants an NID cookie; without a valid one it answers
//   429 with no Set-Cookie (google-trends-api PR #167).
// - Warm addresses (`warm`, the default: every address Google has seen before)
//   get the cookie from the home page only: `/` answers 301 to `/trends/`
//   (gtrends' session bootstrap test, 2026-09-09), which answers 200 with
//   Set-Cookie: NID=…; any other page loaded without a cookie (the explore
//   page, an embed page) answers 429 and sets none (trendspyg 1.5.2, its
//   `_warm_up`, 2026-08-19). A fresh address (`warm: false`) gets it from any
//   page, as in the September 2025 re-recording (GET /trends/explore/?geo=US
//   answered 404 with Set-Cookie). A cookie can go stale (`cookieLifetimeMs`,
//   `revokeCookies()`); then the API answers 429 without Set-Cookie again.
// - Explore widgets' related queries and topics answer empty lists (since
//   2024-08-20: pytrends #628, google-trends-api #174). The embed flow still
//   serves related queries: `/trends/embed/explore/RELATED_QUERIES?req=…` is a
//   page holding one widget in `JSON.parse('…')` (\xHH escapes), whose token
//   `widgetdata/relatedsearches` answers with lists (trendspy `client.py`,
//   trendspy #17 of 2025-10-22). Embed pages have a quota of their own per
//   address: one sooner than `embedMinGapMs` (6 s) after the last is over quota
//   (gaps of 3 s failed, 6–8 s worked), and so is every one for `embedPenaltyMs`
//   after it; an over-quota page still answers 200, its token labelled
//   `USER_TYPE_EMBED_OVER_QUOTA`, and its lists come back empty (trendspy's
//   TrendsQuotaExceededError; sdil87/trendspy #1). Related topics come back
//   empty through the embed flow too (gtrends, 2026-09-09; trendspyg 1.5.0).
//   `everyListEmpty` is the scenario where the embed flow's lists are empty too.
// - Every widget's request carries `userConfig.userType`: explore widgets
//   `USER_TYPE_SCRAPER` by default (`setUserType()`; pytrends #534 saw
//   LEGIT_USER for browsers), embed widgets `USER_TYPE_EMBED` or
//   `USER_TYPE_EMBED_OVER_QUOTA`.
// - /trends/api/dailytrends answers 404 (since 2025-02-23: google-trends-api
//   #175). The trending list is the RSS feed /trending/rss?geo=XX (RSS 2.0,
//   namespace https://trends.google.com/trending/rss); it needs no cookie.
// - A budget of HTTPS requests per client address, pages included
//   (`requestsPerMinute`, default 12: peers measure about 10–15 a minute
//   before a block since 2025-03, trendspy #13). Past it the address is
//   blocked, and each block answers in one of three ways (`blockAnswers`,
//   rotating): 302 to www.google.com/sorry/index (whose page answers 429; the
//   2025 re-recording), Google's plain "Error 429 (Too Many Requests)" page, or
//   403 with the "unusual traffic" page (trendspyg 0.4.0 and 1.5.1; Apify
//   cleandata-labs changelog 2026-10-28), each with `Retry-After` (seconds
//   left) unless `retryAfter` is false. The block lasts (`blockMs`, 30 minutes
//   by default) and a request during it starts it over, so asking again early
//   makes it longer (trendspy #5 and #13, trendspyg's changelog; pytrends #364).
// - More than 5 comparison items is a 400; a widget token that does not match
//   its request is a 401 (gtrends' error tests, 2026-09-09); a keyword with too
//   little data is zeros with hasData false, and a thinly sampled one is noisy
//   (world.ts).
// - Yesterday's behaviour (a cookie set on the 429, served explore lists) only
//   behind `yesterday`, for the tests of those paths.
// - `scenario: 'autumn-2026'`: Google as measured in September to November
//   2026 (the cookie gate, a token bucket without Retry-After, blocks per
//   endpoint family, signed widget requests, explore's related queries served
//   and the embed flow always over quota, an EU route's consent page):
//   autumn-2026.ts, where each behaviour is listed with its source.
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
import { Autumn2026, familyOfKind, type Autumn2026Options } from './autumn-2026.js';
import type { TestCertificates } from './certificates.js';
import { answerTrending, brokenFeed, type BrokenTrending } from './trending.js';
import type { SimulatedWorld } from './world.js';

export const REQUEST_KINDS = [
  'home',
  'page',
  'embed',
  'explore',
  'multiline',
  'relatedsearches',
  'comparedgeo',
  'autocomplete',
  'trending_rss',
  'trending_rpc',
  'trending_page',
  'dailytrends',
  'sorry',
  'other',
] as const;
export type RequestKind = (typeof REQUEST_KINDS)[number];
export const BLOCK_ANSWERS = ['sorry-302', 'too-many-429', 'unusual-403'] as const;
export type BlockAnswer = (typeof BLOCK_ANSWERS)[number];
export const REFUSALS = [
  'no-cookie-429',
  'warm-page-429',
  ...BLOCK_ANSWERS,
  'bad-request-400',
  'bad-token-401',
  'not-found-404',
  // The autumn-2026 scenario's (autumn-2026.ts).
  'cookie-gate-429',
  'rate-limit-429',
  'family-sorry-302',
  'consent-302',
] as const;
export type Refusal = (typeof REFUSALS)[number];
/** Kinds that are Google's API (they want the cookie). */
const API_KINDS = new Set<RequestKind>(['explore', 'multiline', 'relatedsearches', 'comparedgeo', 'autocomplete', 'dailytrends']);

export interface LoopbackGoogleOptions {
  /** HTTPS requests a client address may make in a window before it is blocked; 0 = no limit. Default 12 (a minute). */
  requestsPerMinute?: number;
  /** The window the budget counts over; default a minute (tests scale time down). */
  windowMs?: number;
  /** How long a block lasts after the last request that fell in it; default 30 minutes. */
  blockMs?: number;
  /** How blocks answer, in turn (one kind per block); default all three. */
  blockAnswers?: readonly BlockAnswer[];
  /** Whether a block's answers carry Retry-After (the seconds left); default true. */
  retryAfter?: boolean;
  /** How long an NID cookie is taken; default for ever (until revokeCookies()). */
  cookieLifetimeMs?: number;
  /** Addresses Google has seen before: only the home page hands out the cookie. Default true. */
  warm?: boolean;
  /** An embed page sooner than this after the address's last one is over quota; default 6 s; 0 = no embed quota. */
  embedMinGapMs?: number;
  /** How long an address stays over its embed quota after a page asked too soon; default 2 minutes. */
  embedPenaltyMs?: number;
  /** The scenario of 2024-08 to 2025: every related list empty, the embed flow's too. */
  everyListEmpty?: boolean;
  /** Trending roads that are broken (trending.ts): the RSS feed's 500, the RPC's error, the page's 500. */
  brokenTrending?: BrokenTrending;
  /** Yesterday's Google, for tests of the paths it took. */
  yesterday?: { cookieOn429?: boolean; relatedLists?: boolean };
  /** Which Google: today's default (August 2026), or as measured in autumn 2026 (autumn-2026.ts). */
  scenario?: 'today' | 'autumn-2026';
  /** The autumn-2026 scenario's settings. */
  autumn?: Autumn2026Options;
}

/** One block of one client: from the request that went over budget to its end, and the requests that fell in it. */
export interface Block {
  since: number;
  until: number;
  /** How this block answers. */
  answer: BlockAnswer;
  /** How long it lasts after the last request that fell in it. */
  length: number;
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
  /** Embed pages: whether the address was over its embed quota. */
  overQuota?: boolean;
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
  /** The last embed page, and until when the address is over its embed quota. */
  embedLast: number;
  embedOverUntil: number;
}

interface Token {
  id: string;
  keywords: string[];
  time: string;
  geo: string;
  /** Handed out by an embed page (its lists are served), and whether that page was over quota. */
  embed?: boolean;
  overQuota?: boolean;
  /** autumn-2026: the signature of the exact request the token was handed out with. */
  sig?: string;
}

const DEFAULTS = { requestsPerMinute: 12, windowMs: 60_000, blockMs: 30 * 60_000, embedMinGapMs: 6_000, embedPenaltyMs: 120_000 } as const;

function recorded(): { redirect: string; sorry: string; notFound: string } {
  // The 2025 recording's pages (kept in the repository: scripts/make-data.mjs).
  const dir = path.resolve(PROJECT_ROOT, 'test/fixtures/google-trends-recorded/rate-limited-2025/test_interest_over_time_ok__18c9392ff6');
  try {
    const files = readdirSync(dir);
    const read = (pattern: RegExp) =>
      readFileSync(
        path.join(
          dir,
          files.find((f) => pattern.test(f))!,
        ),
        'utf8',
      );
    return { redirect: read(/_302\./), sorry: read(/sorry_index_429/), notFound: read(/trends_explore_404/) };
  } catch {
    return {
      redirect: '<HTML><HEAD><TITLE>302 Moved</TITLE></HEAD><BODY>https://www.google.com/sorry/index</BODY></HTML>',
      sorry:
        '<html><title>Sorry</title><form id="captcha-form">Our systems have detected unusual traffic from your computer network.</form></html>',
      notFound: '<html><title>Error 404 (Not Found)!!1</title>404. That’s an error.</html>',
    };
  }
}

// Google's own error pages, short (the 429 as gtrends captured it in 2026: mixed apostrophes and all).
const TOO_MANY =
  '<!DOCTYPE html><html lang=en><meta charset=utf-8><title>Error 429 (Too Many Requests)!!1</title><div id="af-error-container"><p><b>429.</b> <ins>That’s an error.</ins><p>We\'re sorry, but you have sent too many requests to us recently. <ins>That’s all we know.</ins></div>';
const BAD_REQUEST =
  '<!DOCTYPE html><html lang=en><meta charset=utf-8><title>Error 400 (Bad Request)!!1</title><p><b>400.</b> <ins>That’s an error.</ins><p>Your client has issued a malformed or illegal request. <ins>That’s all we know.</ins>';
const BAD_TOKEN =
  '<!DOCTYPE html><html lang=en><meta charset=utf-8><title>Error 401 (Bad Request)!!1</title><p><b>401.</b> <ins>That’s an error.</ins><p>There was an error in your request. <ins>That’s all we know.</ins>';
const PAGE =
  '<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Google Trends</title></head><body><div id="trends-root"></div></body></html>';

const guard = (json: unknown) => `)]}',\n${JSON.stringify(json)}`;
const keywordRestriction = (value: string) => ({ keyword: [{ type: 'BROAD', value }] });
const xml = (text: string) => text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');
/** JSON as Google writes it into a page's `JSON.parse('…')`: quotes, brackets and markup as \xHH escapes. */
const inPage = (json: unknown) =>
  JSON.stringify(json)
    .replace(/\\/g, '\\\\')
    .replace(/["'{}[\]<>=&]/g, (c) => `\\x${c.charCodeAt(0).toString(16).padStart(2, '0')}`);
const EMBED_WIDGETS = { RELATED_QUERIES: 'QUERY', RELATED_TOPICS: 'ENTITY' } as const;

export class LoopbackGoogle {
  /** Requests answered, by kind, and refusals, by refusal. */
  readonly counts = new Map<RequestKind | Refusal | 'embed-over-quota', number>();
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
  private blockEveryone: BlockAnswer | undefined;
  private readonly blockedClients = new Map<string, BlockAnswer>();
  private userType = 'USER_TYPE_SCRAPER';
  private options: LoopbackGoogleOptions;
  /** The autumn-2026 scenario's state (in flight, buckets, family blocks), when it is the scenario. */
  readonly autumn: Autumn2026 | undefined;
  port = 0;

  constructor(
    private readonly world: SimulatedWorld,
    private readonly tls: TestCertificates,
    options: LoopbackGoogleOptions = {},
  ) {
    this.options = options;
    this.autumn =
      options.scenario === 'autumn-2026' ? new Autumn2026(options.autumn ?? {}, options.windowMs ?? DEFAULTS.windowMs) : undefined;
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

  /** How explore widgets label every client from now on (userConfig.userType). */
  setUserType(label: string): void {
    this.userType = label;
  }

  /** Block every address (as when Google blocks an address range), answering as `answer` does, or stop. */
  blockAll(on: boolean, answer: BlockAnswer = 'sorry-302'): void {
    this.blockEveryone = on ? answer : undefined;
    if (!on) this.endForcedBlocks();
  }

  /** Block one client address (a proxy's) until `unblock`. */
  block(address: string, on = true, answer: BlockAnswer = 'sorry-302'): void {
    if (on) this.blockedClients.set(address, answer);
    else {
      this.blockedClients.delete(address);
      this.endForcedBlocks();
    }
  }

  /**
   * Blocks one client address now for `ms`, as when it went over its budget:
   * answered as `answer`, with Retry-After, and started over by a request
   * during it.
   */
  blockFor(address: string, answer: BlockAnswer, ms: number): void {
    const now = Date.now();
    const state = this.state(address);
    state.blocks.push({ since: now, until: now + ms, answer, length: ms, probes: [] });
    state.recent = [];
  }

  private endForcedBlocks(): void {
    for (const [client, state] of this.clients) {
      const current = state.blocks.at(-1);
      if (current && current.until === Infinity && !this.blockEveryone && !this.blockedClients.has(client)) current.until = Date.now();
    }
  }

  /** Every NID cookie handed out so far goes stale: the API answers 429 to it until the client fetches one again. */
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
    return (['explore', 'multiline', 'relatedsearches', 'comparedgeo', 'autocomplete', 'trending_rss', 'trending_rpc'] as const).reduce(
      (n, k) => n + (this.counts.get(k) ?? 0),
      0,
    );
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

  /** Forgets every client (their budgets, blocks and embed quota) and every cookie: the next request of each is a new client's. */
  resetClients(): void {
    this.clients.clear();
    this.cookies.clear();
  }

  private count(kind: RequestKind | Refusal | 'embed-over-quota'): void {
    this.counts.set(kind, (this.counts.get(kind) ?? 0) + 1);
  }

  private state(client: string): ClientState {
    let state = this.clients.get(client);
    if (!state) this.clients.set(client, (state = { recent: [], blocks: [], embedLast: -Infinity, embedOverUntil: 0 }));
    return state;
  }

  private token(token: Token): string {
    const body = Buffer.from(JSON.stringify(token)).toString('base64url');
    return `APP6_${body}.${createHmac('sha256', this.secret).update(body).digest('base64url').slice(0, 16)}`;
  }

  private readToken(token: string): Token | undefined {
    const [body, mac] = token.replace(/^APP6_/, '').split('.');
    if (!body || mac !== createHmac('sha256', this.secret).update(body).digest('base64url').slice(0, 16)) return undefined;
    return JSON.parse(Buffer.from(body, 'base64url').toString('utf8')) as Token;
  }

  private newCookie(): string {
    const value = `511=${randomBytes(24).toString('base64url')}`;
    this.cookies.set(value, Date.now());
    return value;
  }

  private setCookie(now: number): string {
    return `NID=${this.newCookie()}; expires=${new Date(now + 183 * 86_400_000).toUTCString()}; path=/; domain=.google.com; Secure; HttpOnly; SameSite=none`;
  }

  private cookieValid(header: string | undefined): boolean {
    const value = /(?:^|;\s*)NID=([^;]+)/.exec(header ?? '')?.[1];
    const issued = value === undefined ? undefined : this.cookies.get(value);
    if (issued === undefined || issued < this.cookiesRevokedAt) return false;
    return this.options.cookieLifetimeMs === undefined || Date.now() - issued < this.options.cookieLifetimeMs;
  }

  /** The block this request falls in (starting or restarting it), if the address is over its budget or blocked. */
  private blockOf(client: string, now: number): Block | undefined {
    const state = this.state(client);
    const blockMs = this.options.blockMs ?? DEFAULTS.blockMs;
    const current = state.blocks.at(-1);
    const forced = this.blockEveryone ?? this.blockedClients.get(client);
    if (forced) {
      // Blocked by hand (tests): until unblocked; the requests after the first are probes as well.
      if (current?.until === Infinity) current.probes.push(now);
      else state.blocks.push({ since: now, until: Infinity, answer: forced, length: Infinity, probes: [] });
      return state.blocks.at(-1);
    }
    if (current && current.until > now) {
      // Asked again during the block: it starts over.
      current.probes.push(now);
      current.until = now + current.length;
      return current;
    }
    const limit = this.options.requestsPerMinute ?? DEFAULTS.requestsPerMinute;
    if (limit === 0) return undefined;
    const windowMs = this.options.windowMs ?? DEFAULTS.windowMs;
    state.recent = state.recent.filter((t) => t > now - windowMs);
    if (state.recent.length >= limit) {
      const answers = this.options.blockAnswers ?? BLOCK_ANSWERS;
      const block: Block = {
        since: now,
        until: now + blockMs,
        answer: answers[state.blocks.length % answers.length]!,
        length: blockMs,
        probes: [],
      };
      state.blocks.push(block);
      state.recent = [];
      return block;
    }
    state.recent.push(now);
    return undefined;
  }

  /** Whether an embed page now is over the address's embed quota (and, if so, the penalty starts over). */
  private embedOverQuota(client: string, now: number): boolean {
    const minGap = this.options.embedMinGapMs ?? DEFAULTS.embedMinGapMs;
    if (minGap === 0) return false;
    const state = this.state(client);
    const over = now < state.embedOverUntil || now - state.embedLast < minGap;
    state.embedLast = now;
    if (over) state.embedOverUntil = now + (this.options.embedPenaltyMs ?? DEFAULTS.embedPenaltyMs);
    return over;
  }

  private kindOf(host: string, pathname: string): RequestKind {
    if (host.startsWith('www.google.com')) return pathname.startsWith('/sorry/') ? 'sorry' : 'other';
    if (pathname === '/' || pathname === '/trends' || pathname === '/trends/') return 'home';
    // /trending is a page too, and hands out the cookie as one (autumn-2026); trending.ts serves it, with its data.
    if (pathname === '/trends/explore' || pathname === '/trends/explore/') return 'page';
    if (pathname.startsWith('/trends/embed/explore/')) return 'embed';
    if (pathname === '/trends/api/explore') return 'explore';
    if (pathname.startsWith('/trends/api/widgetdata/')) {
      const widget = pathname.split('/').pop();
      return widget === 'multiline' || widget === 'comparedgeo' || widget === 'relatedsearches' ? widget : 'other';
    }
    if (pathname.startsWith('/trends/api/autocomplete/')) return 'autocomplete';
    if (pathname === '/trends/api/dailytrends') return 'dailytrends';
    if (pathname === '/trending/rss') return 'trending_rss';
    if (pathname === '/_/TrendsUi/data/batchexecute') return 'trending_rpc';
    if (pathname === '/trending') return 'trending_page';
    return 'other';
  }

  private handle(req: IncomingMessage, res: ServerResponse): void {
    const host = req.headers.host ?? 'trends.google.com';
    const url = new URL(req.url ?? '/', `https://${host}`);
    const client = req.socket.remoteAddress ?? 'unknown';
    const kind = this.kindOf(host, url.pathname);
    const now = Date.now();
    const cookie = this.cookieValid(req.headers.cookie);
    const extra: Partial<RequestRecord> = {};
    this.byClient.set(client, (this.byClient.get(client) ?? 0) + 1);
    const autumn = this.autumn;
    const exploreFamily = kind === 'explore';
    autumn?.arrived(client, exploreFamily);
    const answer = (status: number, body: string, headers: Record<string, string>, refusal?: Refusal) => {
      this.count(refusal ?? kind);
      this.log.push({
        at: now,
        client,
        kind,
        status,
        ...(refusal ? { refusal } : {}),
        cookie,
        userAgent: req.headers['user-agent'],
        ...extra,
      });
      if (this.log.length > 20_000) this.log.splice(0, this.log.length - 20_000);
      if (!autumn) return void res.writeHead(status, headers).end(body);
      // autumn-2026: every answer takes a while, so a client's requests can overlap (and are counted when they do).
      setTimeout(() => {
        autumn.settled(client, exploreFamily);
        if (!res.destroyed) res.writeHead(status, headers).end(body);
      }, autumn.latencyMs);
    };
    const html = { 'content-type': 'text/html; charset=UTF-8' };

    if (kind === 'sorry') return answer(429, this.pages.sorry, html);
    const verdict = autumn?.verdict(client, url, req.headers.cookie, exploreFamily, cookie, now, familyOfKind(kind));
    if (verdict?.status === 302) return answer(302, this.pages.redirect, { ...html, location: verdict.location }, verdict.refusal);
    if (verdict) return answer(429, TOO_MANY, html, verdict.refusal);
    const block = this.blockOf(client, now);
    if (block) {
      // A block by hand (blockAll, block) has no end Google could announce: no Retry-After.
      const retry: Record<string, string> =
        this.options.retryAfter === false || block.until === Infinity
          ? {}
          : { 'retry-after': String(Math.max(1, Math.ceil((block.until - now) / 1000))) };
      if (block.answer === 'too-many-429') return answer(429, TOO_MANY, { ...html, ...retry }, block.answer);
      if (block.answer === 'unusual-403') return answer(403, this.pages.sorry, { ...html, ...retry }, block.answer);
      const location = `https://www.google.com/sorry/index?continue=${encodeURIComponent(url.toString())}&q=${randomBytes(12).toString('base64url')}`;
      return answer(302, this.pages.redirect, { ...html, ...retry, location }, block.answer);
    }
    const canned = this.canned.get(kind);
    if (canned) return answer(canned.status, canned.body, { 'content-type': canned.contentType ?? 'application/json; charset=utf-8' });
    const feedBroken = kind === 'trending_rss' ? brokenFeed(this.options.brokenTrending) : undefined;
    if (feedBroken) return answer(feedBroken.status, feedBroken.body, html);
    if (kind === 'trending_rpc' || kind === 'trending_page') {
      const setCookie = () => this.setCookie(now);
      answerTrending(kind, req, url, this.world, this.options.brokenTrending, setCookie, answer).catch(() => answer(500, '', html));
      return;
    }
    if (kind === 'home') {
      // gtrends (2026-09-09): the bare host redirects to /trends/ without a cookie; /trends/ hands one out.
      if (url.pathname === '/') return answer(301, '', { ...html, location: 'https://trends.google.com/trends/' });
      return answer(200, PAGE, { ...html, 'set-cookie': this.setCookie(now) });
    }
    const warm = (this.options.warm ?? true) && !autumn;
    if (kind === 'page') {
      if (warm && !cookie) return answer(429, TOO_MANY, html, 'warm-page-429');
      // The 2025 recording: the explore page with a trailing slash is a 404 that still sets the cookie.
      const headers = { ...html, 'set-cookie': this.setCookie(now) };
      return url.pathname === '/trends/explore/' ? answer(404, this.pages.notFound, headers) : answer(200, PAGE, headers);
    }
    if (kind === 'embed') {
      if (warm && !cookie) return answer(429, TOO_MANY, html, 'warm-page-429');
      const widget = url.pathname.split('/').pop() ?? '';
      if (!(widget in EMBED_WIDGETS)) return answer(404, this.pages.notFound, html, 'not-found-404');
      const page = this.embedPage(widget as keyof typeof EMBED_WIDGETS, url, client, now, autumn !== undefined);
      if (page === undefined) return answer(400, BAD_REQUEST, html, 'bad-request-400');
      extra.overQuota = page.overQuota;
      if (page.overQuota) this.count('embed-over-quota');
      return answer(200, page.body, html);
    }
    if (API_KINDS.has(kind) && !cookie && autumn)
      return answer(429, TOO_MANY, { ...html, 'set-cookie': this.setCookie(now) }, 'cookie-gate-429');
    if (API_KINDS.has(kind) && !cookie) {
      const headers: Record<string, string> = { ...html };
      if (this.options.yesterday?.cookieOn429) headers['set-cookie'] = `NID=${this.newCookie()}; path=/; domain=.google.com; HttpOnly`;
      return answer(429, TOO_MANY, headers, 'no-cookie-429');
    }
    if (kind === 'dailytrends' || kind === 'other') return answer(404, this.pages.notFound, html, 'not-found-404');
    try {
      const body = this.body(kind, url);
      if (body === 'bad-token') return answer(401, BAD_TOKEN, html, 'bad-token-401');
      if (body === undefined) return answer(400, BAD_REQUEST, html, 'bad-request-400');
      return answer(200, body, {
        'content-type': kind === 'trending_rss' ? 'application/rss+xml; charset=utf-8' : 'application/json; charset=utf-8',
        // autumn-2026: NID rotates on most answers.
        ...(autumn && API_KINDS.has(kind) ? { 'set-cookie': this.setCookie(now) } : {}),
      });
    } catch (error) {
      return answer(500, String(error), { 'content-type': 'text/plain' });
    }
  }

  /** An embed page: one related-searches widget in `JSON.parse('…')`, its token labelled by the address's embed quota. */
  private embedPage(
    widget: keyof typeof EMBED_WIDGETS,
    url: URL,
    client: string,
    now: number,
    alwaysOverQuota = false,
  ): { body: string; overQuota: boolean } | undefined {
    let items: Array<{ keyword: string; geo: string; time: string }>;
    try {
      items = (JSON.parse(url.searchParams.get('req') ?? '') as { comparisonItem: Array<{ keyword: string; geo: string; time: string }> })
        .comparisonItem;
    } catch {
      return undefined;
    }
    if (!Array.isArray(items) || items.length !== 1 || typeof items[0]?.keyword !== 'string') return undefined;
    const { keyword, geo = '', time = '' } = items[0];
    const overQuota = alwaysOverQuota || this.embedOverQuota(client, now);
    const geoRestriction = geo ? { country: geo } : {};
    const json = {
      id: widget,
      type: 'fe_related_searches',
      title: widget === 'RELATED_QUERIES' ? 'Related queries' : 'Related topics',
      token: this.token({ id: widget, keywords: [keyword], time, geo, embed: true, overQuota }),
      request: {
        restriction: {
          geo: geoRestriction,
          time,
          originalTimeRangeForExploreUrl: time,
          complexKeywordsRestriction: keywordRestriction(keyword),
        },
        keywordType: EMBED_WIDGETS[widget],
        metric: ['TOP', 'RISING'],
        trendinessSettings: { compareTime: time },
        requestOptions: { property: '', backend: 'CM', category: 0 },
        language: 'en',
        userCountryCode: 'US',
        userConfig: { userType: overQuota ? 'USER_TYPE_EMBED_OVER_QUOTA' : 'USER_TYPE_EMBED' },
      },
    };
    const body = `<!doctype html><html><head><meta charset="utf-8"><title>Google Trends</title></head><body><div class="embed-header"></div><script>
var widget = JSON.parse('${inPage(json)}');
trends.embed.renderWidget(widget, {guestPath: 'https://trends.google.com:443/trends/embed/'});
</script></body></html>`;
    return { body, overQuota };
  }

  /** The body of an admitted request; undefined for one Google refuses with 400, 'bad-token' for a 401. */
  private body(kind: RequestKind, url: URL): string | undefined {
    const q = (name: string) => url.searchParams.get(name) ?? '';
    const userConfig = { userType: this.userType };
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
            id: 'TIMESERIES',
            title: 'Interest over time',
            type: 'fe_line_chart',
            token: this.token({ id: 'TIMESERIES', keywords, time, geo }),
            request: {
              time,
              resolution: weekly ? 'WEEK' : 'DAY',
              locale: 'en-US',
              comparisonItem: keywords.map((k) => ({ geo: geoRestriction, complexKeywordsRestriction: keywordRestriction(k) })),
              requestOptions: { property: '', backend: 'IZG', category: 0 },
              userConfig,
            },
          },
          {
            id: 'GEO_MAP',
            title: 'Compared breakdown by region',
            type: 'fe_geo_chart_explore',
            token: this.token({ id: 'GEO_MAP', keywords, time, geo }),
            request: {
              geo: geoRestriction,
              comparisonItem: keywords.map((k) => ({ time, complexKeywordsRestriction: keywordRestriction(k) })),
              resolution: geo ? 'REGION' : 'COUNTRY',
              locale: 'en-US',
              requestOptions: { property: '', backend: 'IZG', category: 0 },
              dataMode: 'PERCENTAGES',
              userConfig,
            },
          },
        ];
        const related = (id: string, keyword: string, keywordType: 'QUERY' | 'ENTITY') => ({
          id,
          title: keywordType === 'QUERY' ? 'Related queries' : 'Related topics',
          type: 'fe_related_searches',
          token: this.token({ id, keywords: [keyword], time, geo }),
          request: {
            restriction: {
              geo: geoRestriction,
              time,
              originalTimeRangeForExploreUrl: time,
              complexKeywordsRestriction: keywordRestriction(keyword),
            },
            keywordType,
            metric: ['TOP', 'RISING'],
            trendinessSettings: { compareTime: time },
            requestOptions: { property: '', backend: 'IZG', category: 0 },
            language: 'en',
            userCountryCode: 'US',
            userConfig,
          },
        });
        if (keywords.length === 1)
          widgets.push(related('RELATED_TOPICS', keywords[0]!, 'ENTITY'), related('RELATED_QUERIES', keywords[0]!, 'QUERY'));
        else keywords.forEach((k, i) => widgets.push(related(`RELATED_QUERIES_${i}`, k, 'QUERY')));
        // autumn-2026: each token signs its widget's exact request.
        if (this.autumn)
          for (const w of widgets as Array<{ token: string; request: unknown }>)
            w.token = this.token({ ...this.readToken(w.token)!, sig: Autumn2026.signature(w.request) });
        return guard({ widgets });
      }
      case 'multiline':
      case 'comparedgeo':
      case 'relatedsearches': {
        const token = this.readToken(q('token'));
        if (!token) return 'bad-token';
        let req: Record<string, unknown>;
        try {
          req = JSON.parse(q('req') || '{}') as Record<string, unknown>;
        } catch {
          return undefined;
        }
        if (this.autumn && token.sig !== undefined && Autumn2026.signature(req) !== token.sig) {
          this.autumn.editedWidgetRequests += 1;
          return 'bad-token';
        }
        if (kind === 'multiline') {
          if (token.id !== 'TIMESERIES') return 'bad-token';
          const [start = '', end = ''] = token.time.split(' ');
          const rows = this.world.timeline(token.keywords, start, end, `${token.keywords.join('|')}|${token.time}|${token.geo}`);
          return guard({
            default: {
              timelineData: rows.map((r) => ({
                time: String(r.time),
                formattedTime: new Date(r.time * 1000).toUTCString().slice(5, 16),
                formattedAxisTime: new Date(r.time * 1000).toUTCString().slice(5, 11),
                value: r.values,
                // autumn-2026: a term with too little data is zeros with hasData true.
                hasData: this.autumn ? r.hasData.map(() => true) : r.hasData,
                formattedValue: r.values.map(String),
                ...(r.partial ? { isPartial: true } : {}),
              })),
              averages: [],
            },
          });
        }
        if (kind === 'comparedgeo') {
          if (!token.id.startsWith('GEO_MAP')) return 'bad-token';
          return guard({ default: { geoMapData: this.world.geo(token.keywords, String(req.resolution ?? 'COUNTRY')) } });
        }
        if (!token.id.startsWith('RELATED_')) return 'bad-token';
        const topics = token.id.startsWith('RELATED_TOPICS');
        const emptyLists = topics ? { rankedList: [] } : { rankedList: [{ rankedKeyword: [] }, { rankedKeyword: [] }] };
        // Served through the embed flow within its quota (queries only); explore widgets' lists are empty for
        // every automated client (pytrends #628), unless yesterday's Google is asked for.
        const served = this.options.everyListEmpty
          ? false
          : token.embed
            ? !token.overQuota && !topics
            : this.options.yesterday?.relatedLists === true || (this.autumn !== undefined && !topics);
        if (!served) return guard({ default: token.embed ? emptyLists : { rankedList: [] } });
        return guard({ default: { rankedList: this.world.related(token.keywords[0]!, topics ? 'ENTITY' : 'QUERY') } });
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
