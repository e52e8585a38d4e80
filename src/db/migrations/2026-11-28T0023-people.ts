// Issue 48: a person is one identity that may belong to several accounts, and an address is held only by
// whoever reads its mail.
// - people: the identity (email unique over the service, the scrypt hash of the password);
// - account_members: a membership (person × account × role); unique per account and person;
// - account_invitations: made for an address in an account (no person, no membership until the mailed link is
//   used), with the member who sent it (null: the operators) and whether it resets the password (the CLI's --reset).
// Existing rows move: each member with a password becomes a person (its id's body kept: `mem_x` → `per_x`) and a
// membership; a member who never set a password was only an invitation, and becomes one (their unused links kept).
import { sql, type Kysely } from 'kysely';

export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('people')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('email', 'text', (c) => c.notNull().unique())
    .addColumn('password_hash', 'text', (c) => c.notNull())
    .addColumn('created_at', 'timestamptz', (c) => c.notNull().defaultTo(sql`now()`))
    .execute();
  await sql`insert into people (id, email, password_hash, created_at)
            select 'per_' || substr(id, 5), email, password_hash, created_at from account_members where password_hash is not null`.execute(
    db,
  );

  await db.schema
    .alterTable('account_invitations')
    .addColumn('account_id', 'text', (c) => c.references('accounts.id').onDelete('cascade'))
    .addColumn('email', 'text')
    .addColumn('role', 'text', (c) => c.check(sql`role in ('owner', 'member')`))
    .addColumn('reset', 'boolean', (c) => c.notNull().defaultTo(false))
    .addColumn('invited_by', 'text')
    .execute();
  await sql`update account_invitations i
            set account_id = m.account_id, email = m.email, role = m.role, reset = m.password_hash is not null
            from account_members m where m.id = i.member_id`.execute(db);
  await db.schema.alterTable('account_invitations').dropColumn('member_id').execute();
  await db.schema
    .alterTable('account_invitations')
    .alterColumn('account_id', (c) => c.setNotNull())
    .execute();
  await db.schema
    .alterTable('account_invitations')
    .alterColumn('email', (c) => c.setNotNull())
    .execute();
  await db.schema
    .alterTable('account_invitations')
    .alterColumn('role', (c) => c.setNotNull())
    .execute();
  // The day's and the pending invitations of an account are counted on every invitation (the caps).
  await db.schema.createIndex('account_invitations_account_idx').on('account_invitations').columns(['account_id', 'created_at']).execute();

  await sql`delete from account_members where password_hash is null`.execute(db);
  await db.schema
    .alterTable('account_members')
    .addColumn('person_id', 'text', (c) => c.references('people.id').onDelete('cascade'))
    .execute();
  await sql`update account_members set person_id = 'per_' || substr(id, 5)`.execute(db);
  await db.schema
    .alterTable('account_members')
    .alterColumn('person_id', (c) => c.setNotNull())
    .execute();
  await db.schema.alterTable('account_members').dropColumn('email').dropColumn('password_hash').execute();
  await db.schema
    .alterTable('account_members')
    .addUniqueConstraint('account_members_person_account_key', ['person_id', 'account_id'])
    .execute();
  await db.schema
    .alterTable('account_invitations')
    .addForeignKeyConstraint('account_invitations_invited_by_fkey', ['invited_by'], 'account_members', ['id'])
    .onDelete('set null')
    .execute();
}

/** Back to one account per address: a person's first membership keeps the address, later ones are dropped. */
export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('account_invitations').dropConstraint('account_invitations_invited_by_fkey').execute();
  await db.schema.alterTable('account_members').dropConstraint('account_members_person_account_key').execute();
  await db.schema.alterTable('account_members').addColumn('email', 'text').addColumn('password_hash', 'text').execute();
  await sql`delete from account_members m using account_members earlier
            where earlier.person_id = m.person_id and (earlier.created_at, earlier.id) < (m.created_at, m.id)`.execute(db);
  await sql`update account_members m set email = p.email, password_hash = p.password_hash from people p where p.id = m.person_id`.execute(
    db,
  );
  await db.schema
    .alterTable('account_members')
    .alterColumn('email', (c) => c.setNotNull())
    .execute();
  await db.schema.alterTable('account_members').addUniqueConstraint('account_members_email_key', ['email']).execute();
  await db.schema.alterTable('account_members').dropColumn('person_id').execute();

  await db.schema.dropIndex('account_invitations_account_idx').execute();
  await db.schema
    .alterTable('account_invitations')
    .addColumn('member_id', 'text', (c) => c.references('account_members.id').onDelete('cascade'))
    .execute();
  await sql`update account_invitations i set member_id = m.id from account_members m
            where m.email = i.email and m.account_id = i.account_id`.execute(db);
  await sql`delete from account_invitations where member_id is null`.execute(db);
  await db.schema
    .alterTable('account_invitations')
    .alterColumn('member_id', (c) => c.setNotNull())
    .execute();
  await db.schema
    .alterTable('account_invitations')
    .dropColumn('account_id')
    .dropColumn('email')
    .dropColumn('role')
    .dropColumn('reset')
    .dropColumn('invited_by')
    .execute();
  await db.schema.dropTable('people').execute();
}
