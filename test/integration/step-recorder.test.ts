// Group commit of research steps: many steps of different runs in one
// statement, each recorded at most once, never for a run that moved on, and a
// bad row does not take the others down with it.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createRun, findRun, markRunFailed, stepsOf, type StepDoneRow } from '../../src/research/run.repository.js';
import { StepRecorder } from '../../src/research/step-recorder.js';
import { createTestDatabase, type TestDatabase } from '../support/database.js';

let database: TestDatabase;
beforeAll(async () => {
  // Only a database: the recorder touches no Redis, so not a stack.
  database = await createTestDatabase();
});
afterAll(async () => {
  await database.destroy();
});

const newRun = (n: number) =>
  createRun(database.db, {
    idea: `recorder idea ${n}`,
    ideaKey: `recorder idea ${n}`,
    hints: [],
    provider: 'synthetic',
    source: 'synthetic',
  });
const row = (runId: string, step: number, output: unknown = { step }): StepDoneRow => ({
  runId,
  step,
  name: `step_${step}`,
  output,
  summary: `summary ${step}`,
  inputHash: 'h',
  durationMs: 3,
  startedAt: new Date(),
  attempt: 1,
});

describe('StepRecorder', () => {
  it('records concurrent steps of many runs in fewer statements, each exactly once', async () => {
    const runs = await Promise.all(Array.from({ length: 30 }, (_, i) => newRun(i)));
    const recorder = new StepRecorder(database.db);
    // All 30 arrive in the same tick: the first goes out alone, the other 29 wait and share one statement.
    const results = await Promise.all(runs.map((r) => recorder.record(row(r.id, 1, { values: [1, 2, 3], note: 'ünïcode "quoted"' }))));
    expect(results).toEqual(runs.map(() => true));
    expect(recorder.stats).toEqual({ statements: 2, items: 30 });
    for (const r of runs) {
      expect((await findRun(database.db, r.id))!.next_step).toBe(2);
      const [step] = await stepsOf(database.db, r.id);
      expect(step).toMatchObject({ step: 1, status: 'done', output: { values: [1, 2, 3], note: 'ünïcode "quoted"' } });
    }
    // A second delivery of a recorded step, alone or twice in one batch, is refused.
    expect(await recorder.record(row(runs[0]!.id, 1))).toBe(false);
    const [a, b] = await Promise.all([recorder.record(row(runs[1]!.id, 2)), recorder.record(row(runs[1]!.id, 2))]);
    expect([a, b].sort()).toEqual([false, true]);
    expect((await findRun(database.db, runs[1]!.id))!.next_step).toBe(3);
  });

  it('does not record a step of a run that failed or is at another step', async () => {
    const [failed, ahead] = await Promise.all([newRun(100), newRun(101)]);
    await markRunFailed(database.db, failed!.id, 1, 'gave up');
    const recorder = new StepRecorder(database.db);
    expect(await Promise.all([recorder.record(row(failed!.id, 1)), recorder.record(row(ahead!.id, 5))])).toEqual([false, false]);
    expect(await stepsOf(database.db, failed!.id)).toEqual([]);
    expect(await stepsOf(database.db, ahead!.id)).toEqual([]);
    expect((await findRun(database.db, failed!.id))!.status).toBe('failed');
  });

  it('writes the good rows of a batch one by one when one row breaks the statement', async () => {
    const runs = await Promise.all([newRun(200), newRun(201), newRun(202)]);
    // A name that is no step's ("Step 41"): the step table's check constraint on names rejects it.
    await database.db.updateTable('research_runs').set({ next_step: 41, status: 'running' }).where('id', '=', runs[1]!.id).execute();
    const recorder = new StepRecorder(database.db);
    const blocker = recorder.record(row(runs[2]!.id, 1)); // in flight, so the next three form one batch
    const outcomes = await Promise.allSettled([
      recorder.record(row(runs[0]!.id, 1)),
      recorder.record({ ...row(runs[1]!.id, 41), name: 'Step 41' }),
      recorder.record(row(runs[2]!.id, 2)),
    ]);
    expect(await blocker).toBe(true);
    expect(outcomes[0]).toEqual({ status: 'fulfilled', value: true });
    expect(outcomes[1]!.status).toBe('rejected');
    expect(String((outcomes[1] as PromiseRejectedResult).reason)).toMatch(/research_steps_name_check/);
    expect(outcomes[2]).toEqual({ status: 'fulfilled', value: true });
    expect((await findRun(database.db, runs[2]!.id))!.next_step).toBe(3);
  });
});
