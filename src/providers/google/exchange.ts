// One HTTPS exchange with Google as the client sees it: its kinds, its report
// for /metrics, and how its answer is classified (served, blocked, refused,
// changed). Split from client.ts, which runs the exchanges of a session.
import { isConsentPage, isSorryPage } from './format.js';
import { MalformedResponseError, RateLimitedError, RefusedError } from '../contract.js';
import type { AnswerOutcome } from '../../domain/trends/answers.js';
import { ConsentRequiredError, EmbedOverQuotaError } from './errors.js';
import type { EndpointFamily, ExchangeKind } from './families.js';

/** The longest Retry-After honoured: a day (anything longer is read as a day). */
const MAX_RETRY_AFTER_MS = 86_400_000;

/**
 * An exchange's outcome: one of Google's six, `over_quota` (the embed quota),
 * `consent` (the EU consent page), or `error` when no answer came (network,
 * timeout, a 5xx).
 */
export type ExchangeOutcome = AnswerOutcome | 'over_quota' | 'consent' | 'error';

export interface ExchangeReport {
  kind: ExchangeKind;
  /** The kind's endpoint family (pacedFamilyOf, ./families.ts): what Google limits and blocks, and what the budget counts by. */
  family: EndpointFamily;
  outcome: ExchangeOutcome;
  ms: number;
  route: string;
  /** HTTP status, when an answer came. */
  status?: number;
  /** Why, for anything but served. */
  detail?: string;
  /** How Google labelled the client in this answer's token, when it carried one. */
  userType?: string;
}
export type ExchangeObserver = (report: ExchangeReport) => void;

/** Google's answer to one HTTPS request, before it is classified. */
export interface RawAnswer {
  status: number;
  body: string;
  /** The NID cookie it set ("NID=…"), if any. */
  nid?: string;
  location?: string;
  /** The Retry-After header, as sent. */
  retryAfter?: string;
}

/** Google answered 5xx: neither about us nor about the request; retried like a network error. */
export class GoogleUnavailableError extends Error {
  override name = 'GoogleUnavailableError';
}

/** Errors already reported by an inner exchange. */
export const reported = new WeakSet<object>();
/** Errors of the caller's pacer: the request was never sent, so Google answered nothing to report. */
export const notSent = new WeakSet<object>();

/** The error stopped a request before it went (the route's pace or cooldown): nothing was asked of Google. */
export function wasNotSent(error: unknown): boolean {
  return typeof error === 'object' && error !== null && notSent.has(error);
}

/** Retry-After in milliseconds (delta-seconds or an HTTP date), within a day; undefined when absent or unreadable. */
export function retryAfterMs(header: string | undefined, now = Date.now()): number | undefined {
  if (header === undefined) return undefined;
  const value = header.trim();
  const ms = /^\d+$/.test(value) ? Number(value) * 1000 : Date.parse(value) - now;
  return Number.isFinite(ms) && ms >= 0 ? Math.min(ms, MAX_RETRY_AFTER_MS) : undefined;
}

/**
 * A page that handed out the cookie: a 200, or a 404 that sets it (the explore
 * page in the 2025 recording). A block that happens to set NID (a redirect to
 * /sorry, a 429, a 403) is still a block: nothing is sent into it on its cookie.
 */
export function handsOutCookie(answer: RawAnswer): boolean {
  return answer.nid !== undefined && (answer.status === 200 || answer.status === 404) && !isSorryPage(answer.body);
}

/** A 429 that may only mean "no cookie, or not that one": no Retry-After, no "sorry" or "unusual traffic" marker. */
export function isPlainRefusal(answer: RawAnswer): boolean {
  return answer.status === 429 && answer.retryAfter === undefined && !isSorryPage(answer.body);
}

/**
 * How Google answered, decided in one place for every kind of exchange. A
 * redirect to www.google.com/sorry, a 429, a 403 or an "unusual traffic" page
 * is a block (with Google's Retry-After when it sent one); the EU consent
 * page (a redirect to consent.google.com, or its HTML) is neither a block nor
 * a change, but a route that needs a consent cookie; 400 and 401 are
 * refusals (the request, or a proxy in the way); 404 on an endpoint, or a 200
 * that is not its format, is a changed shape; 5xx is Google being unwell.
 * Returns the body of a 200.
 */
export function classifyAnswer(kind: ExchangeKind, answer: RawAnswer, what: string, route = 'this route'): string {
  const { status } = answer;
  if (status !== 429 && status !== 403 && isConsentPage(status >= 300 && status < 400 ? '' : answer.body, answer.location)) {
    throw new ConsentRequiredError(
      `Google answered ${what} on route ${route} with its EU consent page (consent.google.com${answer.location ? ', a redirect' : ''}): not a block, and not a change of Google. The route is set aside; give it a consent cookie (TRENDS_CONSENT_COOKIES, docs/operations.md "EU consent") to use it`,
    );
  }
  const retry = retryAfterMs(answer.retryAfter);
  const asked = retry === undefined ? '' : `; it asks for ${Math.ceil(retry / 1000)} s`;
  if (status >= 300 && status < 400) {
    if (answer.location?.includes('/sorry/') || isSorryPage(answer.body)) {
      throw new RateLimitedError(
        `Google Trends blocked this client: ${status} to its "sorry" page while fetching ${what}${asked}`,
        'sorry_302',
        retry,
      );
    }
    throw new MalformedResponseError(
      `Google Trends redirected ${what} to ${(answer.location ?? '(nowhere)').slice(0, 120)}: not how it answers; Google may have changed (run \`insights google check\`)`,
    );
  }
  if (status === 429)
    throw new RateLimitedError(
      `Google Trends blocked this client: 429${isSorryPage(answer.body) ? ' (its "sorry" page)' : ''} while fetching ${what}${asked}`,
      'too_many_429',
      retry,
    );
  if (status === 403)
    throw new RateLimitedError(
      `Google Trends blocked this client: 403${isSorryPage(answer.body) ? ' ("unusual traffic")' : ''} while fetching ${what}${asked}`,
      'forbidden_403',
      retry,
    );
  // Google has served its "sorry" page under other statuses too, a 503 among them: a block, not Google unwell.
  if (status !== 200 && (isSorryPage(answer.body) || answer.location?.includes('/sorry/'))) {
    throw new RateLimitedError(
      `Google Trends blocked this client: ${status} with its "unusual traffic" page while fetching ${what}${asked}`,
      'unusual_traffic',
      retry,
    );
  }
  if (status === 400 || status === 401)
    throw Object.assign(
      new RefusedError(`Google Trends refused ${what} (HTTP ${status}): the request, or a proxy in the way, is at fault`),
      { status },
    );
  if (status >= 500) throw new GoogleUnavailableError(`Google Trends answered ${status} to ${what}; will retry`);
  if (kind === 'home_page' || kind === 'cookie_page') {
    if (!answer.nid)
      throw new MalformedResponseError(
        `Google's page for ${what} (HTTP ${status}) handed out no NID cookie: Google has changed how it identifies clients (run \`insights google check\`)`,
      );
    return answer.body;
  }
  if (status === 404)
    throw new MalformedResponseError(`Google Trends answered 404 to ${what}: the endpoint is gone (run \`insights google check\`)`);
  if (status !== 200)
    throw new MalformedResponseError(`Google Trends answered ${status} to ${what}: not how it answers (run \`insights google check\`)`);
  return answer.body;
}

/** The outcome an error stands for (the errors classifyAnswer and the parsers throw). */
export function outcomeOfError(error: unknown): ExchangeOutcome {
  if (error instanceof RateLimitedError) return 'blocked';
  if (error instanceof EmbedOverQuotaError) return 'over_quota';
  if (error instanceof ConsentRequiredError) return 'consent';
  if (error instanceof RefusedError) return 'refused';
  if (error instanceof MalformedResponseError) return 'changed_shape';
  return 'error';
}

export const outcomeOf = (parsed: unknown): AnswerOutcome => {
  const outcome = (parsed as { outcome?: AnswerOutcome } | undefined)?.outcome;
  if (outcome) return outcome;
  const items = (parsed as { items?: unknown[] } | undefined)?.items;
  return Array.isArray(items) && items.length === 0 ? 'empty' : 'served';
};
