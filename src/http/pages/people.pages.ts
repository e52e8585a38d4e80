// The People tab: the account's members; owners invite people (a one-time link shown once).
import type { FastifyInstance } from 'fastify';
import { createInvitation, INVITATION_LIFETIME_MS, invitationLink, normaliseEmail } from '../../account/invitations.js';
import { listMembers } from '../../account/member.repository.js';
import { hashToken, newToken } from '../../account/tokens.js';
import { esc, hidden, notice } from './layout.js';
import type { Session } from './session.js';
import { field, date, type PageKit } from './page-kit.js';

export function peoplePages(app: FastifyInstance, kit: PageKit): void {
  const { db, options, baseUrl, audit, hide, form, html, frame, page, change, redirectWith, takeShown } = kit;

  async function peoplePage(session: Session, message = ''): Promise<string> {
    const members = await listMembers(db, session.row.account_id);
    const list = `<table><caption>People of ${esc(session.row.account_name)}</caption><thead><tr><th scope="col">Email</th><th scope="col">Role</th><th scope="col">Since</th><th scope="col">Password set</th></tr></thead><tbody>${members
      .map(
        (m) =>
          `<tr><td>${esc(m.email)}</td><td>${esc(m.role)}</td><td>${esc(date(m.created_at))}</td><td>${m.active ? 'yes' : 'not yet'}</td></tr>`,
      )
      .join('')}</tbody></table>`;
    const invite =
      session.row.role === 'owner'
        ? `<section aria-labelledby="invite-heading"><h2 id="invite-heading">Invite a person</h2>
<p>The page shows a one-time link (valid 72 hours) to pass on; no mail is sent.</p>
<form method="post" action="/account/people">${hidden('csrf', session.csrf)}
<label for="invite-email">Email address</label><input id="invite-email" name="email" type="email" required>
<label for="invite-role">Role</label><select id="invite-role" name="role"><option value="member">member</option><option value="owner">owner</option></select>
<div><button type="submit">Invite</button></div></form></section>`
        : '<p>Only an owner of the account invites people.</p>';
    return `${message}${list}${invite}`;
  }

  app.get('/account/people', hide, async (request, reply) => {
    const session = await page(request, reply);
    if (!session) return reply;
    return html(reply, {
      title: 'People',
      signedIn: frame(session, 'people'),
      body: await peoplePage(session, await takeShown(session, 'people')),
    });
  });

  app.post('/account/people', form, async (request, reply) => {
    const session = await change(request, reply);
    if (!session) return reply;
    if (session.row.role !== 'owner') {
      return html(reply.code(403), {
        title: 'People',
        signedIn: frame(session, 'people'),
        body: await peoplePage(session, notice('error', 'Only an owner of the account invites people.')),
      });
    }
    const email = normaliseEmail(field(request.body, 'email'));
    const role = field(request.body, 'role');
    if (!email || (role !== 'owner' && role !== 'member')) {
      return html(reply.code(400), {
        title: 'People',
        signedIn: frame(session, 'people'),
        body: await peoplePage(session, notice('error', 'Give an email address and a role (owner or member).')),
      });
    }
    const refuse = async (text: string) =>
      html(reply.code(409), {
        title: 'People',
        signedIn: frame(session, 'people'),
        body: await peoplePage(session, notice('error', text)),
      });
    const invitation = await createInvitation(db, { accountId: session.row.account_id, email, role }, baseUrl(request));
    if (invitation.kind === 'already-member') {
      return refuse(
        `${email} is a member of this account already and has a password; no link was made. An owner cannot set another person's password from these pages: the operators can (insights accounts invite --reset).`,
      );
    }
    if (invitation.kind === 'role-differs') {
      return refuse(
        `${email} was invited already as ${invitation.role}; inviting again does not change a role. Invite them as ${invitation.role} for a new link.`,
      );
    }
    let link: string;
    let expiresAt: Date;
    if (invitation.kind === 'elsewhere') {
      // The same answer as for an address nobody has (an owner must not learn which addresses other accounts
      // hold): a link that sets nothing and tells the invitee, when opened, that their address is another account's.
      const token = newToken();
      expiresAt = new Date(Date.now() + INVITATION_LIFETIME_MS);
      await options.redis.set(options.redisKeys.invitationElsewhere(hashToken(token)), '1', 'PX', INVITATION_LIFETIME_MS);
      link = invitationLink(baseUrl(request), token);
      audit(session, 'person invited', { invited_member_id: null, role, address_elsewhere: true });
    } else {
      ({ link, expiresAt } = invitation);
      audit(session, 'person invited', { invited_member_id: invitation.memberId, role: invitation.role });
    }
    const shown = `<section aria-labelledby="link-heading" class="notice ok"><h2 id="link-heading">Invitation for ${esc(email)}</h2>
<label for="invite-link">One-time link (valid until ${esc(date(expiresAt))}); shown only now</label>
<input id="invite-link" class="secret" type="text" readonly value="${esc(link)}"></section>`;
    return redirectWith(reply, session, 'people', '/account/people', shown);
  });
}
