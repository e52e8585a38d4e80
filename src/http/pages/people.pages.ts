// The People tab: the account's members and pending invitations; owners invite (the link is mailed to the
// address, never shown here) and remove people; everyone sees the accounts they belong to and switches between them.
import type { FastifyInstance, FastifyReply } from 'fastify';
import { createInvitation, INVITATION_CAPS } from '../../members/invitations.js';
import {
  findMembership,
  insertSession,
  listMembers,
  listMemberships,
  listPendingInvitations,
  removeFromAccount,
  revokeSession,
} from '../../members/member.repository.js';
import { hashToken, newToken } from '../../members/tokens.js';
import { checkEmailAddress } from '../../domain/email-address.js';
import { isId } from '../../domain/ids.js';
import { html, type Html } from '../../domain/html.js';
import { hidden, notice } from './layout.js';
import { cookieName, SESSION_ABSOLUTE_MS, setCookie, type Session } from './session.js';
import { field, date, type PageKit } from './page-kit.js';

export function peoplePages(app: FastifyInstance, kit: PageKit): void {
  const { db, options, devices, baseUrl, audit, hide, form, sendPage, frame, page, change, redirectWith, takeShown } = kit;
  const mailer = options.mailer;

  async function peoplePage(session: Session, message: Html | '' = ''): Promise<Html> {
    const owner = session.row.role === 'owner';
    const [members, pending, memberships] = await Promise.all([
      listMembers(db, session.row.account_id),
      listPendingInvitations(db, session.row.account_id),
      listMemberships(db, session.row.person_id),
    ]);
    const remove = (email: string) =>
      owner
        ? html`<form method="post" action="/account/people/remove">${hidden('csrf', session.csrf)}${hidden('email', email)}<button type="submit" aria-label="Remove ${email}">Remove</button></form>`
        : '';
    const list = html`<table><caption>People of ${session.row.account_name}</caption><thead><tr><th scope="col">Email</th><th scope="col">Role</th><th scope="col">Since</th>${owner && html`<th scope="col">Actions</th>`}</tr></thead><tbody>${members.map(
      (m) =>
        html`<tr><td>${m.email}</td><td>${m.role}</td><td>${date(m.created_at)}</td>${owner && html`<td>${remove(m.email)}</td>`}</tr>`,
    )}</tbody></table>`;
    const invited =
      owner && pending.length > 0
        ? html`<table><caption>Invitations not used yet</caption><thead><tr><th scope="col">Email</th><th scope="col">Role</th><th scope="col">Sent</th><th scope="col">Valid until</th><th scope="col">Actions</th></tr></thead><tbody>${pending.map(
            (i) =>
              html`<tr><td>${i.email}</td><td>${i.role}</td><td>${date(i.created_at)}</td><td>${date(i.expires_at)}</td><td>${remove(i.email)}</td></tr>`,
          )}</tbody></table>`
        : '';
    const invite = !owner
      ? html`<p>Only an owner of the account invites and removes people.</p>`
      : !mailer
        ? html`<section aria-labelledby="invite-heading"><h2 id="invite-heading">Invite a person</h2>${notice('error', 'Invitations cannot be sent: this service has no mail server configured (SMTP_URL). Ask the operators to invite the person (insights accounts invite).')}</section>`
        : html`<section aria-labelledby="invite-heading"><h2 id="invite-heading">Invite a person</h2>
<p>The invitation is mailed to the address (a one-time link, valid 72 hours); nobody else sees the link. Someone who already has a password with us keeps it and joins this account too. At most ${INVITATION_CAPS.perDay} invitations a day (UTC) and ${INVITATION_CAPS.pending} waiting at once.</p>
<form method="post" action="/account/people">${hidden('csrf', session.csrf)}
<label for="invite-email">Email address</label><input id="invite-email" name="email" type="email" required>
<label for="invite-role">Role</label><select id="invite-role" name="role"><option value="member">member</option><option value="owner">owner</option></select>
<div><button type="submit">Invite</button></div></form></section>`;
    const others = memberships.filter((m) => m.account_id !== session.row.account_id);
    const accounts =
      others.length === 0
        ? ''
        : html`<section aria-labelledby="accounts-heading"><h2 id="accounts-heading">Your accounts</h2>
<p>You are signed in to ${session.row.account_name}. You belong to these accounts too:</p><ul>${others.map(
            (m) =>
              html`<li><form method="post" action="/account/switch">${hidden('csrf', session.csrf)}${hidden('account', m.account_id)}${m.account_name} (${m.role}) <button type="submit" aria-label="Switch to ${m.account_name}">Switch</button></form></li>`,
          )}</ul></section>`;
    return html`${message}${list}${invited}${invite}${accounts}`;
  }

  const answer = async (reply: FastifyReply, session: Session, code: number, text: string) =>
    sendPage(reply.code(code), {
      title: 'People',
      signedIn: frame(session, 'people'),
      body: await peoplePage(session, notice('error', text)),
    });

  app.get('/account/people', hide, async (request, reply) => {
    const session = await page(request, reply);
    if (!session) return reply;
    return sendPage(reply, {
      title: 'People',
      signedIn: frame(session, 'people'),
      body: await peoplePage(session, await takeShown(session, 'people')),
    });
  });

  app.post('/account/people', form, async (request, reply) => {
    const session = await change(request, reply);
    if (!session) return reply;
    if (session.row.role !== 'owner') return answer(reply, session, 403, 'Only an owner of the account invites people.');
    if (!mailer) {
      return answer(
        reply,
        session,
        503,
        'Invitations cannot be sent: no mail server is configured. Ask the operators to invite the person.',
      );
    }
    const checked = checkEmailAddress(field(request.body, 'email'));
    if (!checked.ok) return answer(reply, session, 400, checked.problem);
    const role = field(request.body, 'role');
    if (role !== 'owner' && role !== 'member') return answer(reply, session, 400, 'Choose a role: owner or member.');
    const email = checked.email;
    const outcome = await createInvitation(
      db,
      {
        accountId: session.row.account_id,
        accountName: session.row.account_name,
        email,
        role,
        invitedBy: { memberId: session.row.id, email: session.row.email },
      },
      baseUrl(request),
      { mailer },
    );
    switch (outcome.kind) {
      case 'already-member':
        return answer(reply, session, 409, `${email} is a member of this account already; nothing was sent.`);
      case 'day-cap':
        return answer(
          reply,
          session,
          429,
          `This account has sent its ${outcome.cap} invitations for today (UTC); nothing was sent. Try again tomorrow, or ask the operators.`,
        );
      case 'pending-cap':
        return answer(
          reply,
          session,
          429,
          `This account has ${outcome.cap} invitations not used yet; nothing was sent. Remove some of them, or wait until they are used or expire.`,
        );
      case 'not-sent':
        request.log.warn({ reason: outcome.reason }, 'account pages: an invitation mail was not sent');
        return answer(reply, session, 502, `The mail server did not take the invitation to ${email}; nothing was sent. Try again later.`);
      case 'printed':
        throw new Error('the People page never prints a link');
      case 'mailed':
        audit(session, 'person invited', { invitation_id: outcome.invitationId, role: outcome.role });
        return redirectWith(
          reply,
          session,
          'people',
          '/account/people',
          notice('ok', `An invitation was mailed to ${email} (as ${outcome.role}); its link works once, until ${date(outcome.expiresAt)}.`),
        );
    }
  });

  app.post('/account/people/remove', form, async (request, reply) => {
    const session = await change(request, reply);
    if (!session) return reply;
    if (session.row.role !== 'owner') return answer(reply, session, 403, 'Only an owner of the account removes people.');
    const checked = checkEmailAddress(field(request.body, 'email'));
    if (!checked.ok) return answer(reply, session, 400, checked.problem);
    const outcome = await removeFromAccount(db, session.row.account_id, checked.email);
    if (outcome.kind === 'not-found') return answer(reply, session, 404, `${checked.email} is not a person of this account.`);
    if (outcome.kind === 'last-owner') {
      return answer(reply, session, 409, `${checked.email} is the account's last owner and stays: make another person an owner first.`);
    }
    // Their browsers are strangers again, for every account of theirs: a sign-in from one is held as anyone's.
    if (outcome.personId !== null) await devices.forget(outcome.personId);
    audit(session, 'person removed', {
      removed_member_id: outcome.memberId,
      sessions_revoked: outcome.sessionsRevoked,
      invitations_cancelled: outcome.invitationsCancelled,
    });
    // Removing oneself ends this session too: to the sign-in page.
    if (outcome.memberId === session.row.id) return reply.redirect('/account/sign-in', 303);
    return redirectWith(
      reply,
      session,
      'people',
      '/account/people',
      notice('ok', `${checked.email} was removed from ${session.row.account_name}.`),
    );
  });

  // Switching accounts: a new session of the same person, bound to the other account (the old one is revoked).
  app.post('/account/switch', form, async (request, reply) => {
    const session = await change(request, reply, { whileSuspended: true });
    if (!session) return reply;
    const accountId = field(request.body, 'account');
    const target = isId('account', accountId) ? await findMembership(db, session.row.person_id, accountId) : undefined;
    if (!target) return answer(reply, session, 404, 'You do not belong to that account.');
    await revokeSession(db, session.row.id_hash);
    const secret = newToken();
    await insertSession(db, { idHash: hashToken(secret), memberId: target.id, expiresAt: new Date(Date.now() + SESSION_ABSOLUTE_MS) });
    setCookie(request, reply, cookieName(request, 'session'), secret, SESSION_ABSOLUTE_MS / 1000);
    audit({ memberId: target.id, accountId: target.account_id }, 'switched account', { from_account_id: session.row.account_id });
    return reply.redirect('/account', 303);
  });
}
