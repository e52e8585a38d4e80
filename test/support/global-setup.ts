// Once per test run: with a real Postgres (DATABASE_URL), build a migrated
// template database that every test file clones in milliseconds
// (CREATE DATABASE … TEMPLATE …). Without one, each file starts its own
// in-memory embedded Postgres instead (see database.ts).
import { sql } from 'kysely';
import type { TestProject } from 'vitest/node';
import { createDb } from '../../src/db/connection.js';
import { migrateToLatest } from '../../src/db/migrate.js';

declare module 'vitest' {
  export interface ProvidedContext {
    templateDatabase: string | null;
  }
}

export function withDatabase(url: string, name: string): string {
  const u = new URL(url);
  u.pathname = `/${name}`;
  return u.toString();
}

export default async function setup(project: TestProject) {
  const adminUrl = process.env.DATABASE_URL;
  if (!adminUrl) {
    project.provide('templateDatabase', null);
    return;
  }
  const template = `si_template_${process.pid}`;
  const admin = createDb(adminUrl, { maxConnections: 1 });
  await sql`drop database if exists ${sql.id(template)}`.execute(admin);
  await sql`create database ${sql.id(template)}`.execute(admin);
  const db = createDb(withDatabase(adminUrl, template), { maxConnections: 1 });
  await migrateToLatest(db);
  await db.destroy();
  project.provide('templateDatabase', template);

  return async () => {
    await sql`drop database if exists ${sql.id(template)} with (force)`.execute(admin);
    await admin.destroy();
  };
}
