// The API's answers as MCP answers: a success is its JSON as text; a refusal is a tool error (isError)
// that carries the API's problem (its type, such as /problems/missing-scope or /problems/quota-exceeded,
// its title, status and detail), so an assistant reads why and what to do, and nothing crashes.
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import type { ApiAnswer } from './api-caller.js';

/** RFC 9457 problem details, as every refusal of the API carries them. */
export interface ApiProblem {
  type: string;
  title: string;
  status: number;
  detail: string;
  invalid_params?: unknown[];
  /** From the answer's Retry-After, when it had one and no problem document (a proxy's 429 or 503). */
  retry_after_seconds?: number;
}

/** The label of a status the API (or a proxy in front of it) answered without a problem document. */
function labelOf(status: number): Pick<ApiProblem, 'type' | 'title'> {
  if (status === 401) return { type: '/problems/unauthorized', title: 'Missing or invalid API key' };
  if (status === 403) return { type: '/problems/forbidden', title: 'Forbidden' };
  if (status === 404) return { type: '/problems/not-found', title: 'Not found' };
  if (status === 409) return { type: '/problems/conflict', title: 'Conflict' };
  if (status === 429) return { type: '/problems/rate-limited', title: 'Too many requests' };
  if (status >= 400 && status < 500) return { type: '/problems/bad-request', title: 'Bad request' };
  // A 5xx, or a status no API answer has (a redirect, an informational one): the service or what stands before it failed.
  return { type: '/problems/upstream-error', title: 'Upstream error' };
}

/** Retry-After's seconds (a number of seconds or an HTTP date), when the answer said when to ask again. */
function retryAfterSeconds(answer: ApiAnswer, now = Date.now()): number | undefined {
  const value = answer.retryAfter?.trim();
  if (!value) return undefined;
  if (/^\d+$/.test(value)) return Number(value);
  const at = Date.parse(value);
  return Number.isNaN(at) ? undefined : Math.max(0, Math.ceil((at - now) / 1000));
}

/** The problem of an answer that is not a success; an answer that is no problem document is labelled by its status. */
export function problemOf(answer: ApiAnswer): ApiProblem {
  if (answer.contentType.startsWith('application/problem+json')) {
    try {
      const parsed = JSON.parse(answer.text) as ApiProblem;
      if (typeof parsed.type === 'string' && typeof parsed.detail === 'string') return parsed;
    } catch {
      // Not JSON after all: described below like any other answer.
    }
  }
  const retryAfter = retryAfterSeconds(answer);
  const when = retryAfter === undefined ? '' : ` Retry in ${retryAfter} s.`;
  return {
    ...labelOf(answer.status),
    status: answer.status,
    detail: `The service answered HTTP ${answer.status} (${answer.contentType || 'no media type'}) where a result or a problem was expected.${when}`,
    ...(retryAfter === undefined ? {} : { retry_after_seconds: retryAfter }),
  };
}

/** A problem as a tool error: the sentence an assistant reads first, then the problem itself. */
export function toolError(problem: ApiProblem): CallToolResult {
  return {
    isError: true,
    content: [
      { type: 'text', text: `${problem.title} (${problem.type}, HTTP ${problem.status}): ${problem.detail}` },
      { type: 'text', text: JSON.stringify(problem) },
    ],
  };
}

/** The tool's result from the API's answer: its JSON on success, its problem as a tool error otherwise. */
export function toolResult(answer: ApiAnswer): CallToolResult {
  if (answer.status >= 200 && answer.status < 300) return { content: [{ type: 'text', text: answer.text }] };
  return toolError(problemOf(answer));
}

/** A request that got no answer (the service unreachable, a timeout): a tool error, never a crash. */
export function unanswered(error: unknown): CallToolResult {
  const why = error instanceof Error ? `${error.name}: ${error.message}` : String(error);
  return toolError({
    type: '/problems/unavailable',
    title: 'Service unavailable',
    status: 503,
    detail: `The Startup Insights API did not answer (${why}). Check that the service is running and reachable, then try again.`,
  });
}
