// Signing in and out (an invitation's link is invitation.pages.ts): the forms sent before there is a
// session, guarded by the pre-session cookie's token; a new session id on every sign-in.
import type { FastifyInstance, FastifyReply } from 'fastify';
import { normaliseEmail } from '../../members/invitations.js';
import { findMemberByEmail, insertSession, revokeSession } from '../../members/member.repository.js';
import { KNOWN_DEVICES } from '../../members/known-devices.js';
import { HashingBusy, verifyNothing, verifyPassword, type HashLane } from '../../members/password.js';
import { csrfTokenOf, hashToken, isTokenShaped, newToken } from '../../members/tokens.js';
import { signInClientKey } from '../unknown-key-limiter.js';
import { html, type Html } from '../../domain/html.js';
import { hidden, notice } from './layout.js';
import {
  cookieName,
  currentSession,
  formTokenMatches,
  preSession,
  preSessionSecret,
  readCookie,
  sameOrigin,
  SESSION_ABSOLUTE_MS,
  setCookie,
} from './session.js';
import { field, type PageKit } from './page-kit.js';

export function signInPages(app: FastifyInstance, kit: PageKit): void {
  const { db, logger, limiter, devices, hashing, publicOrigin, audit, hide, form, sendPage, refused, change } = kit;
  // Sign in and out

  const signInForm = (csrf: string, email = '', message: Html | '' = '') =>
    html`${message}<form method="post" action="/account/sign-in">${hidden('csrf', csrf)}
<label for="email">Email address</label><input id="email" name="email" type="email" autocomplete="username" required value="${email}">
<label for="password">Password</label><input id="password" name="password" type="password" autocomplete="current-password" required>
<div><button type="submit">Sign in</button></div></form>
<p>No password yet? Use the invitation link an owner of your account sent you.</p>`;

  /** Hashing is at its bound in this process: a 503 with Retry-After, the form kept, nothing counted or checked. */
  const busy = (reply: FastifyReply, pre: string, email: string) => {
    logger.warn({ audit: { action: 'sign-in busy' } }, 'account pages: password hashing at its bound');
    return sendPage(reply.code(503).header('retry-after', '1'), {
      title: 'Sign in',
      body: signInForm(
        csrfTokenOf(pre),
        email,
        notice('error', 'Sign-in is very busy right now and your password was not checked. Please wait a moment and sign in again.'),
      ),
    });
  };

  app.get('/account/sign-in', hide, async (request, reply) => {
    const query = request.query as Record<string, string | undefined>;
    const signedIn = await currentSession(db, request);
    const message = signedIn
      ? notice('ok', `You are signed in as ${signedIn.row.email}. Signing in again ends that session.`)
      : query.signed_out !== undefined
        ? notice('ok', 'You are signed out.')
        : query.password_set !== undefined
          ? notice('ok', 'Your password is set. Sign in with it.')
          : '';
    return sendPage(reply, { title: 'Sign in', body: signInForm(csrfTokenOf(preSession(request, reply)), '', message) });
  });

  app.post('/account/sign-in', form, async (request, reply) => {
    const pre = preSessionSecret(request);
    if (!sameOrigin(request, publicOrigin()) || !formTokenMatches(pre, request.body)) return refused(reply);
    const rawEmail = field(request.body, 'email').slice(0, 300);
    const email = normaliseEmail(rawEmail) ?? rawEmail.trim().toLowerCase();
    const password = field(request.body, 'password').slice(0, 1_000);
    const emailHash = hashToken(email);
    // A browser with no device cookie hashes in the shared lane whoever it names: when that lane is full it
    // is refused before even the address is looked up, so a flood costs no query either.
    const deviceShaped = readCookie(request, cookieName(request, 'device'));
    const deviceCookie = deviceShaped && isTokenShaped(deviceShaped) ? deviceShaped : undefined;
    if (deviceCookie === undefined && hashing.full('other')) return busy(reply, pre!, email);
    const member = await findMemberByEmail(db, email);
    // Counted before the password is checked (atomic: concurrent guesses cannot slip past the count).
    // A browser this address's person signed in from before (known-devices.ts) is held by a bound of its own, not by the
    // address's or the account's: known to the person, never to their account, so a member's browsers count as
    // strangers' against the owner's address.
    const deviceHash = deviceCookie === undefined ? undefined : hashToken(deviceCookie);
    const knownDevice =
      member && deviceHash !== undefined && (await devices.isKnown(member.person_id, deviceHash)) ? deviceHash : undefined;
    const client = signInClientKey(request.ip);
    // Known browsers hash in a lane of their own (password.ts HashGate): a flood from everyone else cannot fill it.
    const lane: HashLane = knownDevice ? 'known' : 'other';
    // Refused before it is counted when hashing is at its bound: a busy moment spends no one's attempts.
    if (hashing.full(lane)) return busy(reply, pre!, email);
    const held = await limiter.reserve(emailHash, client, member?.account_id, knownDevice);
    if (held) {
      logger.warn(
        { audit: { action: 'sign-in held', email_hash: emailHash.slice(0, 16), client } },
        'account pages: sign-in attempts held',
      );
      const minutes = Math.ceil(held.retryAfterSeconds / 60);
      return sendPage(reply.code(429).header('retry-after', String(held.retryAfterSeconds)), {
        title: 'Sign in',
        body: signInForm(
          csrfTokenOf(pre!),
          email,
          notice(
            'error',
            `Too many sign-in attempts for this address or from your network. Sign-in is locked: try again in ${minutes} minute${minutes === 1 ? '' : 's'}.`,
          ),
        ),
      });
    }
    let ok: boolean;
    try {
      // An unknown address hashes against a dummy in the same lane: the same cost and time as a known one.
      ok = await hashing.run(lane, () =>
        member?.password_hash ? verifyPassword(password, member.password_hash) : verifyNothing(password),
      );
    } catch (error) {
      if (error instanceof HashingBusy) return busy(reply, pre!, email);
      throw error;
    }
    if (!member || !ok) {
      logger.info({ audit: { action: 'sign-in failed', email_hash: emailHash.slice(0, 16), client } }, 'account pages: sign-in failed');
      return sendPage(reply.code(401), {
        title: 'Sign in',
        body: signInForm(csrfTokenOf(pre!), email, notice('error', 'The email address or the password is wrong.')),
      });
    }
    await limiter.succeeded(emailHash, member.account_id, knownDevice);
    // Never keep a session id that existed before sign-in (fixation): end whatever the browser held, make a new one.
    const before = await currentSession(db, request);
    if (before) await revokeSession(db, before.row.id_hash);
    const secret = newToken();
    await insertSession(db, { idHash: hashToken(secret), memberId: member.id, expiresAt: new Date(Date.now() + SESSION_ABSOLUTE_MS) });
    setCookie(request, reply, cookieName(request, 'session'), secret, SESSION_ABSOLUTE_MS / 1000);
    setCookie(request, reply, cookieName(request, 'pre'), '', 0);
    // The browser is known for this person from now on (its cookie kept when it has one: a browser shared by two
    // people is known for both), and the newest sign-in decides which of the person's browsers stay known.
    const device = deviceCookie ?? newToken();
    await devices.remember(member.person_id, hashToken(device));
    setCookie(request, reply, cookieName(request, 'device'), device, KNOWN_DEVICES.seconds);
    audit({ memberId: member.id, accountId: member.account_id }, 'signed in', { client });
    return reply.redirect('/account', 303);
  });

  app.post('/account/sign-out', form, async (request, reply) => {
    const session = await change(request, reply, { whileSuspended: true, counted: false });
    if (!session) return reply;
    await revokeSession(db, session.row.id_hash);
    setCookie(request, reply, cookieName(request, 'session'), '', 0);
    audit(session, 'signed out');
    return reply.redirect('/account/sign-in?signed_out', 303);
  });
}
