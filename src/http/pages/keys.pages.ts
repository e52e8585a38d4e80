// The "API Keys" tab: list, create (shown once), rotate (24 h overlap) and revoke, through the CLI's repository
// functions; a member manages only the keys they created, an owner every key of the account.
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import {
  createKeyForAccount,
  findApiKey,
  listApiKeys,
  revokeApiKey,
  KeyAlreadyRotated,
  KeyLimitReached,
  rotateApiKey,
  type CreatedApiKey,
} from '../../api-keys/api-key.repository.js';
import { keyCreators, recordKeyCreator } from '../../members/member.repository.js';
import { API_KEY_SCOPES, isApiKeyScope, type ApiKeyScope } from '../../domain/api-key.js';
import { isId } from '../../domain/ids.js';
import { controlCharacterProblem } from '../../domain/text.js';
import { html, joinHtml, type Html } from '../../domain/html.js';
import { hidden, notice } from './layout.js';
import type { Session } from './session.js';
import { field, fields, date, EXPIRY_CHOICES, ROTATION_OVERLAP_MS, type ExpiryChoice, type PageKit } from './page-kit.js';

export function keysPages(app: FastifyInstance, kit: PageKit): void {
  const { db, audit, keyChanged, hide, form, sendPage, frame, page, change, redirectWith, takeShown } = kit;

  const mayManage = (session: Session, creator: string | undefined) => session.row.role === 'owner' || creator === session.row.id;

  async function keysPage(session: Session, message: Html | '' = ''): Promise<Html> {
    const [keys, creators] = await Promise.all([listApiKeys(db, session.row.account_id), keyCreators(db, session.row.account_id)]);
    const now = Date.now();
    const rows = [...keys].reverse().map((k) => {
      const status = k.revoked_at ? 'revoked' : k.expires_at && k.expires_at.getTime() <= now ? 'expired' : 'active';
      const creator = creators.get(k.id);
      // A key replaced already (its overlap running) may be revoked, not rotated again.
      const rotate = k.replaced_by
        ? ''
        : html`<form method="post" action="/account/keys/${k.id}/rotate">${hidden('csrf', session.csrf)}<button type="submit" aria-label="Rotate ${k.name} (${k.display_prefix})">Rotate</button></form>`;
      const actions =
        status === 'active' && mayManage(session, creator?.memberId)
          ? html`${rotate}<form method="post" action="/account/keys/${k.id}/revoke">${hidden('csrf', session.csrf)}<button type="submit" aria-label="Revoke ${k.name} (${k.display_prefix})">Revoke</button></form>`
          : '';
      return html`<tr data-key-id="${k.id}"><td>${k.name}</td><td><code>${k.display_prefix}…</code></td><td>${k.scopes.join(', ')}</td><td>${date(k.created_at)}</td><td>${date(k.last_used_at)}</td><td>${date(k.expires_at)}</td><td>${status}${k.revoked_at ? ` ${date(k.revoked_at)}` : ''}</td><td>${creator?.email ?? 'operator'}</td><td>${actions}</td></tr>`;
    });
    const scopes = API_KEY_SCOPES.map(
      (s) =>
        html`<input type="checkbox" id="scope-${s.replace(':', '-')}" name="scopes" value="${s}"${s === 'insights:read' && html` checked`}><label for="scope-${s.replace(':', '-')}">${s}</label>`,
    );
    const expiries = Object.keys(EXPIRY_CHOICES).map(
      (e) => html`<option value="${e}">${e === 'never' ? 'never' : `in ${e.replace('d', ' days')}`}</option>`,
    );
    return html`${message}
<section aria-labelledby="create-heading"><h2 id="create-heading">Create a key</h2>
<form method="post" action="/account/keys">${hidden('csrf', session.csrf)}
<label for="key-name">Name</label><input id="key-name" name="name" type="text" maxlength="200" required>
<fieldset><legend>Scopes</legend>${joinHtml(scopes, ' ')}</fieldset>
<label for="key-expiry">Expires</label><select id="key-expiry" name="expiry">${expiries}</select>
<div><button type="submit">Create key</button></div></form></section>
<section aria-labelledby="list-heading"><h2 id="list-heading">Keys of ${session.row.account_name}</h2>
<p>Rotating makes a new key with the same name and scopes; the old one keeps working for 24 hours, then stops. Revoking stops a key at once.
${session.row.role === 'owner' ? 'As an owner you may rotate and revoke every key.' : 'You may rotate and revoke the keys you created.'}</p>
${
  rows.length === 0
    ? html`<p>No keys yet.</p>`
    : html`<table><caption>API keys (newest first)</caption><thead><tr><th scope="col">Name</th><th scope="col">Key</th><th scope="col">Scopes</th><th scope="col">Created</th><th scope="col">Last used</th><th scope="col">Expires</th><th scope="col">Status</th><th scope="col">Created by</th><th scope="col">Actions</th></tr></thead><tbody>${rows}</tbody></table>`
}</section>`;
  }

  const shownOnce = (created: CreatedApiKey, what: string) =>
    html`<section aria-labelledby="new-key-heading" class="notice ok"><h2 id="new-key-heading">${what}</h2>
<p>Copy it now: it is shown only this once and kept only as a hash. Select the field and copy (Ctrl+C or ⌘C).</p>
<label for="new-key">New key “${created.name}” (${created.scopes.join(', ')})</label>
<input id="new-key" class="secret" type="text" readonly value="${created.key}" autocomplete="off" spellcheck="false"></section>`;

  app.get('/account/keys', hide, async (request, reply) => {
    const session = await page(request, reply);
    if (!session) return reply;
    const query = request.query as Record<string, unknown>;
    if (query.revoked !== undefined && typeof query.revoked !== 'string') {
      return sendPage(reply.code(400), {
        title: 'API Keys',
        signedIn: frame(session, 'keys'),
        body: await keysPage(session, notice('error', 'The address names "revoked" more than once; open the API Keys tab again.')),
      });
    }
    // Said only of a revoked key of this account: any other id in the address is not this page's to speak of.
    const revoked = typeof query.revoked === 'string' && isId('apiKey', query.revoked) ? await findApiKey(db, query.revoked) : undefined;
    const message = html`${await takeShown(session, 'keys')}${
      revoked && revoked.account_id === session.row.account_id && revoked.revoked_at
        ? notice('ok', `Revoked “${revoked.name}” (${revoked.display_prefix}…): requests with it are refused now.`)
        : ''
    }`;
    return sendPage(reply, { title: 'API Keys', signedIn: frame(session, 'keys'), body: await keysPage(session, message) });
  });

  app.post('/account/keys', form, async (request, reply) => {
    const session = await change(request, reply);
    if (!session) return reply;
    const name = field(request.body, 'name').trim();
    const rawScopes = fields(request.body, 'scopes');
    const expiry = field(request.body, 'expiry') || 'never';
    const problem =
      name === '' || name.length > 200
        ? 'A key needs a name of 1 to 200 characters.'
        : controlCharacterProblem(name)
          ? 'The name holds a control character.'
          : rawScopes.length === 0 || !rawScopes.every(isApiKeyScope)
            ? `Choose at least one scope of ${API_KEY_SCOPES.join(', ')}.`
            : !Object.hasOwn(EXPIRY_CHOICES, expiry)
              ? 'Choose when the key expires from the list.'
              : null;
    if (problem)
      return sendPage(reply.code(400), {
        title: 'API Keys',
        signedIn: frame(session, 'keys'),
        body: await keysPage(session, notice('error', problem)),
      });
    const days = EXPIRY_CHOICES[expiry as ExpiryChoice];
    const expiresAt = days === null ? null : new Date(Date.now() + days * 86_400_000);
    let created: CreatedApiKey;
    try {
      created = await createKeyForAccount(
        db,
        { id: session.row.account_id, plan: session.row.plan },
        name,
        expiresAt,
        rawScopes as ApiKeyScope[],
      );
    } catch (error) {
      if (!(error instanceof KeyLimitReached)) throw error;
      return sendPage(reply.code(409), {
        title: 'API Keys',
        signedIn: frame(session, 'keys'),
        body: await keysPage(
          session,
          notice(
            'error',
            `Your account already has ${error.limit} live keys, the most its ${error.plan} plan allows. Revoke a key it no longer uses, then create the new one.`,
          ),
        ),
      });
    }
    await recordKeyCreator(db, created.id, session.row.id);
    audit(session, 'key created', { key_id: created.id, scopes: created.scopes, expires_at: expiresAt?.toISOString() ?? null });
    return redirectWith(reply, session, 'keys', '/account/keys', shownOnce(created, 'Your new key'));
  });

  /** The key of this account that the member may manage, or an answered refusal (undefined). */
  async function manageableKey(session: Session, request: FastifyRequest, reply: FastifyReply) {
    const { id } = request.params as { id: string };
    const key = isId('apiKey', id) ? await findApiKey(db, id) : undefined;
    if (!key || key.account_id !== session.row.account_id) {
      void sendPage(reply.code(404), {
        title: 'API Keys',
        signedIn: frame(session, 'keys'),
        body: await keysPage(session, notice('error', 'Your account has no such key.')),
      });
      return undefined;
    }
    const creator = (await keyCreators(db, session.row.account_id)).get(key.id);
    if (!mayManage(session, creator?.memberId)) {
      void sendPage(reply.code(403), {
        title: 'API Keys',
        signedIn: frame(session, 'keys'),
        body: await keysPage(
          session,
          notice('error', 'Only an owner of the account, or the member who created it, may rotate or revoke this key.'),
        ),
      });
      return undefined;
    }
    return key;
  }

  app.post('/account/keys/:id/rotate', form, async (request, reply) => {
    const session = await change(request, reply);
    if (!session) return reply;
    const old = await manageableKey(session, request, reply);
    if (!old) return reply;
    if (old.revoked_at || (old.expires_at && old.expires_at.getTime() <= Date.now())) {
      return sendPage(reply.code(409), {
        title: 'API Keys',
        signedIn: frame(session, 'keys'),
        body: await keysPage(session, notice('error', 'A revoked or expired key cannot be rotated: create a new one.')),
      });
    }
    const rotatedAgain = async () =>
      sendPage(reply.code(409), {
        title: 'API Keys',
        signedIn: frame(session, 'keys'),
        body: await keysPage(
          session,
          notice(
            'error',
            `${old.display_prefix}… was rotated already (a second submit, or someone else): no new key was made. Use the key that replaced it.`,
          ),
        ),
      });
    if (old.replaced_by) return rotatedAgain();
    const stopsAt = new Date(Math.min(Date.now() + ROTATION_OVERLAP_MS, old.expires_at?.getTime() ?? Infinity));
    // The new key ends when the old one would have: a rotation replaces a secret, it does not lengthen its life.
    let created: CreatedApiKey;
    try {
      created = await rotateApiKey(db, old, session.row.plan, stopsAt, { expiresAt: old.expires_at, once: true });
    } catch (error) {
      if (error instanceof KeyAlreadyRotated) return rotatedAgain();
      throw error;
    }
    await recordKeyCreator(db, created.id, session.row.id);
    // Every web process drops the old key's cached entry, so its new expiry bites on time.
    await keyChanged(old.id);
    audit(session, 'key rotated', { key_id: old.id, new_key_id: created.id, old_key_stops_at: stopsAt.toISOString() });
    return redirectWith(
      reply,
      session,
      'keys',
      '/account/keys',
      html`${shownOnce(created, 'The rotated key')}${notice('ok', `The old key (${old.display_prefix}…) keeps working until ${date(stopsAt)}, then stops.${created.expiresAt ? ` The new one expires when the old one would have: ${date(created.expiresAt)}.` : ''}`)}`,
    );
  });

  // Revoking only takes access away, so it works while the account is suspended too: its owners can stop a leaked key.
  app.post('/account/keys/:id/revoke', form, async (request, reply) => {
    const session = await change(request, reply, { whileSuspended: true });
    if (!session) return reply;
    const key = await manageableKey(session, request, reply);
    if (!key) return reply;
    // Revoking cannot be undone and stops every client using the key at once: the first submit asks, naming the key.
    if (field(request.body, 'confirm') !== 'yes') {
      return sendPage(reply, {
        title: 'Revoke a key?',
        signedIn: frame(session, 'keys'),
        body: html`<section aria-labelledby="confirm-heading"><h2 id="confirm-heading">Revoke “${key.name}”?</h2>
<p>The key “${key.name}” (<code>${key.display_prefix}…</code>, ${key.scopes.join(', ')}, last used ${date(key.last_used_at)}) stops working at once: every request with it is refused. This cannot be undone; a client that still needs access needs a new key.</p>
<form method="post" action="/account/keys/${key.id}/revoke">${hidden('csrf', session.csrf)}${hidden('confirm', 'yes')}<button type="submit">Yes, revoke “${key.name}”</button></form>
<p><a href="/account/keys">No, keep it</a></p></section>`,
      });
    }
    await revokeApiKey(db, key.id);
    await keyChanged(key.id);
    audit(session, 'key revoked', { key_id: key.id });
    return reply.redirect(`/account/keys?revoked=${encodeURIComponent(key.id)}`, 303);
  });
}
