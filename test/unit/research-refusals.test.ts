// The research and comparison services' refusals carry their kind (domain/refusal.ts): the API's problem and the
// Research and Insights pages' status and headers are all read from it, so the doors cannot answer one differently.
import { describe, expect, it } from 'vitest';
import { allowanceState } from '../../src/domain/research/allowance.js';
import { headersOfRefusal, problemOfRefusal, statusOfRefusal } from '../../src/http/api-guard/refusal.js';
import { TrendsFailedError } from '../../src/providers/gateway.js';
import type { RunRow } from '../../src/research/run.repository.js';
import { ComparisonUnavailableError, NotResearchedError } from '../../src/research/comparison-service.js';
import {
  IdempotencyKeyReusedError,
  NotAnswerableError,
  ResearchAllowanceSpentError,
  RunNotCancellableError,
} from '../../src/research/research-service.js';
import { InvalidIdeaError } from '../../src/research/start-run.js';

const now = Date.parse('2026-03-01T23:59:58.500Z');
const spent = new ResearchAllowanceSpentError(allowanceState(3, 3, new Date(now)), now);

describe("the research and comparison services' refusals", () => {
  it('answer with the status, problem type and headers the API documents, whichever door asks', () => {
    const cases = [
      [new InvalidIdeaError('it is empty'), 400, '/problems/invalid-parameter', {}],
      [new InvalidIdeaError('"a" is given twice', 'ideas'), 400, '/problems/invalid-parameter', {}],
      [
        new NotAnswerableError('not recorded', { phrases: ['crm'], markets: ['US'] }, { phrase: true, market: false }),
        422,
        '/problems/not-answerable',
        {},
      ],
      [spent, 429, '/problems/research-allowance-exceeded', { 'retry-after': '2' }],
      [new IdempotencyKeyReusedError('used for another submission'), 409, '/problems/idempotency-key-reused', {}],
      [new RunNotCancellableError({ id: 'run_1', status: 'succeeded' } as RunRow), 409, '/problems/run-not-cancellable', {}],
      [new NotResearchedError(['crm for dentists']), 409, '/problems/not-researched', {}],
      [new ComparisonUnavailableError(new TrendsFailedError('HTTP 500')), 502, '/problems/search-data-unavailable', {}],
    ] as const;
    for (const [refusal, status, type, headers] of cases) {
      const name = `${refusal.constructor.name}: ${refusal.message}`;
      expect(statusOfRefusal(refusal), name).toBe(status);
      expect(headersOfRefusal(refusal), name).toEqual(headers);
      const problem = problemOfRefusal(refusal);
      expect(problem.body.status, name).toBe(status);
      expect(problem.body.type, name).toBe(type);
      expect(problem.body.detail, name).toBe(refusal.message);
      expect(problem.headers, name).toEqual(headers);
    }
  });

  it("name the refused idea as a submission's idea or a comparison's ideas, its problem kept for the pages' sentences", () => {
    const submitted = new InvalidIdeaError('it is empty');
    expect(submitted.problem).toBe('it is empty');
    expect(problemOfRefusal(submitted).body).toMatchObject({
      detail: 'idea cannot be researched: it is empty',
      invalid_params: [{ name: 'idea', reason: 'cannot be researched: it is empty' }],
    });
    expect(problemOfRefusal(new InvalidIdeaError('"a" is given twice', 'ideas')).body).toMatchObject({
      detail: 'ideas "a" is given twice',
      invalid_params: [{ name: 'ideas', reason: '"a" is given twice' }],
    });
  });

  it('name in invalid_params each of the phrase and the market the data cannot answer, and none when it misses neither', () => {
    const coverage = { phrases: ['crm'], markets: ['US', ''] };
    expect(problemOfRefusal(new NotAnswerableError('no', coverage, { phrase: true, market: true })).body.invalid_params).toEqual([
      { name: 'idea', reason: 'names none of the recorded phrases', allowed: ['crm'] },
      { name: 'geo', reason: 'is not a recorded market', allowed: ['US', ''] },
    ]);
    expect(problemOfRefusal(new NotAnswerableError('no', coverage, { phrase: false, market: false })).body.invalid_params).toEqual([]);
  });

  it("keep the provider's own failure as the cause, for the operator's log, never in the client's detail", () => {
    const failed = new TrendsFailedError('HTTP 500 from the provider, account acc_secret');
    const refusal = new ComparisonUnavailableError(failed);
    expect(refusal.cause).toBe(failed);
    expect(problemOfRefusal(refusal).body.detail).not.toContain('acc_secret');
  });
});
