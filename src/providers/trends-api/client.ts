// One question to the Trends API and its answer: POST v1alpha:fetchTimeSeries or
// :fetchGeoBreakdown with the service account's bearer token and the project in
// X-Goog-User-Project, which answers a long-running operation; then GET
// v1alpha/operations/… every TRENDS_API_POLL_MS until it is done, all within one
// deadline (TRENDS_API_REQUEST_TIMEOUT_MS). Every answer is classified as Google
// documents its errors (cloud.google.com/apis/design/errors), the HTTP status and the
// operation's error alike:
//   RESOURCE_EXHAUSTED (429)   the project's quota: wait (its retryDelay, else a minute)
//   PERMISSION_DENIED (403)    the project is not on the allow-list or has not enabled the API: refused, naming the fix
//   UNAUTHENTICATED (401)      the token: the credentials are looked at again later
//   INVALID_ARGUMENT (400) …   the request is at fault: refused
//   UNAVAILABLE, 5xx, no answer in time   its side: asked again later
//   anything not in its shapes  changed shape
import { setTimeout as sleep } from 'node:timers/promises';
import { boundedExchange } from '../bounded-exchange.js';
import {
  AccessRefusedError,
  MalformedResponseError,
  ProviderAccountError,
  ProviderUnavailableError,
  RateLimitedError,
  RefusedError,
} from '../contract.js';
import { accessToken, type ServiceAccount } from './auth.js';
import { isShape } from '../expect-shape.js';
import { ErrorBodySchema, expectShape, OperationSchema, retryDelayMs, type ApiStatus } from './format.js';

export interface TrendsApiClientSettings {
  apiUrl: string;
  /** X-Goog-User-Project: the project on the allow-list. */
  project: string;
  requestTimeoutMs: number;
  pollMs: number;
}

/** Without a delay in the answer, a quota wait is a minute (the API's quotas are per minute and per day). */
const QUOTA_WAIT_MS = 60_000;

// Google's status names (google.rpc.Code) this client tells apart; the others are its side or a refusal.
const RESOURCE_EXHAUSTED = 'RESOURCE_EXHAUSTED';
const PERMISSION_DENIED = 'PERMISSION_DENIED';
const UNAUTHENTICATED = 'UNAUTHENTICATED';
const NOT_FOUND = 'NOT_FOUND';
const UNAVAILABLE = 'UNAVAILABLE';
const INVALID_ARGUMENT = 'INVALID_ARGUMENT';

/** What an error status means for us: the error to throw. */
export function classifyStatus(status: ApiStatus, what: string, project: string): Error {
  const said = `${status.status ?? `HTTP ${status.code}`} "${status.message}"`;
  switch (status.status ?? statusOfCode(status.code)) {
    case RESOURCE_EXHAUSTED:
      return new RateLimitedError(
        `the Google Trends API's quota is spent (${said}) for ${what}`,
        'too_many_429',
        retryDelayMs(status) ?? QUOTA_WAIT_MS,
      );
    case PERMISSION_DENIED:
      return new AccessRefusedError(
        `the Google Trends API refused project "${project}" (${said}) for ${what}: the project must be on the API's alpha allow-list (apply at developers.google.com/search/apis/trends) and have trends.googleapis.com enabled, and the service account must be allowed to use it; set TRENDS_API_PROJECT to the allow-listed project`,
      );
    case UNAUTHENTICATED:
      return new ProviderAccountError(
        `the Google Trends API did not accept the service account's token (${said}): check GOOGLE_APPLICATION_CREDENTIALS and TRENDS_API_TOKEN_URL`,
        'credentials',
      );
    case NOT_FOUND:
      return new ProviderAccountError(`the Google Trends API answered ${said} for ${what}: check TRENDS_API_URL`, 'configuration');
    case UNAVAILABLE:
    case 'DEADLINE_EXCEEDED':
    case 'INTERNAL':
    case 'ABORTED':
      return new ProviderUnavailableError(`the Google Trends API answered ${said} for ${what}: its side, asked again later`);
    default:
      return new RefusedError(`the Google Trends API refused ${what} (${said})`);
  }
}

function statusOfCode(code: number): string {
  if (code === 429) return RESOURCE_EXHAUSTED;
  if (code === 403) return PERMISSION_DENIED;
  if (code === 401) return UNAUTHENTICATED;
  if (code === 404) return NOT_FOUND;
  if (code >= 500 || code === 408) return UNAVAILABLE;
  return INVALID_ARGUMENT;
}

export class TrendsApiClient {
  constructor(
    private readonly settings: TrendsApiClientSettings,
    private readonly account: ServiceAccount,
  ) {}

  /** Asks `method` (fetchTimeSeries, fetchGeoBreakdown) and returns the done operation's response. */
  async ask(method: 'fetchTimeSeries' | 'fetchGeoBreakdown', body: object, what: string): Promise<unknown> {
    const deadline = Date.now() + this.settings.requestTimeoutMs;
    let operation = await this.exchange('POST', `/v1alpha:${method}`, body, what, deadline);
    let polls = 0;
    while (operation.done !== true) {
      if (Date.now() + this.settings.pollMs >= deadline)
        throw new ProviderUnavailableError(
          `the Google Trends API's operation for ${what} was not done within ${this.settings.requestTimeoutMs} ms (${polls} polls): asked again later`,
        );
      await sleep(this.settings.pollMs);
      polls += 1;
      const polled = await this.exchange('GET', `/v1alpha/${operation.name}`, undefined, what, deadline);
      if (polled.name !== operation.name)
        throw new MalformedResponseError(`the Google Trends API answered the poll of ${operation.name} with ${polled.name}, for ${what}`);
      operation = polled;
    }
    if (operation.error) throw classifyStatus(operation.error, what, this.settings.project);
    if (!operation.response)
      throw new MalformedResponseError(`the Google Trends API's operation for ${what} is done with neither response nor error`);
    return operation.response;
  }

  private async exchange(method: 'POST' | 'GET', path: string, body: object | undefined, what: string, deadline: number) {
    const token = await accessToken(this.account);
    const { status, text } = await boundedExchange({
      provider: 'the Google Trends API',
      what,
      method,
      url: new URL(`${this.settings.apiUrl}${path}`),
      headers: {
        authorization: `Bearer ${token}`,
        'x-goog-user-project': this.settings.project,
        accept: 'application/json',
        ...(body === undefined ? {} : { 'content-type': 'application/json' }),
      },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
      // One deadline for the whole question: each exchange, its polls included, has what is left of it.
      timeoutMs: Math.max(1, deadline - Date.now()),
    });
    let json: unknown;
    try {
      json = JSON.parse(text);
    } catch {
      json = undefined;
    }
    if (status !== 200) {
      // Google's error envelope says more (its status); any other body (a proxy's) leaves the HTTP status alone.
      if (isShape(ErrorBodySchema, json)) throw classifyStatus((json as { error: ApiStatus }).error, what, this.settings.project);
      throw classifyStatus({ code: status, message: `HTTP ${status}` }, what, this.settings.project);
    }
    if (json === undefined) throw new MalformedResponseError(`the Google Trends API answered ${what} with something other than JSON`);
    return expectShape(OperationSchema, json, what);
  }
}
