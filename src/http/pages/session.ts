// Who is signed in to the account pages, and whether a form may change anything.
//
// The session cookie: `__Host-si_session` over https, or whenever PUBLIC_BASE_URL is https (the prefix makes the browser
// insist on Secure, Path=/ and no Domain, so no sibling host can plant or read it);
// on plain http (loopback development, where a browser refuses Secure cookies) the
// same cookie is named `si_session` without Secure. HttpOnly, SameSite=Strict, Path=/.
// Its value is 256 random bits; only its SHA-256 is stored. A new one on every
// sign-in (a value set before sign-in is never kept), 12 hours idle and 7 days at
// most, revoked server-side on sign-out: a copied cookie is refused from then on.
//
// A form may change something only when (1) it comes from this origin: Origin is
// this service's (or, where a browser sent no Origin, Sec-Fetch-Site says same-origin;
// neither: refused; an Origin of "null" counts as none), and (2) it carries the synchronizer token of the session (a hash
// of the session's secret, compared in constant time). The sign-in and invitation
// forms, sent before there is a session, carry the token of a pre-session cookie
// (`__Host-si_pre` / `si_pre`) made the same way.
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { Db } from '../../db/connection.js';
import { findLiveSession, touchSession, type SessionRow } from '../../members/member.repository.js';
import { csrfMatches, csrfTokenOf, hashToken, isTokenShaped, newToken } from '../../members/tokens.js';

export const SESSION_IDLE_MS = 12 * 3_600_000;
export const SESSION_ABSOLUTE_MS = 7 * 86_400_000;
const TOUCH_EVERY_MS = 60_000;
const PRE_SESSION_SECONDS = 2 * 3_600;

export const COOKIE_NAMES = {
  session: { https: '__Host-si_session', http: 'si_session' },
  pre: { https: '__Host-si_pre', http: 'si_pre' },
  /** A browser a person signed in from: held by a bound of its own for that person's address (known-devices.ts, sign-in-limiter.ts). */
  device: { https: '__Host-si_device', http: 'si_device' },
} as const;

/** Requests the page kit found to be on https though they arrived as http (PUBLIC_BASE_URL is https: a TLS proxy not in TRUST_PROXY). */
const behindHttps = new WeakSet<FastifyRequest>();
export const markSecure = (request: FastifyRequest): void => void behindHttps.add(request);
const secure = (request: FastifyRequest) => request.protocol === 'https' || behindHttps.has(request);
export const cookieName = (request: FastifyRequest, kind: keyof typeof COOKIE_NAMES): string =>
  COOKIE_NAMES[kind][secure(request) ? 'https' : 'http'];

export function readCookie(request: FastifyRequest, name: string): string | undefined {
  const header = request.headers.cookie;
  if (!header) return undefined;
  for (const part of header.split(';')) {
    const at = part.indexOf('=');
    if (at > 0 && part.slice(0, at).trim() === name) return part.slice(at + 1).trim();
  }
  return undefined;
}

export function setCookie(request: FastifyRequest, reply: FastifyReply, name: string, value: string, maxAgeSeconds: number): void {
  reply.header(
    'set-cookie',
    `${name}=${value}; Path=/; Max-Age=${maxAgeSeconds}; HttpOnly; SameSite=Strict${secure(request) ? '; Secure' : ''}`,
  );
}

export interface Session {
  /** The cookie's value: never logged, never stored. */
  secret: string;
  row: SessionRow;
  csrf: string;
}

/** The live session of this request's cookie, if any (touched at most once a minute). */
export async function currentSession(db: Db, request: FastifyRequest): Promise<Session | undefined> {
  const secret = readCookie(request, cookieName(request, 'session'));
  if (!secret || !isTokenShaped(secret)) return undefined;
  const row = await findLiveSession(db, hashToken(secret), SESSION_IDLE_MS);
  if (!row) return undefined;
  if (Date.now() - row.last_seen_at.getTime() > TOUCH_EVERY_MS) await touchSession(db, row.id_hash);
  return { secret, row, csrf: csrfTokenOf(secret) };
}

/** This request's pre-session secret, made (and set as a cookie) when it has none. */
export function preSession(request: FastifyRequest, reply: FastifyReply): string {
  const name = cookieName(request, 'pre');
  const existing = readCookie(request, name);
  if (existing && isTokenShaped(existing)) return existing;
  const secret = newToken();
  setCookie(request, reply, name, secret, PRE_SESSION_SECONDS);
  return secret;
}

/** The form came from a page of this service (see the top of this file). */
export function sameOrigin(request: FastifyRequest, publicOrigin: string | undefined): boolean {
  const origin = request.headers.origin;
  // "null": a browser that withholds the origin (a no-referrer policy, a sandboxed frame): judged by Sec-Fetch-Site alone.
  if (typeof origin === 'string' && origin !== 'null') return origin === `${request.protocol}://${request.host}` || origin === publicOrigin;
  return request.headers['sec-fetch-site'] === 'same-origin';
}

/** The form's token is the one derived from `secret` (the session's, or the pre-session cookie's). */
export const formTokenMatches = (secret: string | undefined, body: unknown): boolean =>
  secret !== undefined && csrfMatches(secret, (body as Record<string, unknown> | undefined)?.csrf);

export const preSessionSecret = (request: FastifyRequest): string | undefined => {
  const value = readCookie(request, cookieName(request, 'pre'));
  return value && isTokenShaped(value) ? value : undefined;
};
