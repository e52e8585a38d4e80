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
}

/** The problem of an answer that is not a success; an answer that is no problem document is described as one. */
export function problemOf(answer: ApiAnswer): ApiProblem {
  if (answer.contentType.startsWith('application/problem+json')) {
    try {
      const parsed = JSON.parse(answer.text) as ApiProblem;
      if (typeof parsed.type === 'string' && typeof parsed.detail === 'string') return parsed;
    } catch {
      // Not JSON after all: described below like any other answer.
    }
  }
  return {
    type: answer.status >= 500 ? '/problems/unavailable' : '/problems/bad-request',
    title: answer.status >= 500 ? 'Service unavailable' : 'Bad request',
    status: answer.status,
    detail: `The service answered HTTP ${answer.status} (${answer.contentType || 'no media type'}) where a result or a problem was expected.`,
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
