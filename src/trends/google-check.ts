// A live canary for `insights google check`: one request of each kind the
// product sends to Google, through one egress route, each reported as Google
// answered it (served, empty, no data, blocked, refused, changed shape, or no
// answer) with its latency. Google changes without notice; this is how an
// operator learns it did, before research and discovery start failing.
import { withEgress, type EgressRoute } from './egress.js';
import { forgetGoogleCookies, GoogleSession, type ExchangeKind, type ExchangeOutcome, type ExchangeReport, type Widget } from './google-client.js';
import { parseAutocomplete, parseComparedGeo, parseMultiline, parseRelated, parseTrendingFeed } from './google-format.js';
import { timeRange } from './google.provider.js';

/** Who needs each kind, and which answers are expected rather than broken. */
export const CHECKED_KINDS: ReadonlyArray<{ kind: ExchangeKind; neededBy: 'research' | 'discovery'; fine: readonly ExchangeOutcome[]; note?: Partial<Record<ExchangeOutcome, string>> }> = [
  { kind: 'cookie_page', neededBy: 'research', fine: ['served'] },
  { kind: 'explore', neededBy: 'research', fine: ['served'] },
  // No data for a term as searched as the anchor means Google may be feeding this client zeros.
  { kind: 'multiline', neededBy: 'research', fine: ['served'], note: { no_data: 'no data for a term everyone searches: Google may have flagged this client' } },
  { kind: 'comparedgeo', neededBy: 'research', fine: ['served'], note: { no_data: 'no place has data for a term everyone searches: Google may have flagged this client' } },
  {
    kind: 'relatedsearches',
    neededBy: 'research',
    fine: ['served', 'empty'],
    note: { empty: 'expected: Google serves automated clients empty related lists since 2024-08-20', served: 'Google serves related lists again' },
  },
  { kind: 'autocomplete', neededBy: 'research', fine: ['served', 'empty'] },
  { kind: 'trending_rss', neededBy: 'discovery', fine: ['served'], note: { empty: 'the feed lists no trending search' } },
];

export type CheckOutcome = ExchangeOutcome | 'not_asked';

export interface CheckedKind {
  kind: ExchangeKind;
  outcome: CheckOutcome;
  ms: number | null;
  neededBy: 'research' | 'discovery';
  broken: boolean;
  detail: string;
}

export interface GoogleCheck {
  checkedAt: string;
  route: string;
  geo: string;
  term: string;
  kinds: CheckedKind[];
  /** The kinds research or discovery needs that did not answer as they should. */
  broken: ExchangeKind[];
}

export interface GoogleCheckOptions {
  route: EgressRoute;
  /** Country of the explore and of the trending feed ('' explores worldwide, and reads the US feed). */
  geo: string;
  /** A term everyone searches (the anchor). */
  term: string;
  timeoutMs: number;
  ca?: string | Buffer;
  now?: () => Date;
}

export async function checkGoogle(options: GoogleCheckOptions): Promise<GoogleCheck> {
  const { route, geo, term } = options;
  const now = options.now ?? (() => new Date());
  const reports = new Map<ExchangeKind, ExchangeReport>();
  const details = new Map<ExchangeKind, string>();
  // A fresh cookie: the page is one of the things checked.
  forgetGoogleCookies(route.name);
  // Each kind gets a deadline of its own, so one that hangs does not hide the others.
  const ask = async <T>(kind: ExchangeKind, run: (session: GoogleSession) => Promise<T>, describe: (result: T) => string): Promise<T | undefined> => {
    try {
      const result = await withEgress(route, options.timeoutMs, (agent) => run(new GoogleSession(agent, route.name, { observe: (r) => reports.set(r.kind, r) })), { ca: options.ca });
      details.set(kind, describe(result));
      return result;
    } catch (error) {
      if (!reports.has(kind)) reports.set(kind, { kind, outcome: 'error', ms: 0, route: route.name, detail: error instanceof Error ? error.message : String(error) });
      return undefined;
    }
  };
  const blocked = () => [...reports.values()].some((r) => r.outcome === 'blocked');
  const what = 'insights google check';

  await ask('cookie_page', (s) => s.fetchCookie(geo, what), () => 'NID cookie handed out');
  let widgets: Widget[] | undefined;
  if (reports.get('cookie_page')?.outcome === 'served') {
    widgets = await ask('explore', (s) => s.explore([{ keyword: term, geo, time: timeRange('12m', now()) }], `explore for "${term}"`), (w) => `${w.length} widgets: ${w.map((x) => x.id).join(', ')}`);
  }
  if (widgets && !blocked()) {
    await ask('multiline', (s) => s.widget(widgets, 'TIMESERIES', `interest over time for "${term}"`, (j) => parseMultiline(j, [term], what)), (a) => `${a.points.length} points`);
    await ask('comparedgeo', (s) => s.widget(widgets, 'GEO_MAP', `interest by region for "${term}"`, (j) => parseComparedGeo(j, [term], what)), (a) => `${a.regions.filter((r) => r.hasData[0]).length} of ${a.regions.length} places with data`);
    await ask('relatedsearches', (s) => s.widget(widgets, 'RELATED_QUERIES', `related queries for "${term}"`, (j) => parseRelated(j, 'relatedQueries', what)), (a) => `${a.top.length} top, ${a.rising.length} rising`);
  }
  if (reports.get('cookie_page')?.outcome === 'served' && !blocked()) {
    await ask('autocomplete', (s) => s.autocomplete(term, `autocomplete for "${term}"`, (j) => parseAutocomplete(j, what)), (a) => `${a.topics.length} topics`);
  }
  if (!blocked()) await ask('trending_rss', (s) => s.trendingFeed(geo || 'US', `the trending feed for ${geo || 'US'}`, (x) => parseTrendingFeed(x, what)), (f) => `${f.items.length} trending searches`);

  const kinds = CHECKED_KINDS.map(({ kind, neededBy, fine, note }): CheckedKind => {
    const report = reports.get(kind);
    const outcome: CheckOutcome = report?.outcome ?? 'not_asked';
    const reason = report?.outcome === 'served' || report?.outcome === 'empty' || report?.outcome === 'no_data' ? details.get(kind) : report?.detail;
    const because = outcome === 'not_asked' ? (blocked() ? 'not asked: Google blocked an earlier request' : 'not asked: an earlier request it depends on failed') : undefined;
    return {
      kind,
      outcome,
      ms: report ? report.ms : null,
      neededBy,
      broken: !fine.includes(outcome as ExchangeOutcome),
      detail: [note?.[outcome as ExchangeOutcome], because, reason].filter(Boolean).join('; '),
    };
  });
  return { checkedAt: now().toISOString(), route: route.name, geo, term, kinds, broken: kinds.filter((k) => k.broken).map((k) => k.kind) };
}
