// What a webhook subscription may be, checked where it enters (the API's JSON
// body or the CLI's flags) by one set of rules. A refusal names the field in
// the API's spelling; the CLI translates it to its flag.
import { CATEGORY_VALUES, retiredCategoryReason, SOURCE_VALUES } from '../catalog.js';
import { decodeKeyset, encodeKeyset, InvalidCursorError } from '../cursor.js';
import { isId } from '../ids.js';
import { controlCharacterProblem, escapeForTerminal } from '../text.js';
import { invalidParameter, Refusal } from '../refusal.js';

/** The events a subscription can ask for (empty: all of them). */
export const WEBHOOK_EVENT_TYPES = ['insight.created', 'insight.updated', 'research.completed', 'research.failed', 'ping'] as const;
export type WebhookEventType = (typeof WEBHOOK_EVENT_TYPES)[number];

export const SUBSCRIPTION_LIMITS = {
  urlLength: 2048,
  keywords: 50,
  keywordLength: 100,
} as const;

/** A field of a subscription refused: the refusal of that parameter (invalidParameter), as every door answers it. */
export class SubscriptionInputError extends Refusal {
  constructor(
    /** The field in the API's spelling: url, min_score, categories, sources, keywords, events, since, until, cursor. */
    readonly field: string,
    readonly reason: string,
    readonly allowed?: readonly string[],
  ) {
    const refused = invalidParameter(field, reason, allowed);
    super(refused.kind, refused.message, refused.facts);
  }
}

/** The criteria as the API names them; absent fields are "not given". */
export interface CriteriaInput {
  min_score?: number | null;
  categories?: readonly string[];
  sources?: readonly string[];
  keywords?: readonly string[];
  events?: readonly string[];
}

export interface CheckedCriteria {
  minScore?: number | null;
  categories?: string[];
  sources?: string[];
  keywords?: string[];
  eventTypes?: string[];
}

/** An http(s) URL without credentials, as the receiver will be called. */
export function checkWebhookUrl(raw: string): string {
  if (raw.length === 0 || raw.length > SUBSCRIPTION_LIMITS.urlLength)
    throw new SubscriptionInputError('url', `must be 1–${SUBSCRIPTION_LIMITS.urlLength} characters`);
  const control = controlCharacterProblem(raw);
  if (control) throw new SubscriptionInputError('url', control);
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new SubscriptionInputError('url', 'is not a URL (e.g. https://example.com/hooks)');
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:') throw new SubscriptionInputError('url', 'must be http:// or https://');
  if (url.username || url.password) throw new SubscriptionInputError('url', 'must not carry credentials; verify the signature instead');
  return url.toString();
}

/** A value quoted back in a refusal: short, and nothing a terminal would interpret. */
const printable = (text: string) => escapeForTerminal(text.slice(0, 40));

function checkList(field: string, values: readonly string[], allowed: readonly string[]): string[] {
  for (const v of values) if (!allowed.includes(v)) throw new SubscriptionInputError(field, `"${printable(v)}" is unknown`, allowed);
  return [...new Set(values)];
}

/** Checks the criteria given; leaves out those not given (an update changes only those). */
export function checkCriteria(input: CriteriaInput): CheckedCriteria {
  const out: CheckedCriteria = {};
  if (input.min_score !== undefined) {
    const score = input.min_score;
    if (score !== null && (typeof score !== 'number' || !Number.isFinite(score) || score < 0 || score > 1)) {
      throw new SubscriptionInputError('min_score', 'must be a number from 0 to 1, or null for any score');
    }
    out.minScore = score;
  }
  if (input.categories !== undefined) {
    const retired = input.categories.map(retiredCategoryReason).find((reason) => reason !== undefined);
    if (retired) throw new SubscriptionInputError('categories', retired, CATEGORY_VALUES);
    out.categories = checkList('categories', input.categories, CATEGORY_VALUES);
  }
  if (input.sources !== undefined) out.sources = checkList('sources', input.sources, SOURCE_VALUES);
  if (input.events !== undefined) out.eventTypes = checkList('events', input.events, WEBHOOK_EVENT_TYPES);
  if (input.keywords !== undefined) {
    const keywords = [...new Set(input.keywords.map((k) => k.trim().toLowerCase()).filter(Boolean))];
    if (keywords.length > SUBSCRIPTION_LIMITS.keywords)
      throw new SubscriptionInputError('keywords', `may hold at most ${SUBSCRIPTION_LIMITS.keywords} keywords`);
    for (const k of keywords) {
      if (k.length > SUBSCRIPTION_LIMITS.keywordLength)
        throw new SubscriptionInputError('keywords', `has a keyword longer than ${SUBSCRIPTION_LIMITS.keywordLength} characters`);
      const control = controlCharacterProblem(k);
      if (control) throw new SubscriptionInputError('keywords', `"${printable(k)}" ${control}`);
    }
    out.keywords = keywords;
  }
  return out;
}

/** The years a time given to the API may fall in: beyond them Postgres would refuse it (before 4713 BC) or nothing exists. */
export const TIME_YEARS = { from: 1970, to: 2999 } as const;

const daysIn = (year: number, month: number) => new Date(Date.UTC(year, month, 0)).getUTCDate();

/** Whether these parts make a real instant: a date of the calendar, a time of the day, an offset Postgres takes. */
function realParts(p: {
  year: number;
  month: number;
  day: number;
  hour: number;
  minute: number;
  second: number;
  offsetHours: number;
  offsetMinutes: number;
}): boolean {
  return (
    p.year >= TIME_YEARS.from &&
    p.year <= TIME_YEARS.to &&
    p.month >= 1 &&
    p.month <= 12 &&
    p.day >= 1 &&
    p.day <= daysIn(p.year, p.month) &&
    p.hour <= 23 &&
    p.minute <= 59 &&
    p.second <= 59 &&
    p.offsetHours <= 15 &&
    p.offsetMinutes <= 59
  );
}

// ISO 8601 as the API takes it: a date, or a date and time (seconds and fraction optional), with Z or an offset.
const ISO_TIME = /^(\d{4})-(\d{2})-(\d{2})(?:T(\d{2}):(\d{2})(?::(\d{2})(?:\.\d{1,9})?)?(Z|[+-](\d{2}):(\d{2})))?$/;

/** A time the API was given: ISO 8601, a real calendar date and time of the years TIME_YEARS; else a refusal naming `field`. */
export function checkTime(field: string, text: string): Date {
  const m = text.length <= 40 ? ISO_TIME.exec(text) : null;
  const n = (i: number) => Number(m?.[i] ?? 0);
  const parts = m && { year: n(1), month: n(2), day: n(3), hour: n(4), minute: n(5), second: n(6), offsetHours: n(8), offsetMinutes: n(9) };
  const time = m ? new Date(m[4] === undefined ? `${text}T00:00:00Z` : text) : undefined;
  if (!parts || !realParts(parts) || !time || Number.isNaN(time.getTime())) {
    throw new SubscriptionInputError(
      field,
      `is not a time: a real date of the years ${TIME_YEARS.from}–${TIME_YEARS.to} in ISO 8601, e.g. 2026-11-22T00:00:00Z or 2026-11-22`,
    );
  }
  return time;
}

/** A replay window: since is required, until (exclusive) is optional and later than since. */
export function checkTimeRange(since: string, until: string | undefined): { since: Date; until: Date | null } {
  const parse = checkTime;
  const from = parse('since', since);
  const to = until === undefined ? null : parse('until', until);
  if (to && to <= from) throw new SubscriptionInputError('until', 'must be later than since');
  return { since: from, until: to };
}

// Keyset position in a delivery log: Postgres's own text of created_at (it keeps
// microseconds, which a JS Date would drop) and the delivery id. Checked to be a
// real instant (a forged 2026-02-30 would reach Postgres and fail there).
const CREATED_KEY = /^(\d{4})-(\d{2})-(\d{2}) (\d{2}):(\d{2}):(\d{2})(\.\d{1,6})?[+-](\d{2})(?::(\d{2}))?(?::(\d{2}))?$/;

function realCreatedKey(text: string): boolean {
  const m = CREATED_KEY.exec(text);
  if (!m) return false;
  const n = (i: number) => Number(m[i] ?? 0);
  return (
    realParts({ year: n(1), month: n(2), day: n(3), hour: n(4), minute: n(5), second: n(6), offsetHours: n(8), offsetMinutes: n(9) }) &&
    n(10) <= 59
  );
}

export function encodeDeliveryCursor(position: { createdKey: string; id: string }): string {
  return encodeKeyset([position.createdKey, position.id]);
}

/** Accepts exactly what encodeDeliveryCursor made; anything else is a refusal naming `cursor`. */
export function decodeDeliveryCursor(raw: string): { createdKey: string; id: string } {
  const refuse = () => new SubscriptionInputError('cursor', 'is not a value returned as next_cursor');
  let parts: unknown[];
  try {
    parts = decodeKeyset(raw, 2);
  } catch (error) {
    if (error instanceof InvalidCursorError) throw refuse();
    throw error;
  }
  const [createdKey, id] = parts;
  if (typeof createdKey !== 'string' || !realCreatedKey(createdKey) || typeof id !== 'string' || !isId('delivery', id)) throw refuse();
  return { createdKey, id };
}
