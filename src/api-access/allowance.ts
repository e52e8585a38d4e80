// The research allowance spent: the refusal every door gives a submission or a comparison past it, with
// when to ask again (its reset). The allowance itself is counted by the research service.
import { Refusal, secondsUntil } from '../domain/refusal.js';
import type { ResearchAllowanceSpentError } from '../research/research-service.js';

export function allowanceRefusal(error: ResearchAllowanceSpentError, now = Date.now()): Refusal {
  return new Refusal('researchAllowanceExceeded', error.message, { retryAfterSeconds: secondsUntil(error.state.resetsAt, now) });
}
