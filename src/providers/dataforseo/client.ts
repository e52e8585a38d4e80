// One task to DataForSEO's v3 API and back: Basic auth (the login and password
// are never logged), one deadline for the whole exchange, and every answer
// classified as DataForSEO documents its codes (docs.dataforseo.com/v3/appendix/errors):
//   HTTP 401, 40100, 40201, 40204, 40207   the account: login, block, subscription, IP allow-list
//   HTTP 402, 40200, 40203, 40210          money: balance, or the daily cost limit the owner set
//   40202, 40209, HTTP 429                 its per-minute pace: wait for the next minute
//   40205, 40206                           duplicate-task limits (an hour, a day): wait
//   HTTP 5xx, 40101, 40103, 50xxx          its side: try again later
//   40501, 40503, 40506 …                  the request is at fault: refused
//   anything not in its docs' shape        changed shape
import { MalformedResponseError, ProviderAccountError, ProviderUnavailableError, RateLimitedError, RefusedError } from '../contract.js';
import { untilNextMinute } from '../paid-gateway.js';
import { EnvelopeSchema, expectShape, isEnvelope, type DataForSeoTask } from './format.js';
import { boundedExchange } from '../bounded-exchange.js';

export interface DataForSeoSettings {
  login: string;
  password: string;
  /** e.g. https://api.dataforseo.com (no trailing slash). */
  apiUrl: string;
  requestTimeoutMs: number;
  /** Extra certificate authority to trust (tests: the loopback DataForSEO's). */
  ca?: string;
}

/** Until the start of the next minute: when a per-minute limit has room again. */

const ACCOUNT_CODES: Record<number, string> = {
  40100: 'refused the login: check DATAFORSEO_LOGIN and DATAFORSEO_PASSWORD (the API password of app.dataforseo.com/api-access)',
  40201: 'has blocked the account for suspicious activity: contact its support',
  40204: 'has no subscription for this API on the account: activate it under Plans and Subscriptions',
  40207: "refuses this machine's address: add it to the account's IP allow-list",
};
const MONEY_CODES = new Set([40200, 40203, 40210]);
const PACE_CODES = new Set([40202, 40209]);
const DUPLICATE_CODES: Record<number, number> = { 40205: 3_600_000, 40206: 24 * 3_600_000 };
const THEIR_SIDE = (code: number) => code === 40101 || code === 40103 || (code >= 50000 && code < 60000);

/** What a status code means for us: nothing (20000, 20100), or the error to throw. */
export function classifyStatus(code: number, message: string, what: string): Error | null {
  if (code === 20000 || code === 20100) return null;
  const said = `DataForSEO ${code} "${message}"`;
  if (ACCOUNT_CODES[code]) return new ProviderAccountError(`DataForSEO ${ACCOUNT_CODES[code]} (${said})`, 'credentials');
  if (MONEY_CODES.has(code))
    return new ProviderAccountError(
      `DataForSEO refused to bill the account: add funds, or raise the daily cost limit, at app.dataforseo.com (${said})`,
      'balance',
    );
  if (PACE_CODES.has(code)) return new RateLimitedError(`${said} for ${what}`, 'too_many_429', untilNextMinute());
  if (DUPLICATE_CODES[code]) return new RateLimitedError(`${said} for ${what}`, 'too_many_429', DUPLICATE_CODES[code]);
  if (THEIR_SIDE(code)) return new ProviderUnavailableError(`${said} for ${what}: its side, tried again later`);
  if (code >= 40000 && code < 50000) return new RefusedError(`${said} for ${what}`);
  return new MalformedResponseError(`${said} for ${what}: a status its docs do not list`);
}

function classifyHttp(status: number, what: string): Error | null {
  if (status === 200) return null;
  if (status === 401) return classifyStatus(40100, 'Unauthorized', what);
  if (status === 402) return classifyStatus(40200, 'Payment Required', what);
  if (status === 429) return classifyStatus(40202, 'Too Many Requests', what);
  // Not in its docs, but what a firewall in front of it answers: the account's address is not let through.
  if (status === 403) return classifyStatus(40207, 'Forbidden', what);
  if (status === 404)
    return new ProviderAccountError(
      `DataForSEO answered 404 for ${what}: check DATAFORSEO_API_URL (the endpoint was not found)`,
      'configuration',
    );
  // Its side, or a proxy or load balancer before it (whatever body they send): try again later.
  if (status === 408 || status >= 500)
    return new ProviderUnavailableError(`DataForSEO answered HTTP ${status} for ${what}: its side, tried again later`);
  return new MalformedResponseError(`DataForSEO answered HTTP ${status} for ${what}, which its docs do not list`);
}

/** Sends one task and returns it answered, with what DataForSEO billed for it; throws the classified error otherwise. */
export async function postTask(settings: DataForSeoSettings, path: string, task: object, what: string): Promise<DataForSeoTask> {
  const { status, text } = await boundedExchange({
    provider: 'DataForSEO',
    what,
    method: 'POST',
    url: new URL(`${settings.apiUrl}${path}`),
    headers: {
      authorization: `Basic ${Buffer.from(`${settings.login}:${settings.password}`).toString('base64')}`,
      'content-type': 'application/json',
    },
    body: JSON.stringify([task]),
    timeoutMs: settings.requestTimeoutMs,
    ...(settings.ca ? { ca: settings.ca } : {}),
  });
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    json = undefined;
  }
  // An error status with DataForSEO's envelope says more (its code); with any other body (a proxy's), the HTTP status alone.
  const httpError = classifyHttp(status, what);
  if (httpError && !(json !== undefined && isEnvelope(json))) throw httpError;
  if (json === undefined) throw new MalformedResponseError(`DataForSEO answered ${what} with something other than JSON`);
  const envelope = expectShape(EnvelopeSchema, json, what);
  const requestError = classifyStatus(envelope.status_code, envelope.status_message, what);
  if (requestError) throw requestError;
  if (httpError) throw httpError;
  const answered = envelope.tasks?.[0];
  if (!answered) throw new MalformedResponseError(`DataForSEO answered ${what} without its task`);
  // "No Search Results": a well-formed answer with nothing in it.
  if (answered.status_code === 40102) return { ...answered, result: [] };
  const taskError = classifyStatus(answered.status_code, answered.status_message, what);
  if (taskError) throw taskError;
  return answered;
}
