// The secrets of the account's pages: invitation tokens, session ids and the CSRF
// tokens derived from them. Each is 32 random bytes (256 bits, base64url); only
// their SHA-256 is stored, which is enough for secrets this long (a slow hash is for passwords).
import { createHash, randomBytes } from 'node:crypto';
import { SecretMatcher } from '../domain/constant-time.js';

export const newToken = (): string => randomBytes(32).toString('base64url');
export const hashToken = (token: string): string => createHash('sha256').update(token).digest('hex');
/** A token of the right form: the rest are refused without a database lookup. */
export const isTokenShaped = (value: string): boolean => /^[A-Za-z0-9_-]{43}$/.test(value);

/**
 * The form token of a session (or of a signed-out browser's pre-session cookie): a
 * hash of its secret under a label, so it is never stored, is worthless without
 * the HttpOnly cookie it is derived from, and changes with the session.
 */
export const csrfTokenOf = (secret: string): string => createHash('sha256').update(`account-pages csrf\0${secret}`).digest('base64url');

/** Compares a form's token with the session's in constant time. */
export function csrfMatches(secret: string, presented: unknown): boolean {
  return typeof presented === 'string' && new SecretMatcher(csrfTokenOf(secret)).matches(presented);
}
