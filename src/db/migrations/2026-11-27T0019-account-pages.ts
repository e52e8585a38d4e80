// The account's own pages (issue 40): the people of an account and how they sign in.
// - account_members: a person of an account (email unique over the service, role
//   owner | member, the scrypt hash of their password once they have set one);
// - account_invitations: a one-time link to set a password, kept only as the SHA-256
//   of its token, with an expiry and the moment it was used;
// - account_sessions: a signed-in browser, kept only as the SHA-256 of the cookie's
//   value, with its idle and absolute expiry and when it was revoked (signed out);
// - api_key_creators: which member made a key from the pages (a member may rotate
//   or revoke only those; a key made by the CLI has no row and is the owners' alone).
import { sql, type Kysely } from 'kysely';

export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('account_members')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('account_id', 'text', (c) => c.notNull().references('accounts.id').onDelete('cascade'))
    .addColumn('email', 'text', (c) => c.notNull().unique())
    .addColumn('role', 'text', (c) => c.notNull().check(sql`role in ('owner', 'member')`))
    .addColumn('password_hash', 'text')
    .addColumn('created_at', 'timestamptz', (c) => c.notNull().defaultTo(sql`now()`))
    .execute();
  await db.schema.createIndex('account_members_account_idx').on('account_members').column('account_id').execute();

  await db.schema
    .createTable('account_invitations')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('member_id', 'text', (c) => c.notNull().references('account_members.id').onDelete('cascade'))
    .addColumn('token_hash', 'text', (c) => c.notNull().unique())
    .addColumn('created_at', 'timestamptz', (c) => c.notNull().defaultTo(sql`now()`))
    .addColumn('expires_at', 'timestamptz', (c) => c.notNull())
    .addColumn('used_at', 'timestamptz')
    .execute();

  await db.schema
    .createTable('account_sessions')
    .addColumn('id_hash', 'text', (c) => c.primaryKey())
    .addColumn('member_id', 'text', (c) => c.notNull().references('account_members.id').onDelete('cascade'))
    .addColumn('created_at', 'timestamptz', (c) => c.notNull().defaultTo(sql`now()`))
    .addColumn('last_seen_at', 'timestamptz', (c) => c.notNull().defaultTo(sql`now()`))
    .addColumn('expires_at', 'timestamptz', (c) => c.notNull())
    .addColumn('revoked_at', 'timestamptz')
    .execute();
  await db.schema.createIndex('account_sessions_member_idx').on('account_sessions').column('member_id').execute();

  await db.schema
    .createTable('api_key_creators')
    .addColumn('api_key_id', 'text', (c) => c.primaryKey().references('api_keys.id').onDelete('cascade'))
    .addColumn('member_id', 'text', (c) => c.notNull().references('account_members.id').onDelete('cascade'))
    .execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable('api_key_creators').execute();
  await db.schema.dropTable('account_sessions').execute();
  await db.schema.dropTable('account_invitations').execute();
  await db.schema.dropTable('account_members').execute();
}
