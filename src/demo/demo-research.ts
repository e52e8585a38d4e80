// What a researched insight looks like, on a fresh machine without Google: on
// the first `npm start`, a few ideas are researched by the real pipeline (all
// 40 steps, 8 dimensions with evidence, a forecast) against the synthetic
// provider's simulated world. Every such insight has source "synthetic" and
// says "simulated" in its title, so it is never taken for live Google data.
import type { Db } from '../db/connection.js';
import { SOURCES } from '../domain/catalog.js';
import { ResearchChain, startRun } from '../research/chain.js';
import { anyRunExists } from '../research/run.repository.js';

export const DEMO_IDEAS = [
  'AI meal planner for busy parents (simulated demo)',
  'Dog walking marketplace (simulated demo)',
  'Budget travel app for students (simulated demo)',
] as const;

/** Starts the demo runs unless research has been run here before; returns the run ids started. */
export async function startDemoResearch(db: Db, chain: ResearchChain): Promise<string[]> {
  if (await anyRunExists(db)) return [];
  const ids: string[] = [];
  for (const idea of DEMO_IDEAS) {
    const run = await startRun(db, chain, { idea, hints: [], provider: 'synthetic', source: SOURCES.synthetic, startedBy: 'demo' });
    ids.push(run.id);
  }
  return ids;
}
