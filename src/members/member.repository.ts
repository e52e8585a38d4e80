// The people of the service, their memberships of accounts, the invitations mailed to addresses and the
// sessions of memberships (one file: they are read together on every page). A person (people) is an address
// and a password; a membership (account_members) is that person in one account with a role; a session belongs
// to a membership, so it is bound to one account. Tokens and session ids are stored only as their SHA-256:
// whoever reads the database cannot sign in with it.
import { sql } from 'kysely';
import type { Db } from '../db/connection.js';
import type { AccountStatus, MemberRole } from '../db/database.js';
import { newId } from '../domain/ids.js';
import type { Plan } from '../domain/quota.js';

/** A membership with its person and account: what a session is signed in as. `id` is the membership's. */
export interface Member {
  id: string;
  account_id: string;
  person_id: string;
  email: string;
  role: MemberRole;
  password_hash: string;
  account_name: string;
  plan: Plan;
  status: AccountStatus;
}

const memberColumns = [
  'm.id',
  'm.account_id',
  'm.person_id',
  'p.email',
  'm.role',
  'p.password_hash',
  'a.name as account_name',
  'a.plan',
  'a.status',
] as const;

/** What the People page and the CLI may send an account's invitations at (docs/account-pages.md, "Limits"). */
export interface InvitationCaps {
  /** Invitations of the account per UTC day, the operators' included. */
  perDay: number;
  /** Unused, unexpired invitations of the account at once. */
  pending: number;
}

/**
 * What inviting an address came to. Nothing is written unless `invited`:
 * - `already-member`: the address is a person of this account (a new link would be a reset: only `reset`,
 *   which only the operators' CLI passes, makes one);
 * - `day-cap` / `pending-cap`: the account's invitations of the day, or pending at once, are at their cap.
 * An address of another account is invited like any other: the link, mailed to it, adds a membership when used.
 */
export type InviteOutcome =
  | { kind: 'invited'; invitationId: string; role: MemberRole; reset: boolean; replaced: number }
  | { kind: 'already-member'; role: MemberRole }
  | { kind: 'day-cap'; cap: number }
  | { kind: 'pending-cap'; cap: number };

/**
 * A new invitation of `email` into the account. Earlier unused links of the same address in the same account
 * stop working (the newest decides the role). With `caps` (the People page), the account's invitations are
 * counted under a lock on its row, so concurrent invitations cannot all pass the count.
 */
export async function inviteToAccount(
  db: Db,
  input: {
    accountId: string;
    email: string;
    role: MemberRole;
    tokenHash: string;
    expiresAt: Date;
    invitedBy: string | null;
    reset?: boolean;
    caps?: InvitationCaps;
  },
): Promise<InviteOutcome> {
  return db.transaction().execute(async (trx) => {
    await trx.selectFrom('accounts').select('id').where('id', '=', input.accountId).forUpdate().executeTakeFirst();
    const member = await trx
      .selectFrom('account_members as m')
      .innerJoin('people as p', 'p.id', 'm.person_id')
      .select('m.role')
      .where('m.account_id', '=', input.accountId)
      .where('p.email', '=', input.email)
      .executeTakeFirst();
    if (member && !input.reset) return { kind: 'already-member', role: member.role };
    if (input.caps) {
      const counts = await trx
        .selectFrom('account_invitations')
        .select([
          sql<string>`count(*) filter (where created_at >= date_trunc('day', now() at time zone 'utc') at time zone 'utc')`.as('today'),
          sql<string>`count(*) filter (where used_at is null and expires_at > now() and email <> ${input.email})`.as('pending'),
        ])
        .where('account_id', '=', input.accountId)
        .where('created_at', '>', sql<Date>`now() - interval '4 days'`)
        .executeTakeFirstOrThrow();
      if (Number(counts.today) >= input.caps.perDay) return { kind: 'day-cap', cap: input.caps.perDay };
      if (Number(counts.pending) >= input.caps.pending) return { kind: 'pending-cap', cap: input.caps.pending };
    }
    const replaced = await trx
      .updateTable('account_invitations')
      .set({ used_at: sql<Date>`now()` })
      .where('account_id', '=', input.accountId)
      .where('email', '=', input.email)
      .where('used_at', 'is', null)
      .executeTakeFirst();
    const invitationId = newId('invitation');
    const role = member?.role ?? input.role;
    await trx
      .insertInto('account_invitations')
      .values({
        id: invitationId,
        account_id: input.accountId,
        email: input.email,
        role,
        reset: member !== undefined,
        invited_by: input.invitedBy,
        token_hash: input.tokenHash,
        expires_at: input.expiresAt,
        used_at: null,
      })
      .execute();
    return { kind: 'invited', invitationId, role, reset: member !== undefined, replaced: Number(replaced.numUpdatedRows) };
  });
}

/** An invitation whose mail could not be sent: it never existed (nor counts against the caps). */
export async function dropInvitation(db: Db, invitationId: string): Promise<void> {
  await db.deleteFrom('account_invitations').where('id', '=', invitationId).execute();
}

export interface Invitation {
  id: string;
  expires_at: Date;
  used_at: Date | null;
  account_id: string;
  email: string;
  role: MemberRole;
  reset: boolean;
  account_name: string;
  /** The address is a person already (their password is kept unless this is a reset). */
  person_exists: boolean;
}

export async function findInvitation(db: Db, tokenHash: string): Promise<Invitation | undefined> {
  return db
    .selectFrom('account_invitations as i')
    .innerJoin('accounts as a', 'a.id', 'i.account_id')
    .select([
      'i.id',
      'i.expires_at',
      'i.used_at',
      'i.account_id',
      'i.email',
      'i.role',
      'i.reset',
      'a.name as account_name',
      sql<boolean>`exists (select 1 from people p where p.email = i.email)`.as('person_exists'),
    ])
    .where('i.token_hash', '=', tokenHash)
    .executeTakeFirst();
}

export type AcceptOutcome =
  | { kind: 'joined'; personId: string; memberId: string; accountId: string; passwordSet: boolean }
  | { kind: 'gone' }
  | { kind: 'password-needed' };

/**
 * Uses the invitation once: the address's person (made with `passwordHash` when new) becomes a member of the
 * account. An existing person's password is set only by a reset (which ends every session of theirs); an
 * invitation only proves the address. Every other unused link of the address in that account dies with it.
 */
export async function acceptInvitation(db: Db, invitationId: string, passwordHash: string | null): Promise<AcceptOutcome> {
  return db
    .transaction()
    .execute(async (trx): Promise<AcceptOutcome> => {
      const used = await trx
        .updateTable('account_invitations')
        .set({ used_at: sql<Date>`now()` })
        .where('id', '=', invitationId)
        .where('used_at', 'is', null)
        .where('expires_at', '>', sql<Date>`now()`)
        .returning(['account_id', 'email', 'role', 'reset'])
        .executeTakeFirst();
      if (!used) return { kind: 'gone' };
      await trx
        .updateTable('account_invitations')
        .set({ used_at: sql<Date>`now()` })
        .where('account_id', '=', used.account_id)
        .where('email', '=', used.email)
        .where('used_at', 'is', null)
        .execute();
      let person = await trx.selectFrom('people').select('id').where('email', '=', used.email).forUpdate().executeTakeFirst();
      let passwordSet = false;
      if (!person) {
        if (passwordHash === null) throw new PasswordNeeded();
        person = await trx
          .insertInto('people')
          .values({ id: newId('person'), email: used.email, password_hash: passwordHash })
          .returning('id')
          .executeTakeFirstOrThrow();
        passwordSet = true;
      } else if (used.reset && passwordHash !== null) {
        await trx.updateTable('people').set({ password_hash: passwordHash }).where('id', '=', person.id).execute();
        await trx
          .updateTable('account_sessions')
          .set({ revoked_at: sql<Date>`now()` })
          .where('member_id', 'in', trx.selectFrom('account_members').select('id').where('person_id', '=', person.id))
          .where('revoked_at', 'is', null)
          .execute();
        passwordSet = true;
      }
      await trx
        .insertInto('account_members')
        .values({ id: newId('member'), account_id: used.account_id, person_id: person.id, role: used.role })
        .onConflict((oc) => oc.columns(['person_id', 'account_id']).doNothing())
        .execute();
      const member = await trx
        .selectFrom('account_members')
        .select('id')
        .where('person_id', '=', person.id)
        .where('account_id', '=', used.account_id)
        .executeTakeFirstOrThrow();
      return { kind: 'joined', personId: person.id, memberId: member.id, accountId: used.account_id, passwordSet };
    })
    .catch((error: unknown): AcceptOutcome => {
      // Rolled back: the link is unused still, and the page asks for a password.
      if (error instanceof PasswordNeeded) return { kind: 'password-needed' };
      throw error;
    });
}

class PasswordNeeded extends Error {}

/** The membership a sign-in with this address opens: the account the person signed in to last (else joined last). */
export async function findMemberByEmail(db: Db, email: string): Promise<Member | undefined> {
  return db
    .selectFrom('account_members as m')
    .innerJoin('people as p', 'p.id', 'm.person_id')
    .innerJoin('accounts as a', 'a.id', 'm.account_id')
    .select(memberColumns)
    .where('p.email', '=', email)
    .orderBy(sql`(select max(s.created_at) from account_sessions s where s.member_id = m.id)`, sql`desc nulls last`)
    .orderBy('m.created_at', 'desc')
    .executeTakeFirst();
}

/** Every account the person belongs to (the account switcher). */
export async function listMemberships(db: Db, personId: string) {
  return db
    .selectFrom('account_members as m')
    .innerJoin('accounts as a', 'a.id', 'm.account_id')
    .select(['m.id', 'm.account_id', 'a.name as account_name', 'm.role'])
    .where('m.person_id', '=', personId)
    .orderBy('a.name')
    .orderBy('m.account_id')
    .execute();
}

export async function findMembership(db: Db, personId: string, accountId: string): Promise<Member | undefined> {
  return db
    .selectFrom('account_members as m')
    .innerJoin('people as p', 'p.id', 'm.person_id')
    .innerJoin('accounts as a', 'a.id', 'm.account_id')
    .select(memberColumns)
    .where('m.person_id', '=', personId)
    .where('m.account_id', '=', accountId)
    .executeTakeFirst();
}

export async function listMembers(db: Db, accountId: string) {
  return db
    .selectFrom('account_members as m')
    .innerJoin('people as p', 'p.id', 'm.person_id')
    .select(['m.id', 'p.email', 'm.role', 'm.created_at'])
    .where('m.account_id', '=', accountId)
    .orderBy('m.created_at', 'asc')
    .execute();
}

/** The account's unused, unexpired invitations (the addresses are shown to its owners: they typed them). */
export async function listPendingInvitations(db: Db, accountId: string) {
  return db
    .selectFrom('account_invitations')
    .select(['email', 'role', 'created_at', 'expires_at'])
    .where('account_id', '=', accountId)
    .where('used_at', 'is', null)
    .where('expires_at', '>', sql<Date>`now()`)
    .orderBy('created_at', 'asc')
    .execute();
}

export type RemoveOutcome =
  | { kind: 'removed'; memberId: string | null; personId: string | null; sessionsRevoked: number; invitationsCancelled: number }
  | { kind: 'not-found' }
  | { kind: 'last-owner' };

/**
 * Removes the address from the account: its membership (its sessions of this account revoked first, so a copied
 * cookie is refused at once) and its unused invitations. The account's last owner stays (under a lock on the
 * account's row, so two owners removing each other at once cannot both go). The person keeps their other accounts.
 * The caller forgets the person's known browsers (known-devices.ts: Redis, after this commits).
 */
export async function removeFromAccount(db: Db, accountId: string, email: string): Promise<RemoveOutcome> {
  return db.transaction().execute(async (trx) => {
    await trx.selectFrom('accounts').select('id').where('id', '=', accountId).forUpdate().executeTakeFirst();
    const member = await trx
      .selectFrom('account_members as m')
      .innerJoin('people as p', 'p.id', 'm.person_id')
      .select(['m.id', 'm.role', 'm.person_id'])
      .where('m.account_id', '=', accountId)
      .where('p.email', '=', email)
      .executeTakeFirst();
    if (member?.role === 'owner') {
      const owners = await trx
        .selectFrom('account_members')
        .select((eb) => eb.fn.countAll<string>().as('n'))
        .where('account_id', '=', accountId)
        .where('role', '=', 'owner')
        .executeTakeFirstOrThrow();
      if (Number(owners.n) <= 1) return { kind: 'last-owner' };
    }
    const cancelled = await trx
      .updateTable('account_invitations')
      .set({ used_at: sql<Date>`now()` })
      .where('account_id', '=', accountId)
      .where('email', '=', email)
      .where('used_at', 'is', null)
      .executeTakeFirst();
    if (!member) {
      return Number(cancelled.numUpdatedRows) > 0
        ? { kind: 'removed', memberId: null, personId: null, sessionsRevoked: 0, invitationsCancelled: Number(cancelled.numUpdatedRows) }
        : { kind: 'not-found' };
    }
    const revoked = await trx
      .updateTable('account_sessions')
      .set({ revoked_at: sql<Date>`now()` })
      .where('member_id', '=', member.id)
      .where('revoked_at', 'is', null)
      .executeTakeFirst();
    // The sessions' rows go with the membership (ON DELETE CASCADE); the keys they made stay the account's.
    await trx.deleteFrom('account_members').where('id', '=', member.id).execute();
    return {
      kind: 'removed',
      memberId: member.id,
      personId: member.person_id,
      sessionsRevoked: Number(revoked.numUpdatedRows),
      invitationsCancelled: Number(cancelled.numUpdatedRows),
    };
  });
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
    .innerJoin('people as p', 'p.id', 'm.person_id')
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

/** Who made each of these keys from the pages (keys made elsewhere, or by a person removed since, are absent). */
export async function keyCreators(db: Db, accountId: string): Promise<Map<string, { memberId: string; email: string }>> {
  const rows = await db
    .selectFrom('api_key_creators as c')
    .innerJoin('account_members as m', 'm.id', 'c.member_id')
    .innerJoin('people as p', 'p.id', 'm.person_id')
    .select(['c.api_key_id', 'c.member_id', 'p.email'])
    .where('m.account_id', '=', accountId)
    .execute();
  return new Map(rows.map((r) => [r.api_key_id, { memberId: r.member_id, email: r.email }]));
}
