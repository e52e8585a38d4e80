// The research section: the daily allowance by plan and how long an insight is reused.
import { DEFAULT_RESEARCH_ALLOWANCE, type ResearchAllowance } from '../domain/research/allowance.js';
import { EnvReader } from './env-reader.js';

export interface ResearchConfig {
  /** Research runs an account may start through the API per UTC day, by plan (domain/research/allowance.ts says why daily). */
  readonly allowancePerDay: ResearchAllowance;
  /** A submission of an idea researched for the same market within this many days is answered with that insight (unless refresh). */
  readonly reuseDays: number;
}

export function loadResearchSection(read: EnvReader): ResearchConfig {
  return Object.freeze({
    allowancePerDay: read.perPlan('RESEARCH_RUNS_PER_DAY', DEFAULT_RESEARCH_ALLOWANCE, 0, 1_000_000),
    reuseDays: read.integer('RESEARCH_REUSE_DAYS', 7, 0, 365),
  });
}
