// What a researched insight looks like, on a fresh machine without Google: on
// the first `npm start`, named startup ideas are researched by the real
// pipeline (all 40 steps, 8 dimensions with evidence, a forecast) against the
// synthetic provider's simulated world. They lead the quick start's catalogue
// (above the recorded 2020 series of demo-seed.ts, below any research on live
// data). Every such insight has source "synthetic" and provider "synthetic",
// so every place its title is read says "simulated" (domain/provenance.ts),
// and it is never taken for live Google data.
import type { Db } from '../db/connection.js';
import { SOURCES } from '../domain/catalog.js';
import { StepQueue } from '../research/step-queue.js';
import { startRun } from '../research/start-run.js';
import { anyRunExists } from '../research/run.repository.js';

export const DEMO_IDEAS = [
  'AI meal planner for busy parents',
  'Dog walking marketplace',
  'Budget travel app for students',
  'Invoice automation for freelancers',
  'Online tutoring for adult learners',
  'Plant care reminder app',
  'Secondhand furniture marketplace',
  'Remote team standup bot',
  'Home workout subscription',
  'Local farmers market delivery',
  'Language exchange app',
  'Senior care scheduling software',
  'Carbon footprint tracker for small businesses',
  'Wedding planning checklist app',
  'Subscription box for coffee lovers',
  'Personal finance coach for teenagers',
] as const;

/** Starts the demo runs unless research has been run here before; returns the run ids started. */
export async function startDemoResearch(db: Db, stepQueue: StepQueue): Promise<string[]> {
  if (await anyRunExists(db)) return [];
  const ids: string[] = [];
  for (const idea of DEMO_IDEAS) {
    const run = await startRun(db, stepQueue, { idea, hints: [], provider: 'synthetic', source: SOURCES.synthetic, startedBy: 'demo' });
    ids.push(run.id);
  }
  return ids;
}
