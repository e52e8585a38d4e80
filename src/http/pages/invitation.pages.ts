// An invitation's one-time link, opened from the mail it came in. A new address sets its password here; an
// address that is a person already (a member of another account) only confirms: the link proves they read the
// address's mail, and their password stays theirs (only an operator's reset link sets a new one).
// Sent before there is a session, the form carries the pre-session cookie's token.
import type { FastifyInstance, FastifyReply } from 'fastify';
import { acceptInvitation, findInvitation, type Invitation } from '../../members/member.repository.js';
import { HashingBusy, hashPassword, passwordProblem, PASSWORD_MIN_LENGTH } from '../../members/password.js';
import { csrfTokenOf, hashToken, isTokenShaped } from '../../members/tokens.js';
import { html, type Html } from '../../domain/html.js';
import { hidden, notice } from './layout.js';
import { formTokenMatches, preSession, preSessionSecret, sameOrigin } from './session.js';
import { field, type PageKit } from './page-kit.js';

export function invitationPages(app: FastifyInstance, kit: PageKit): void {
  const { db, logger, publicOrigin, hide, form, sendPage, refused } = kit;

  const invitationGone = (reply: FastifyReply) =>
    sendPage(reply.code(410), {
      title: 'Invitation',
      body: notice(
        'error',
        'This invitation link was already used, has expired or does not exist. Ask an owner of the account for a new one.',
      ),
    });
  /** A reset, or a new address: a password to set. Else a person of another account joining: a button. */
  const setsPassword = (invitation: Invitation) => invitation.reset || !invitation.person_exists;

  const invitationForm = (token: string, csrf: string, invitation: Invitation, message: Html | '' = '') =>
    setsPassword(invitation)
      ? html`${message}<p>${invitation.reset ? 'Set a new password' : `You are invited to ${invitation.account_name} as ${invitation.role}. Set the password`} you will sign in with as <strong>${invitation.email}</strong>. At least ${PASSWORD_MIN_LENGTH} characters.</p>
<form method="post" action="/account/invite/${token}">${hidden('csrf', csrf)}
<label for="username">Email address</label><input id="username" name="username" type="email" autocomplete="username" readonly value="${invitation.email}">
<label for="password">New password</label><input id="password" name="password" type="password" autocomplete="new-password" minlength="${PASSWORD_MIN_LENGTH}" required>
<label for="confirm">The same password again</label><input id="confirm" name="confirm" type="password" autocomplete="new-password" required>
<div><button type="submit">Set password</button></div></form>`
      : html`${message}<p>You are invited to ${invitation.account_name} as ${invitation.role}. You sign in to this service as <strong>${invitation.email}</strong> already: accept, and sign in with the password you have; you then choose the account on your People tab.</p>
<form method="post" action="/account/invite/${token}">${hidden('csrf', csrf)}
<div><button type="submit">Join ${invitation.account_name}</button></div></form>`;

  async function liveInvitation(token: string) {
    if (!isTokenShaped(token)) return undefined;
    const invitation = await findInvitation(db, hashToken(token));
    if (!invitation || invitation.used_at || invitation.expires_at.getTime() <= Date.now()) return undefined;
    return invitation;
  }

  app.get('/account/invite/:token', hide, async (request, reply) => {
    const { token } = request.params as { token: string };
    const invitation = await liveInvitation(token);
    if (!invitation) return invitationGone(reply);
    return sendPage(reply, {
      title: `Join ${invitation.account_name}`,
      body: invitationForm(token, csrfTokenOf(preSession(request, reply)), invitation),
    });
  });

  app.post('/account/invite/:token', form, async (request, reply) => {
    const { token } = request.params as { token: string };
    const pre = preSessionSecret(request);
    if (!sameOrigin(request, publicOrigin()) || !formTokenMatches(pre, request.body)) return refused(reply);
    const invitation = await liveInvitation(token);
    if (!invitation) return invitationGone(reply);
    let passwordHash: string | null = null;
    if (setsPassword(invitation)) {
      const password = field(request.body, 'password');
      const problem = passwordProblem(password) ?? (password === field(request.body, 'confirm') ? null : 'The two passwords differ.');
      if (problem) {
        return sendPage(reply.code(400), {
          title: `Join ${invitation.account_name}`,
          body: invitationForm(token, csrfTokenOf(pre!), invitation, notice('error', problem)),
        });
      }
      try {
        // The same bound as sign-in (password.ts HashGate): a flood of invitation forms cannot hold the hashing.
        passwordHash = await kit.hashing.run('other', () => hashPassword(password));
      } catch (error) {
        if (!(error instanceof HashingBusy)) throw error;
        return sendPage(reply.code(503).header('retry-after', '1'), {
          title: `Join ${invitation.account_name}`,
          body: invitationForm(
            token,
            csrfTokenOf(pre!),
            invitation,
            notice('error', 'The service is very busy right now and your password was not set. Please wait a moment and try again.'),
          ),
        });
      }
    }
    const outcome = await acceptInvitation(db, invitation.id, passwordHash);
    if (outcome.kind === 'gone') return invitationGone(reply);
    if (outcome.kind === 'password-needed') {
      // The address had a person when the page was made, and none now (removed meanwhile): ask for a password.
      return sendPage(reply.code(409), {
        title: `Join ${invitation.account_name}`,
        body: invitationForm(token, csrfTokenOf(pre!), { ...invitation, person_exists: false }, notice('error', 'Set a password to join.')),
      });
    }
    logger.info(
      {
        audit: {
          action: outcome.passwordSet ? 'password set' : 'invitation accepted',
          member_id: outcome.memberId,
          account_id: outcome.accountId,
        },
      },
      `account pages: ${outcome.passwordSet ? 'password set from an invitation' : 'invitation accepted'}`,
    );
    return reply.redirect(outcome.passwordSet ? '/account/sign-in?password_set' : '/account/sign-in?joined', 303);
  });
}
