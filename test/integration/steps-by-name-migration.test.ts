// Migration 2026-11-28T0025-steps-by-name: a database of the version before keeps
// every research step it recorded, now keyed by the step's name; its runs are on
// the chain they ran (one this code carries); the table checks a step's name, not
// a position from 1 to 40; and the way down restores the old key.
import { sql } from 'kysely';
import { describe, expect, it } from 'vitest';
import { migrateTo, migrateToLatest } from '../../src/db/migrate.js';
import { STEP_NAMES } from '../../src/domain/research/step-names.js';
import { doneOutputs, stepsOf } from '../../src/research/run.repository.js';
import { runSteps } from '../../src/research/run-steps.js';
import { RESEARCH_CHAINS } from '../../src/research/steps.js';
import { createTestDatabase } from '../support/database.js';

const BEFORE = '2026-11-28T0024-allowance-refunds';

describe('migration 2026-11-28T0025-steps-by-name', () => {
  it('converts recorded steps to their names without losing any, and checks names instead of 1..40', async () => {
    // Only a database, taken back to an older migration: no Redis, so not a stack.
    const old = await createTestDatabase();
    try {
      await migrateTo(old.db, BEFORE);
      const run = (id: string, nextStep: number, status: string) =>
        sql`insert into research_runs (id, idea, idea_key, provider, source, status, next_step)
            values (${id}, 'idea', ${id}, 'synthetic', 'synthetic', ${status}, ${nextStep})`.execute(old.db);
      await run('run_done', 41, 'succeeded');
      await run('run_half', 12, 'running');
      const step = (runId: string, n: number, name: string, status = 'done') =>
        sql`insert into research_steps (run_id, step, name, status, output, summary, attempts)
            values (${runId}, ${n}, ${name}, ${status}, ${JSON.stringify({ n })}::jsonb, ${`summary ${n}`}, 1)`.execute(old.db);
      for (const [i, name] of STEP_NAMES.entries()) await step('run_done', i + 1, name);
      // The half-done run: 11 steps done, one without a name (filled from its position), step 12 failed once.
      for (const [i, name] of STEP_NAMES.slice(0, 11).entries()) await step('run_half', i + 1, i === 6 ? '' : name);
      await step('run_half', 12, 'compare_anchor', 'failed');
      const before = (
        await sql<{ run_id: string; step: number; status: string; output: unknown; summary: string }>`
        select run_id, step, status, output, summary from research_steps order by run_id, step`.execute(old.db)
      ).rows;

      await migrateToLatest(old.db);

      const after = (
        await sql<{ run_id: string; step: number; name: string; status: string; output: unknown; summary: string }>`
        select run_id, step, name, status, output, summary from research_steps order by run_id, step`.execute(old.db)
      ).rows;
      // Nothing lost: every row, its position, status, output and summary, and each named as its position was.
      expect(after.map(({ name: _name, ...rest }) => rest)).toEqual(before);
      expect(after.map((r) => r.name)).toEqual([...STEP_NAMES, ...STEP_NAMES.slice(0, 12)]);
      // Both runs are on the chain they ran, which this code carries: they read their steps by name and finish on it.
      const runs = await old.db.selectFrom('research_runs').selectAll().orderBy('id').execute();
      for (const r of runs) expect(RESEARCH_CHAINS.find(r.chain)?.steps.map((s) => s.name)).toEqual([...STEP_NAMES]);
      const outputs = await doneOutputs(old.db, 'run_half', ['interest_30d', 'compare_anchor']);
      expect(outputs).toEqual(new Map([['interest_30d', { n: 7 }]]));
      const half = runs.find((r) => r.id === 'run_half')!;
      expect(
        runSteps(half, await stepsOf(old.db, 'run_half'))
          .slice(10, 13)
          .map((s) => [s.step, s.name, s.status]),
      ).toEqual([
        [11, 'compare_secondary', 'done'],
        [12, 'compare_anchor', 'failed'],
        [13, 'related_queries_top', 'pending'],
      ]);

      // The key is the name: a second row of one step is refused whatever position it claims.
      await expect(step('run_half', 30, 'interest_30d')).rejects.toThrow(/research_steps_pk/);
      // The check is of the name, not of a position from 1 to 40: step 41 of a longer chain is a step like any other.
      await step('run_half', 41, 'a_step_added_later');
      await expect(step('run_half', 42, 'Not A Name')).rejects.toThrow(/research_steps_name_check/);
      await expect(step('run_half', 0, 'zeroth')).rejects.toThrow(/research_steps_step_check/);

      // And back down: the old key (run, position) and check, the rows of today's chain kept.
      await sql`delete from research_steps where name = 'a_step_added_later'`.execute(old.db);
      await migrateTo(old.db, BEFORE);
      const down = (
        await sql<{ run_id: string; step: number; status: string; output: unknown; summary: string }>`
        select run_id, step, status, output, summary from research_steps order by run_id, step`.execute(old.db)
      ).rows;
      expect(down).toEqual(before);
      await expect(step('run_half', 41, 'aggregate')).rejects.toThrow(/research_steps_step_check/);
    } finally {
      await old.destroy();
    }
  });
});
