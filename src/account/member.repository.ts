// The people of an account, their invitations and their sessions (one table each,
// one file: they are read together on every page). Tokens and session ids are
// stored only as their SHA-256: whoever reads the database cannot sign in with it.
import { sql } from 'kysely';
import type { Db } from '../db/connection.js';
import type { AccountStatus, MemberRole } from '../db/database.js';
import { newId } from '../domain/ids.js';
import type { Plan } from '../domain/quota.js';

export interface Member {
  id: string;
  account_id: string;
  email: string;
  role: MemberRole;
  password_hash: string | null;
  account_name: string;
  plan: Plan;
  status: AccountStatus;
}

const memberColumns = [
  'm.id',
  'm.account_id',
  'm.email',
  'm.role',
  'm.password_hash',
  'a.name as account_name',
  'a.plan',
  'a.status',
] as const;

/**
 * What inviting an address came to. Nothing is written unless `invited`:
 * - `already-member`: a person of this account who has set a password (a new link would reset it:
 *   only with `reset`, which only the operators' CLI passes);
 * - `role-differs`: the person is this account's with another role (inviting never changes a role);
 * - `elsewhere`: the address is another account's (an address signs in to one account only).
 */
export type InviteOutcome =
  | { kind: 'invited'; memberId: string; role: MemberRole; created: boolean }
  | { kind: 'already-member'; memberId: string; role: MemberRole }
  | { kind: 'role-differs'; memberId: string; role: MemberRole }
  | { kind: 'elsewhere' };

/**
 * The member with this address in the account (made with `role` when new), and a new invitation for them.
 * A person of another account who never set a password and holds no live invitation holds the address no
 * longer: their row is dropped and the address is this account's (an invitation reserves it only while it lives).
 */
export async function inviteMember(
  db: Db,
  input: { accountId: string; email: string; role: MemberRole; tokenHash: string; expiresAt: Date; reset?: boolean },
): Promise<InviteOutcome> {
  return db.transaction().execute(async (trx) => {
    let existing = await trx
      .selectFrom('account_members')
      .select(['id', 'account_id', 'role', 'password_hash'])
      .where('email', '=', input.email)
      .forUpdate()
      .executeTakeFirst();
    if (existing && existing.account_id !== input.accountId) {
      const live = await trx
        .selectFrom('account_invitations')
        .select('id')
        .where('member_id', '=', existing.id)
        .where('used_at', 'is', null)
        .where('expires_at', '>', sql<Date>`now()`)
        .executeTakeFirst();
      if (existing.password_hash !== null || live) return { kind: 'elsewhere' };
      await trx.deleteFrom('account_members').where('id', '=', existing.id).execute();
      existing = undefined;
    }
    if (existing && existing.password_hash !== null && !input.reset) {
      return { kind: 'already-member', memberId: existing.id, role: existing.role };
    }
    if (existing && existing.role !== input.role) return { kind: 'role-differs', memberId: existing.id, role: existing.role };
    const memberId = existing?.id ?? newId('member');
    if (!existing) {
      await trx
        .insertInto('account_members')
        .values({ id: memberId, account_id: input.accountId, email: input.email, role: input.role, password_hash: null })
        .execute();
    }
    await trx
      .insertInto('account_invitations')
      .values({ id: newId('invitation'), member_id: memberId, token_hash: input.tokenHash, expires_at: input.expiresAt, used_at: null })
      .execute();
    return { kind: 'invited', memberId, role: input.role, created: !existing };
  });
}

export interface Invitation {
  id: string;
  expires_at: Date;
  used_at: Date | null;
  member_id: string;
  email: string;
  account_name: string;
}

export async function findInvitation(db: Db, tokenHash: string): Promise<Invitation | undefined> {
  return db
    .selectFrom('account_invitations as i')
    .innerJoin('account_members as m', 'm.id', 'i.member_id')
    .innerJoin('accounts as a', 'a.id', 'm.account_id')
    .select(['i.id', 'i.expires_at', 'i.used_at', 'i.member_id', 'm.email', 'a.name as account_name'])
    .where('i.token_hash', '=', tokenHash)
    .executeTakeFirst();
}

/**
 * Uses the invitation once: sets the member's password, ends every session they had (a password set anew,
 * from an operator's `invite --reset`, is how a person is let back in) and every other unused invitation of
 * theirs. Undefined when it was used or expired meanwhile.
 */
export async function useInvitation(db: Db, invitationId: string, passwordHash: string): Promise<string | undefined> {
  return db.transaction().execute(async (trx) => {
    const used = await trx
      .updateTable('account_invitations')
      .set({ used_at: sql<Date>`now()` })
      .where('id', '=', invitationId)
      .where('used_at', 'is', null)
      .where('expires_at', '>', sql<Date>`now()`)
      .returning('member_id')
      .executeTakeFirst();
    if (!used) return undefined;
    // Every other unused link of this person dies with it: an older link passed on, or leaked, sets nothing afterwards.
    await trx
      .updateTable('account_invitations')
      .set({ used_at: sql<Date>`now()` })
      .where('member_id', '=', used.member_id)
      .where('used_at', 'is', null)
      .execute();
    await trx.updateTable('account_members').set({ password_hash: passwordHash }).where('id', '=', used.member_id).execute();
    await trx
      .updateTable('account_sessions')
      .set({ revoked_at: sql<Date>`now()` })
      .where('member_id', '=', used.member_id)
      .where('revoked_at', 'is', null)
      .execute();
    return used.member_id;
  });
}

export async function findMemberByEmail(db: Db, email: string): Promise<Member | undefined> {
  return db
    .selectFrom('account_members as m')
    .innerJoin('accounts as a', 'a.id', 'm.account_id')
    .select(memberColumns)
    .where('m.email', '=', email)
    .executeTakeFirst();
}

export async function listMembers(db: Db, accountId: string) {
  return db
    .selectFrom('account_members')
    .select(['id', 'email', 'role', 'created_at', sql<boolean>`password_hash is not null`.as('active')])
    .where('account_id', '=', accountId)
    .orderBy('created_at', 'asc')
    .execute();
}

export async function insertSession(db: Db, session: { idHash: string; memberId: string; expiresAt: Date }): Promise<void> {
  await db
    .insertInto('account_sessions')
    .values({ id_hash: session.idHash, member_id: session.memberId, expires_at: session.expiresAt, revoked_at: null })
    .execute();
}

export interface SessionRow extends Member {
  id_hash: string;
  created_at: Date;
  last_seen_at: Date;
  expires_at: Date;
}

/** The session and its member, when it is neither revoked, past its absolute end, nor idle longer than `idleMs`. */
export async function findLiveSession(db: Db, idHash: string, idleMs: number): Promise<SessionRow | undefined> {
  return db
    .selectFrom('account_sessions as s')
    .innerJoin('account_members as m', 'm.id', 's.member_id')
    .innerJoin('accounts as a', 'a.id', 'm.account_id')
    .select([...memberColumns, 's.id_hash', 's.created_at', 's.last_seen_at', 's.expires_at'])
    .where('s.id_hash', '=', idHash)
    .where('s.revoked_at', 'is', null)
    .where('s.expires_at', '>', sql<Date>`now()`)
    .where('s.last_seen_at', '>', sql<Date>`now() - make_interval(secs => ${idleMs / 1000})`)
    .executeTakeFirst();
}

export async function touchSession(db: Db, idHash: string): Promise<void> {
  await db
    .updateTable('account_sessions')
    .set({ last_seen_at: sql<Date>`now()` })
    .where('id_hash', '=', idHash)
    .execute();
}

export async function revokeSession(db: Db, idHash: string): Promise<void> {
  await db
    .updateTable('account_sessions')
    .set({ revoked_at: sql<Date>`now()` })
    .where('id_hash', '=', idHash)
    .where('revoked_at', 'is', null)
    .execute();
}

export async function recordKeyCreator(db: Db, apiKeyId: string, memberId: string): Promise<void> {
  await db.insertInto('api_key_creators').values({ api_key_id: apiKeyId, member_id: memberId }).execute();
}

/** Who made each of these keys from the pages (keys made elsewhere are absent). */
export async function keyCreators(db: Db, accountId: string): Promise<Map<string, { memberId: string; email: string }>> {
  const rows = await db
    .selectFrom('api_key_creators as c')
    .innerJoin('account_members as m', 'm.id', 'c.member_id')
    .select(['c.api_key_id', 'c.member_id', 'm.email'])
    .where('m.account_id', '=', accountId)
    .execute();
  return new Map(rows.map((r) => [r.api_key_id, { memberId: r.member_id, email: r.email }]));
}
