// What every account page module is handed: the page's dependencies and the few helpers
// that make a page safe (signed in, from this origin, with the session's form token),
// set up once for the /account scope: the form parser, the no-store hook and the HTML error page.
import { createHash } from 'node:crypto';
import { open, seal } from '../../domain/sealed.js';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { announceKeyChange } from '../../api-keys/api-key-cache.js';
import type { QuotaStore } from '../../accounts/quota.store.js';
import type { KnownDevices } from '../../members/known-devices.js';
import type { SignInLimiter } from '../../members/sign-in-limiter.js';
import type { PageLimiter } from '../../members/page-limiter.js';
import type { HashGate } from '../../members/password.js';
import type { Db } from '../../db/connection.js';
import { DEFAULT_RESEARCH_ALLOWANCE, type ResearchAllowance } from '../../domain/research/allowance.js';
import type { Logger } from '../../logger.js';
import { classifyOutage } from '../../outage.js';
import type { Mailer } from '../../mail/mailer.js';
import type { Redis } from '../../redis/connection.js';
import type { RedisKeys } from '../../redis/keys.js';
import type { WebhookService } from '../../webhooks/webhook-service.js';
import type { ResearchService } from '../../research/research-service.js';
import type { ComparisonService } from '../../research/comparison-service.js';
import { ProblemError } from '../problem.js';
import { html, unsafeRawHtml, type Html } from '../../domain/html.js';
import { notice, renderPage, type TabId } from './layout.js';
import { currentSession, formTokenMatches, markSecure, sameOrigin, type Session } from './session.js';

export interface AccountPagesOptions {
  db: Db;
  redis: Redis;
  redisKeys: RedisKeys;
  logger: Logger;
  quota: QuotaStore;
  /** The research allowance per plan (RESEARCH_RUNS_PER_DAY_*); default DEFAULT_RESEARCH_ALLOWANCE. */
  researchAllowance?: ResearchAllowance;
  /** The webhook service /api/webhooks uses (the Webhooks page reads through it); without it the page says webhooks are not configured. */
  webhooks?: WebhookService;
  /** Research on demand, as POST /api/research-runs submits it; without it the Research page says it is not configured. */
  research?: ResearchService;
  /** 2 to 5 insights' interest on one scale, as POST /api/comparisons asks it; without it the compare page shows the scores alone. */
  comparisons?: { service: ComparisonService; defaultGeo: string };
  /** Drops a key from this process's key cache at once (the others hear of it through Redis). */
  forgetKey?: (keyId: string) => void;
  /** PUBLIC_BASE_URL: its origin is accepted as a form's Origin too, and invitation links start with it; https there makes every cookie Secure. */
  publicBaseUrl?: () => string;
  /** Mails invitations (SMTP_URL); without it the People page says invitations cannot be sent and the operators invite. */
  mailer?: Mailer;
  /** The pages' guards, from the composition root (their bounds are SIGN_IN_HASH_* and ACCOUNT_PAGES_PER_MINUTE_*). */
  signInLimiter: SignInLimiter;
  knownDevices: KnownDevices;
  hashGate: HashGate;
  pageLimiter: PageLimiter;
}

/**
 * What waits in Redis for the next page (a new key, an invitation link) is sealed (AES-256-GCM) with a key
 * derived from the session's cookie, which neither Redis nor Postgres holds: Redis never keeps a secret in
 * clear (an outside review read a working key there), and only the browser holding the cookie can open it.
 */
const flashKey = (sessionSecret: string) => createHash('sha256').update(`account-page-flash\u0000${sessionSecret}`).digest();
export function sealFlash(sessionSecret: string, text: string): string {
  return seal(flashKey(sessionSecret), text).toString('base64url');
}
/** The sealed text, or '' when it cannot be opened with this session (another session's, tampered or cut). */
export function openFlash(sessionSecret: string, sealed: string): string {
  try {
    return open(flashKey(sessionSecret), Buffer.from(sealed, 'base64url'));
  } catch {
    return '';
  }
}

/** How long what a form's answer shows waits for the page it redirected to (redirectWith). */
const FLASH_SECONDS = 300;
/** How long a rotated key keeps working beside its successor (the CLI's default overlap too). */
export const ROTATION_OVERLAP_MS = 24 * 3_600_000;
export const EXPIRY_CHOICES = { never: null, '7d': 7, '30d': 30, '90d': 90, '365d': 365 } as const;
export type ExpiryChoice = keyof typeof EXPIRY_CHOICES;
export type Form = Record<string, string | string[] | undefined>;

export const field = (body: unknown, name: string): string => {
  const value = (body as Form | undefined)?.[name];
  return typeof value === 'string' ? value : '';
};
export const fields = (body: unknown, name: string): string[] => {
  const value = (body as Form | undefined)?.[name];
  return value === undefined ? [] : [value].flat();
};
export const date = (d: Date | null | undefined) => (d ? d.toISOString().replace('T', ' ').slice(0, 16) + ' UTC' : '—');
/** A run's or an insight's market as a person reads it: its country, worldwide (''), or the default (null: TRENDS_GEO). */
export const marketOf = (geo: string | null) => (geo === null ? 'default' : geo || 'worldwide');

function parseForm(body: string): Form {
  const form: Form = Object.create(null) as Form;
  for (const [name, value] of new URLSearchParams(body)) {
    const before = form[name];
    form[name] = before === undefined ? value : [...[before].flat(), value];
  }
  return form;
}

export type PageKit = ReturnType<typeof pageKit>;

/** Sets up the /account scope and returns the helpers its page modules share. */
export function pageKit(app: FastifyInstance, options: AccountPagesOptions) {
  const { db, logger } = options;
  const { signInLimiter: limiter, knownDevices: devices, hashGate: hashing, pageLimiter } = options;
  const allowance = options.researchAllowance ?? DEFAULT_RESEARCH_ALLOWANCE;
  const publicOrigin = () => {
    try {
      return options.publicBaseUrl ? new URL(options.publicBaseUrl()).origin : undefined;
    } catch {
      return undefined;
    }
  };
  const baseUrl = (request: FastifyRequest) => options.publicBaseUrl?.() ?? `${request.protocol}://${request.host}`;
  const audit = (session: Session | { memberId: string; accountId: string }, action: string, details: Record<string, unknown> = {}) => {
    const who =
      'row' in session
        ? { member_id: session.row.id, account_id: session.row.account_id }
        : { member_id: session.memberId, account_id: session.accountId };
    logger.info({ audit: { action, ...who, ...details } }, `account pages: ${action}`);
  };

  const keyChanged = async (keyId: string) => {
    options.forgetKey?.(keyId);
    await announceKeyChange(options.redis, options.redisKeys.apiKeyChangesChannel, keyId);
  };

  // Behind a TLS proxy that TRUST_PROXY does not name the request looks like http, yet the browser is on
  // https: a PUBLIC_BASE_URL of https makes the cookies Secure (and __Host-) all the same.
  app.addHook('onRequest', (request, _reply, done) => {
    if (publicOrigin()?.startsWith('https:')) markSecure(request);
    done();
  });

  app.addContentTypeParser('application/x-www-form-urlencoded', { parseAs: 'string', bodyLimit: 16_384 }, (_request, body, done) =>
    done(null, parseForm(body as string)),
  );
  // Pages may hold a key shown once or a form token: never stored by a cache.
  // Referrer-Policy same-origin, not the API's no-referrer: under no-referrer a browser sends `Origin: null` with
  // a form, and the origin check below needs the real one. Nothing here links to another origin.
  app.addHook('onSend', async (_request, reply, payload) => {
    reply.header('cache-control', 'no-store');
    reply.header('referrer-policy', 'same-origin');
    return payload;
  });
  // A page's errors are pages too. A client's fault (a body too large, a control character refused by
  // input-hygiene) is its 4xx; Postgres or Redis not answering (the pool's wait for a connection timed out,
  // say) a 503 with Retry-After, as the API answers it (SECURITY.md: outages are 503, never 500); anything
  // else a logged 500.
  app.setErrorHandler((error: { statusCode?: number; message?: string }, request, reply) => {
    const outage = classifyOutage(error);
    if (outage) {
      request.log.warn({ err: error, dependency: outage.dependency, reason: outage.reason }, 'account page: dependency unavailable');
      return sendPage(reply.code(503).header('retry-after', '5'), {
        title: 'Try again shortly',
        body: notice('error', 'The service is too busy right now, or a service it relies on is not answering. Try again in a few seconds.'),
      });
    }
    const code = error instanceof ProblemError ? error.body.status : error.statusCode;
    const status = code && code >= 400 && code < 500 ? code : 500;
    if (status === 500) request.log.error({ err: error }, 'account page failed');
    // A refusal that says why (input-hygiene's "name … holds a control character") shows its reason; the rest the generic text.
    const why = error instanceof ProblemError && status < 500 && error.body.detail ? ` ${error.body.detail}` : '';
    return sendPage(reply.code(status), {
      title: status === 500 ? 'Something went wrong' : 'The request was refused',
      body: notice(
        'error',
        status === 500
          ? 'The page could not be made; try again in a moment.'
          : `The form could not be read and nothing was changed.${why} Go back, correct it and try again.`,
      ),
    });
  });

  // HTML pages: no response schema and out of the OpenAPI document (it describes /api).
  const hide = { schema: { hide: true } };
  // A form's body is read only by the routes that take one (see method-not-allowed.plugin.ts), and only this big.
  const form = { ...hide, bodyLimit: 16_384, config: { acceptsBody: true } };
  function sendPage(reply: FastifyReply, frame: Parameters<typeof renderPage>[0]): FastifyReply {
    return reply.type('text/html; charset=utf-8').send(renderPage(frame));
  }
  const refused = (reply: FastifyReply) =>
    sendPage(reply.code(403), {
      title: 'Refused',
      body: html`${notice('error', 'This form did not come from a page of this service, or the page was too old. Nothing was changed.')}<p><a href="/account">Back to your account</a></p>`,
    });
  const frame = (session: Session, tab: TabId) => ({
    email: session.row.email,
    role: session.row.role,
    accountName: session.row.account_name,
    csrf: session.csrf,
    tab,
  });

  /** Counts a signed-in page against its session and account; false when it was answered with a 429 instead. */
  async function withinLimits(session: Session, reply: FastifyReply): Promise<boolean> {
    const held = await pageLimiter.take(session.row.id_hash, session.row.account_id);
    if (!held) return true;
    logger.warn(
      { audit: { action: 'pages held', member_id: session.row.id, account_id: session.row.account_id } },
      'account pages: too many pages',
    );
    void sendPage(reply.code(429).header('retry-after', String(held.retryAfterSeconds)), {
      title: 'Too many pages',
      signedIn: frame(session, 'overview'),
      body: html`${notice('error', `Your account has opened more pages this minute than it may. Nothing was changed; try again in ${held.retryAfterSeconds} second${held.retryAfterSeconds === 1 ? '' : 's'}.`)}<p><a href="/account">Back to your account</a></p>`,
    });
    return false;
  }

  /** The session, or a redirect to sign in, or a 429 past the pages' limits (undefined: answered). */
  async function page(request: FastifyRequest, reply: FastifyReply): Promise<Session | undefined> {
    const session = await currentSession(db, request);
    if (!session) {
      void reply.redirect('/account/sign-in', 303);
      return undefined;
    }
    return (await withinLimits(session, reply)) ? session : undefined;
  }
  /**
   * As page, for a form that changes something: from this origin, with the session's token, and (unless
   * `whileSuspended`, as signing out is) not while the account is suspended: the pages refuse what the
   * API refuses its keys (403), so a suspended account's people may look but change nothing (save what only
   * takes access away: signing out, revoking a key). Counted against the pages' limits unless `counted` is false.
   */
  async function change(
    request: FastifyRequest,
    reply: FastifyReply,
    { whileSuspended = false, counted = true }: { whileSuspended?: boolean; counted?: boolean } = {},
  ): Promise<Session | undefined> {
    if (!sameOrigin(request, publicOrigin())) {
      void refused(reply);
      return undefined;
    }
    const session = await currentSession(db, request);
    if (!session) {
      void reply.redirect('/account/sign-in', 303);
      return undefined;
    }
    if (!formTokenMatches(session.secret, request.body)) {
      void refused(reply);
      return undefined;
    }
    // Signing out is never held: a person must always be able to end a session.
    if (counted && !(await withinLimits(session, reply))) return undefined;
    if (session.row.status === 'suspended' && !whileSuspended) {
      void sendPage(reply.code(403), {
        title: 'Account suspended',
        signedIn: frame(session, 'overview'),
        body: html`${notice('error', `Account ${session.row.account_name} is suspended: its pages are read-only and nothing was changed. Its API keys are refused too until the operators resume it.`)}<p><a href="/account">Back to your account</a></p>`,
      });
      return undefined;
    }
    return session;
  }

  /**
   * POST/Redirect/GET: a form that changed something answers 303 to its page, and what it has to show (a key
   * or a link shown once, a notice) waits in Redis for that page's next GET in the same session, read once
   * (GETDEL) and kept at most FLASH_SECONDS: a reload or a second submit repeats nothing and shows no secret again.
   */
  async function redirectWith(reply: FastifyReply, session: Session, tab: TabId, path: string, shown: Html): Promise<FastifyReply> {
    await options.redis.set(
      options.redisKeys.pageFlash(session.row.id_hash, tab),
      sealFlash(session.secret, String(shown)),
      'EX',
      FLASH_SECONDS,
    );
    return reply.redirect(path, 303);
  }
  async function takeShown(session: Session, tab: TabId): Promise<Html> {
    const sealed = await options.redis.getdel(options.redisKeys.pageFlash(session.row.id_hash, tab));
    // Raw: this is markup this process built with the html tag for this session (redirectWith), sealed with a key
    // only the session's cookie derives (AES-GCM: anything altered does not open and shows nothing).
    return unsafeRawHtml(sealed ? openFlash(session.secret, sealed) : '');
  }

  return {
    db,
    logger,
    redirectWith,
    takeShown,
    options,
    limiter,
    devices,
    hashing,
    allowance,
    publicOrigin,
    baseUrl,
    audit,
    keyChanged,
    hide,
    form,
    sendPage,
    refused,
    frame,
    page,
    change,
  };
}
