// The Google Trends API (alpha) on loopback, for tests and benchmarks, from its published
// shapes (docs/providers.md, "What the Trends API is asked", lists them and what was chosen):
//   a token endpoint       POST /token, grant_type jwt-bearer: the assertion is verified as
//                          Google's is (RS256 by the key it issued, iss the service account,
//                          the searchtrends scope, aud this endpoint, not expired)
//   fetchTimeSeries        POST /v1alpha:fetchTimeSeries and :fetchGeoBreakdown answer a
//   fetchGeoBreakdown      long-running operation, done after `pollsUntilDone` polls of
//                          GET /v1alpha/operations/{id}
//   its quota              exhaustNext(n): the next n questions answer 429 RESOURCE_EXHAUSTED
//                          (with a RetryInfo delay)
//   its allow-list         a project not in `allowList` (X-Goog-User-Project) answers 403
//                          PERMISSION_DENIED
// Figures come from a deterministic world: each term has a popularity of its own, from which its
// searchInterest follows (two significant figures, the same for a day whichever request asks).
// Plain HTTP on 127.0.0.1 (the product allows http: only to this machine).
import { createHash, generateKeyPairSync, randomUUID, verify } from 'node:crypto';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { LOOPBACK_COUNTRIES, LOOPBACK_REGIONS } from '../loopback-places.js';

export const LOOPBACK_PROJECT = 'loopback-trends-project';
export const LOOPBACK_ACCOUNT = 'insights@loopback-trends-project.iam.gserviceaccount.com';
const SCOPE = 'https://www.googleapis.com/auth/searchtrends';
const DAY_MS = 86_400_000;

export interface TrendsApiRequest {
  method: string;
  path: string;
  status: number;
  project?: string;
  body?: { term?: string; geo?: string; resolution?: string; timeRange?: unknown };
}

export interface TrendsApiOnLoopback {
  url: string;
  tokenUrl: string;
  /** GOOGLE_APPLICATION_CREDENTIALS, TRENDS_API_URL, TRENDS_API_TOKEN_URL and a short poll, for a process that should use it. */
  env: Record<string, string>;
  /** Every API request answered or refused, in order (token requests are in `tokens`). */
  requests: TrendsApiRequest[];
  /** Every token request: whether its assertion was accepted, and why not. */
  tokens: Array<{ accepted: boolean; reason?: string; claims?: Record<string, unknown> }>;
  /** Projects let through (X-Goog-User-Project). */
  allowList: Set<string>;
  /** Polls an operation takes before it is done. */
  pollsUntilDone: number;
  /** The next `n` questions answer RESOURCE_EXHAUSTED, asking to wait `retryDelayS` seconds. */
  exhaustNext(n: number, retryDelayS?: number): void;
  /** Data points answered (one per point of a done operation's response). */
  pointsServed: number;
  stop(): Promise<void>;
}

/** A term's popularity in the simulated world, 1–1000 (same term, same value). */
export function popularityOf(term: string): number {
  const h = createHash('sha256').update(term.toLowerCase()).digest();
  return 1 + (h.readUInt32BE(0) % 1000);
}
const wobble = (key: string) => 0.8 + (createHash('sha256').update(key).digest().readUInt16BE(0) / 65535) * 0.4;
/** Two significant figures, as the API's searchInterest is published. */
const twoFigures = (x: number) => (x <= 0 ? 0 : Number(x.toPrecision(2)));

/**
 * The searchInterest of a term in a place for the period starting on `day` (ISO): the one value every request
 * reads. An OR-group of the phrase with modifiers ("meal kits price + meal kits buy", as research's modifier
 * comparison asks) counts a share of the phrase's searches, as Google's `+` does: never more than the phrase.
 */
export function searchInterestOf(term: string, geo: string, day: string): number {
  const parts = term.toLowerCase().split(' + ');
  if (parts.length > 1) {
    const words = parts.map((p) => p.trim().split(/\s+/));
    const common: string[] = [];
    for (const [i, word] of words[0]!.entries()) if (words.every((w) => w[i] === word) && common.length === i) common.push(word);
    if (common.length > 0) return twoFigures(exactInterest(common.join(' '), geo, day) * (0.02 + 0.2 * (popularityOf(term) / 1000)));
  }
  return twoFigures(exactInterest(term, geo, day));
}
const exactInterest = (term: string, geo: string, day: string) =>
  (popularityOf(term) / 10) * wobble(`${term.toLowerCase()}|${geo}|${day}`) * (geo === '' ? 1 : 0.6);

/** The places one level below `geo`, with a term's share of interest there. */
export function placesBelow(geo: string): ReadonlyArray<readonly [string, string]> {
  return geo === '' ? LOOPBACK_COUNTRIES : (LOOPBACK_REGIONS[geo] ?? []);
}
export const placeInterestOf = (term: string, place: string) =>
  twoFigures((popularityOf(`${term.toLowerCase()}|${place}`) / 10) * (popularityOf(term) / 1000));

type ApiDay = { year: number; month: number; day: number };
const isoOf = (d: ApiDay) => `${d.year}-${String(d.month).padStart(2, '0')}-${String(d.day).padStart(2, '0')}`;
const dayOf = (ms: number): ApiDay => {
  const d = new Date(ms);
  return { year: d.getUTCFullYear(), month: d.getUTCMonth() + 1, day: d.getUTCDate() };
};
const isDay = (x: unknown): x is ApiDay =>
  typeof x === 'object' && x !== null && ['year', 'month', 'day'].every((k) => Number.isInteger((x as Record<string, unknown>)[k]));

/** The period starts of a window at a resolution (weeks from its first day; months and years from their first). */
function periods(start: number, end: number, resolution: string): number[] {
  const out: number[] = [];
  if (resolution === 'DAILY' || resolution === 'WEEKLY')
    for (let t = start; t <= end; t += (resolution === 'DAILY' ? 1 : 7) * DAY_MS) out.push(t);
  else {
    const d = new Date(start);
    let t = resolution === 'MONTHLY' ? Date.UTC(d.getUTCFullYear(), d.getUTCMonth(), 1) : Date.UTC(d.getUTCFullYear(), 0, 1);
    while (t <= end) {
      out.push(Math.max(t, start));
      const n = new Date(t);
      t = resolution === 'MONTHLY' ? Date.UTC(n.getUTCFullYear(), n.getUTCMonth() + 1, 1) : Date.UTC(n.getUTCFullYear() + 1, 0, 1);
    }
  }
  return out;
}

const status = (code: number, name: string, message: string, details?: unknown[]) => ({
  error: { code, message, status: name, ...(details ? { details } : {}) },
});

export async function startTrendsApiOnLoopback(options: { pollsUntilDone?: number } = {}): Promise<TrendsApiOnLoopback> {
  const { publicKey, privateKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
  const dir = await mkdtemp(path.join(os.tmpdir(), 'trends-api-'));
  const keyFile = path.join(dir, 'service-account.json');
  const tokens = new Map<string, number>();
  const operations = new Map<string, { polls: number; response: object; counted: boolean }>();
  let exhausted = 0;
  let exhaustedDelayS = 0.2;

  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const text = Buffer.concat(chunks).toString('utf8');
      const send = (code: number, body: object) => {
        res.writeHead(code, { 'content-type': 'application/json; charset=UTF-8' }).end(JSON.stringify(body));
        return code;
      };
      const url = new URL(req.url ?? '/', fake.url);
      if (req.method === 'POST' && url.pathname === '/token') return void token(text, send);
      const project = req.headers['x-goog-user-project'] as string | undefined;
      let body: TrendsApiRequest['body'];
      const record = (code: number) =>
        void fake.requests.push({ method: req.method ?? '', path: url.pathname, status: code, project, ...(body ? { body } : {}) });
      const bearer = /^Bearer (.+)$/.exec(req.headers.authorization ?? '')?.[1];
      if (!bearer || (tokens.get(bearer) ?? 0) < Date.now())
        return record(
          send(401, status(401, 'UNAUTHENTICATED', 'Request had invalid authentication credentials. Expected OAuth 2 access token.')),
        );
      if (!project || !fake.allowList.has(project))
        return record(
          send(
            403,
            status(403, 'PERMISSION_DENIED', `Project ${project ?? '(none)'} is not allowed to use the Google Trends API (alpha).`, [
              { '@type': 'type.googleapis.com/google.rpc.ErrorInfo', reason: 'CONSUMER_INVALID', domain: 'googleapis.com' },
            ]),
          ),
        );
      if (req.method === 'GET' && url.pathname.startsWith('/v1alpha/operations/')) {
        const name = url.pathname.slice('/v1alpha/'.length);
        const operation = operations.get(name);
        if (!operation) return record(send(404, status(404, 'NOT_FOUND', `Operation ${name} not found.`)));
        operation.polls += 1;
        const done = operation.polls >= fake.pollsUntilDone;
        // Its points are spent when it is answered done, once.
        if (done && !operation.counted) fake.pointsServed += pointsIn(operation.response);
        operation.counted ||= done;
        return record(
          send(200, {
            name,
            metadata: { '@type': 'type.googleapis.com/google.search.trends.v1alpha.OperationMetadata' },
            done,
            ...(done ? { response: operation.response } : {}),
          }),
        );
      }
      const method = /^\/v1alpha:(fetchTimeSeries|fetchGeoBreakdown)$/.exec(url.pathname)?.[1];
      if (req.method !== 'POST' || !method) return record(send(404, status(404, 'NOT_FOUND', `${req.method} ${url.pathname} not found.`)));
      try {
        body = JSON.parse(text) as TrendsApiRequest['body'];
      } catch {
        return record(send(400, status(400, 'INVALID_ARGUMENT', 'Invalid JSON payload received.')));
      }
      if (exhausted > 0) {
        exhausted -= 1;
        return record(
          send(
            429,
            status(429, 'RESOURCE_EXHAUSTED', "Quota exceeded for quota metric 'Data points' of service 'trends.googleapis.com'.", [
              { '@type': 'type.googleapis.com/google.rpc.RetryInfo', retryDelay: `${exhaustedDelayS}s` },
            ]),
          ),
        );
      }
      const answer = method === 'fetchTimeSeries' ? timeSeries(body) : geoBreakdown(body);
      if ('error' in answer) return record(send(400, answer));
      const name = `operations/${randomUUID().replace(/-/g, '')}`;
      const done = fake.pollsUntilDone <= 0;
      operations.set(name, { polls: 0, response: answer, counted: done });
      if (done) fake.pointsServed += pointsIn(answer);
      record(send(200, { name, done, ...(done ? { response: answer } : {}) }));
    });
  });

  const pointsIn = (answer: object) =>
    ((answer as { timeSeries?: { points: unknown[] } }).timeSeries?.points.length ?? 0) +
    ((answer as { geoBreakdown?: { points: unknown[] } }).geoBreakdown?.points.length ?? 0);

  function window(body: TrendsApiRequest['body']): { start: number; end: number } | { error: object } {
    const range = body?.timeRange as { startDate?: unknown; endDate?: unknown } | undefined;
    if (typeof body?.term !== 'string' || body.term.trim() === '') return status(400, 'INVALID_ARGUMENT', 'term is required.');
    if (!range || !isDay(range.startDate) || !isDay(range.endDate))
      return status(400, 'INVALID_ARGUMENT', 'timeRange.startDate and endDate are required.');
    const start = Date.parse(isoOf(range.startDate));
    const end = Date.parse(isoOf(range.endDate));
    const now = new Date();
    const last = Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), now.getUTCDate()) - 2 * DAY_MS;
    // The rolling 1,800 days ending two days ago.
    if (!(start <= end) || end > last || start < last - 1_799 * DAY_MS)
      return status(400, 'INVALID_ARGUMENT', 'timeRange must lie within the 1800 days ending two days ago.');
    return { start, end };
  }

  function timeSeries(body: TrendsApiRequest['body']) {
    const w = window(body);
    if ('error' in w) return w;
    const resolution = body?.resolution ?? 'WEEKLY';
    if (!['DAILY', 'WEEKLY', 'MONTHLY', 'YEARLY'].includes(resolution))
      return status(400, 'INVALID_ARGUMENT', `Unknown resolution ${resolution}.`);
    const values = periods(w.start, w.end, resolution).map((t) => ({
      t,
      v: searchInterestOf(body!.term!, body?.geo ?? '', isoOf(dayOf(t))),
    }));
    const peak = Math.max(0, ...values.map((p) => p.v));
    return {
      '@type': 'type.googleapis.com/google.search.trends.v1alpha.FetchTimeSeriesResponse',
      timeSeries: {
        points: values.map(({ t, v }) => ({
          date: dayOf(t),
          searchInterest: v,
          scaledSearchInterest: peak > 0 ? Math.round((v * 100) / peak) : 0,
        })),
      },
    };
  }

  function geoBreakdown(body: TrendsApiRequest['body']) {
    const w = window(body);
    if ('error' in w) return w;
    const values = placesBelow(body?.geo ?? '').map(([geo, displayName]) => ({ geo, displayName, v: placeInterestOf(body!.term!, geo) }));
    const peak = Math.max(0, ...values.map((p) => p.v));
    return {
      '@type': 'type.googleapis.com/google.search.trends.v1alpha.FetchGeoBreakdownResponse',
      geoBreakdown: {
        points: values.map(({ geo, displayName, v }) => ({
          geo,
          displayName,
          searchInterest: v,
          scaledSearchInterest: peak > 0 ? Math.round((v * 100) / peak) : 0,
        })),
      },
    };
  }

  /** Verifies the assertion as Google's token endpoint does, and hands out an hour's token. */
  function token(text: string, send: (code: number, body: object) => number) {
    const form = new URLSearchParams(text);
    const refuse = (reason: string, claims?: Record<string, unknown>) => {
      fake.tokens.push({ accepted: false, reason, ...(claims ? { claims } : {}) });
      send(400, { error: 'invalid_grant', error_description: reason });
    };
    if (form.get('grant_type') !== 'urn:ietf:params:oauth:grant-type:jwt-bearer') return refuse('unsupported grant_type');
    const [header, payload, signature] = (form.get('assertion') ?? '').split('.');
    if (!header || !payload || !signature) return refuse('the assertion is not a JWT');
    let head: { alg?: string };
    let claims: Record<string, unknown>;
    try {
      head = JSON.parse(Buffer.from(header, 'base64url').toString('utf8')) as { alg?: string };
      claims = JSON.parse(Buffer.from(payload, 'base64url').toString('utf8')) as Record<string, unknown>;
    } catch {
      return refuse('the assertion is not a JWT');
    }
    if (head.alg !== 'RS256') return refuse(`alg ${head.alg} is not RS256`, claims);
    if (!verify('RSA-SHA256', Buffer.from(`${header}.${payload}`), publicKey, Buffer.from(signature, 'base64url')))
      return refuse('Invalid JWT Signature.', claims);
    if (claims.iss !== LOOPBACK_ACCOUNT) return refuse(`iss ${String(claims.iss)} is not the service account`, claims);
    if (
      !String(claims.scope ?? '')
        .split(' ')
        .includes(SCOPE)
    )
      return refuse('the searchtrends scope is not asked', claims);
    if (claims.aud !== fake.tokenUrl) return refuse(`aud ${String(claims.aud)} is not this token endpoint`, claims);
    const now = Date.now() / 1000;
    if (typeof claims.exp !== 'number' || claims.exp < now || typeof claims.iat !== 'number' || claims.iat > now + 60)
      return refuse('Invalid JWT: Token must be a short-lived token and in a reasonable timeframe.', claims);
    const accessToken = `ya29.loopback-${randomUUID()}`;
    tokens.set(accessToken, Date.now() + 3_600_000);
    fake.tokens.push({ accepted: true, claims });
    send(200, { access_token: accessToken, expires_in: 3599, token_type: 'Bearer' });
  }

  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  await writeFile(
    keyFile,
    JSON.stringify({
      type: 'service_account',
      project_id: LOOPBACK_PROJECT,
      private_key_id: randomUUID().replace(/-/g, ''),
      private_key: privateKey.export({ type: 'pkcs8', format: 'pem' }),
      client_email: LOOPBACK_ACCOUNT,
      client_id: '100000000000000000000',
      // What a real key says; google-auth-library posts to its own constant whatever this is (auth.ts).
      token_uri: 'https://oauth2.googleapis.com/token',
    }),
    { mode: 0o600 },
  );
  const fake: TrendsApiOnLoopback = {
    url,
    tokenUrl: `${url}/token`,
    env: {
      GOOGLE_APPLICATION_CREDENTIALS: keyFile,
      TRENDS_API_URL: url,
      TRENDS_API_TOKEN_URL: `${url}/token`,
      TRENDS_API_POLL_MS: '20',
    },
    requests: [],
    tokens: [],
    allowList: new Set([LOOPBACK_PROJECT]),
    pollsUntilDone: options.pollsUntilDone ?? 2,
    pointsServed: 0,
    exhaustNext(n, retryDelayS = 0.2) {
      exhausted = n;
      exhaustedDelayS = retryDelayS;
    },
    async stop() {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
      await rm(dir, { recursive: true, force: true });
    },
  };
  return fake;
}
