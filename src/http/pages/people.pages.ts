// The People tab: the account's members; owners invite people (a one-time link shown once).
import type { FastifyInstance } from 'fastify';
import { createInvitation, normaliseEmail } from '../../account/invitations.js';
import { listMembers, MemberOfAnotherAccount } from '../../account/member.repository.js';
import { esc, hidden, notice } from './layout.js';
import type { Session } from './session.js';
import { field, date, type PageKit } from './page-kit.js';

export function peoplePages(app: FastifyInstance, kit: PageKit): void {
  const { db, baseUrl, audit, hide, form, html, frame, page, change } = kit;

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
    return html(reply, { title: 'People', signedIn: frame(session, 'people'), body: await peoplePage(session) });
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
    try {
      const invitation = await createInvitation(db, { accountId: session.row.account_id, email, role }, baseUrl(request));
      audit(session, 'person invited', { invited_member_id: invitation.memberId, role: invitation.role });
      const shown = `<section aria-labelledby="link-heading" class="notice ok"><h2 id="link-heading">Invitation for ${esc(email)}</h2>
<label for="invite-link">One-time link (valid until ${esc(date(invitation.expiresAt))}); shown only now</label>
<input id="invite-link" class="secret" type="text" readonly value="${esc(invitation.link)}"></section>`;
      return html(reply, { title: 'People', signedIn: frame(session, 'people'), body: await peoplePage(session, shown) });
    } catch (error) {
      if (!(error instanceof MemberOfAnotherAccount)) throw error;
      return html(reply.code(409), {
        title: 'People',
        signedIn: frame(session, 'people'),
        body: await peoplePage(session, notice('error', 'That address belongs to a member of another account.')),
      });
    }
  });
}
