// The resources: an insight's report (Markdown, GET /api/insights/{id}/report) and the list as CSV
// (GET /api/insights with Accept: text/csv). Each read is one request of the API with the caller's key; a
// refusal is an MCP error whose message and data carry the API's problem.
import { ResourceTemplate, type McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { McpError, type ReadResourceResult } from '@modelcontextprotocol/sdk/types.js';
import type { ApiCaller, ApiRequest } from './api-caller.js';
import { problemOf } from './answers.js';

/** MCP's error code for a resource that cannot be read (the specification's "Resource not found" is -32002). */
const RESOURCE_REFUSED = -32002;

/** The list filters a CSV resource's URI may carry, as search_insights takes them. */
const LIST_FILTERS = ['q', 'geo', 'category', 'source', 'trend_class', 'min_score', 'sort', 'limit', 'cursor'] as const;

async function read(api: ApiCaller, uri: URL, request: ApiRequest, mimeType: string, signal: AbortSignal): Promise<ReadResourceResult> {
  const answer = await api.call({ ...request, accept: mimeType }, signal);
  if (answer.status !== 200) {
    const problem = problemOf(answer);
    throw new McpError(RESOURCE_REFUSED, `${problem.title} (${problem.type}, HTTP ${problem.status}): ${problem.detail}`, problem);
  }
  return { contents: [{ uri: uri.href, mimeType, text: answer.text }] };
}

export function registerInsightResources(server: McpServer, api: ApiCaller): void {
  server.registerResource(
    'insight-report',
    new ResourceTemplate('insights://insights/{id}/report', { list: undefined }),
    {
      title: "An insight's report",
      description:
        'The insight as a Markdown report: summary, verdict, the 8 dimensions with their evidence, the forecast and the research ' +
        'trace, headed by what it rests on (live, recorded or simulated data).',
      mimeType: 'text/markdown',
    },
    async (uri, variables, extra) =>
      read(
        api,
        uri,
        { method: 'GET', path: `/insights/${encodeURIComponent(String(variables.id))}/report` },
        'text/markdown',
        extra.signal,
      ),
  );

  const csvDescription =
    'A page of the insight list as CSV (RFC 4180): a header record, then one record per insight with its scores (0–1), ' +
    `verdict and provenance. Filters as search_insights takes them (${LIST_FILTERS.join(', ')}), in the query: insights://insights.csv?geo=US&limit=100.`;
  server.registerResource(
    'insight-list-csv',
    'insights://insights.csv',
    { title: 'The insight list (CSV)', description: `${csvDescription} Without a query: the first 100, best first.`, mimeType: 'text/csv' },
    async (uri, extra) => read(api, uri, { method: 'GET', path: '/insights', query: { limit: 100 } }, 'text/csv', extra.signal),
  );
  server.registerResource(
    'insight-list-csv-filtered',
    // The query as one reserved expansion (RFC 6570 {+…}): the SDK matches {?a,b} only when every variable is present, in order.
    new ResourceTemplate('insights://insights.csv?{+filters}', { list: undefined }),
    { title: 'The insight list, filtered (CSV)', description: csvDescription, mimeType: 'text/csv' },
    async (uri, _variables, extra) => {
      // The query as the URI spells it: the API reads and checks every filter, as for search_insights.
      const query = Object.fromEntries([...uri.searchParams].filter(([name]) => (LIST_FILTERS as readonly string[]).includes(name)));
      return read(api, uri, { method: 'GET', path: '/insights', query }, 'text/csv', extra.signal);
    },
  );
}
