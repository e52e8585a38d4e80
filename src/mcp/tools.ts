// The tools an assistant calls, each one request of the API (api-caller.ts says why) and described so an
// assistant knows what each number means and what data it rests on (docs/mcp.md lists them).
import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { z } from 'zod';
import { CATEGORY_VALUES, INSIGHT_SORTS, SOURCE_VALUES } from '../domain/catalog.js';
import { TREND_CLASSES } from '../domain/scoring/trend-class.js';
import type { ApiCaller, ApiRequest } from './api-caller.js';
import { toolResult, unanswered } from './answers.js';
import { followRun, type FollowedRun } from './follow-run.js';

/** What every insight's numbers mean and rest on: said once, in every tool that returns insights. */
const READING_INSIGHTS =
  'Scores are 0–1. overall_score is the weighted mean of 8 dimensions read from Google Trends searches: demand (how many search the ' +
  'phrase), momentum (how likely next month beats this month), durability (interest held over 5 years), reach (countries), ' +
  'breadth (different searches around it), pain (problem words: "how to", "fix"), intent (buying words: "price", "buy"), ' +
  'whitespace (how little comparisons and brands crowd it); a dimension scored null had too little evidence. confidence (0–1) ' +
  'discounts thin evidence; rank_score = overall_score × confidence. provenance.kind says what it rests on: live (asked of ' +
  'Google Trends or DataForSEO when researched), recorded (real Google answers recorded in the past: dates in provenance.label) ' +
  'or simulated (synthetic data, never real: say so when you quote it). data_from/data_as_of are the dates of its data.';

const id = (what: string) => z.string().min(1).max(200).describe(what);

/** A tool's body: one API request, or anything that fails without an answer, as a tool result. */
async function answer(api: ApiCaller, request: ApiRequest, signal: AbortSignal): Promise<CallToolResult> {
  try {
    return toolResult(await api.call(request, signal));
  } catch (error) {
    return unanswered(error);
  }
}

function registerReadTools(server: McpServer, api: ApiCaller): void {
  server.registerTool(
    'search_insights',
    {
      title: 'Search startup insights',
      description:
        "Search the catalogue of researched startup ideas and your account's own research (GET /api/insights): a page of " +
        'insights, best first by default, each with its 8 dimension scores, verdict and provenance. Follow next_cursor for more. ' +
        READING_INSIGHTS,
      inputSchema: {
        q: z
          .string()
          .min(1)
          .max(200)
          .optional()
          .describe('Full-text search over title, idea and keywords ("quoted phrase", -excluded, or)'),
        geo: z
          .string()
          .max(6)
          .optional()
          .describe("Only insights of this market: a country code (US), a region (US-CA), or '' for worldwide"),
        category: z
          .string()
          .max(1000)
          .optional()
          .describe(`One category or a comma list of: ${CATEGORY_VALUES.join(', ')}`),
        source: z
          .enum(SOURCE_VALUES as [string, ...string[]])
          .optional()
          .describe('How the insight came to be'),
        trend_class: z
          .string()
          .max(200)
          .optional()
          .describe(`One trend class or a comma list of: ${TREND_CLASSES.join(', ')}`),
        min_score: z.number().min(0).max(1).optional().describe('Only insights whose overall_score is at least this (0–1)'),
        sort: z
          .enum(INSIGHT_SORTS as unknown as [string, ...string[]])
          .optional()
          .describe(
            'score (default: live research first, then recorded, then simulated; by rank_score), overall, newest, oldest, or a dimension',
          ),
        limit: z.number().int().min(1).max(100).optional().describe('Page size, 1–100 (default 20)'),
        cursor: z.string().max(1000).optional().describe('next_cursor of the previous page'),
      },
      annotations: { readOnlyHint: true, openWorldHint: false },
    },
    async (args, extra) => answer(api, { method: 'GET', path: '/insights', query: args }, extra.signal),
  );

  server.registerTool(
    'get_insight',
    {
      title: 'Get an insight',
      description:
        'One insight (GET /api/insights/{id}): its verdict (a sentence, the strongest reason and the biggest risk, each naming ' +
        'its evidence), the 8 dimensions with their evidence and explanations, its decision notes (signals, risks, what to ' +
        'validate first, why now) and provenance. ' +
        READING_INSIGHTS,
      inputSchema: { id: id('The insight id (ins_…), from search_insights or a finished research run') },
      annotations: { readOnlyHint: true, openWorldHint: false },
    },
    async (args, extra) => answer(api, { method: 'GET', path: `/insights/${encodeURIComponent(args.id)}` }, extra.signal),
  );

  server.registerTool(
    'get_trend_data',
    {
      title: "Get an insight's search-interest series",
      description:
        'The Google Trends series behind an insight (GET /api/insights/{id}/trend-data): interest 0–100, where 100 is the ' +
        'highest point of that series in its window (relative, not a count of searches). Windows: 30d and 90d daily, 12m and ' +
        '5y weekly. Its provenance says whether the series is live, recorded or simulated.',
      inputSchema: {
        id: id('The insight id (ins_…)'),
        window: z.enum(['30d', '90d', '12m', '5y']).optional().describe('30d (default), 90d, 12m or 5y'),
      },
      annotations: { readOnlyHint: true, openWorldHint: false },
    },
    async (args, extra) =>
      answer(
        api,
        { method: 'GET', path: `/insights/${encodeURIComponent(args.id)}/trend-data`, query: { window: args.window } },
        extra.signal,
      ),
  );

  server.registerTool(
    'get_forecast',
    {
      title: "Get an insight's forecast",
      description:
        "The 7-day forecast of the insight's search interest (GET /api/insights/{id}/forecast), on the same 0–100 scale as " +
        'get_trend_data, with 80% and 95% intervals and the backtest that measured its error on the same series; or withheld, ' +
        'with the reason, when the series is too short or the model failed its backtest. A forecast of a simulated series is ' +
        'a forecast of synthetic data.',
      inputSchema: { id: id('The insight id (ins_…)') },
      annotations: { readOnlyHint: true, openWorldHint: false },
    },
    async (args, extra) => answer(api, { method: 'GET', path: `/insights/${encodeURIComponent(args.id)}/forecast` }, extra.signal),
  );

  server.registerTool(
    'get_research_run',
    {
      title: 'Get a research run',
      description:
        'A research run of your account (GET /api/research-runs/{id}): status (queued, running, waiting, succeeded, failed, ' +
        'cancelled), progress (steps done of 40, the step under way), its 40 named steps with timings and summaries, the ' +
        'evidence behind each dimension, and insight_id once it succeeded (read it with get_insight or the report resource). ' +
        'provider says what it asked: google or dataforseo (live), replay (recorded), synthetic (simulated).',
      inputSchema: { id: id('The run id (run_…), from research_idea') },
      annotations: { readOnlyHint: true, openWorldHint: false },
    },
    async (args, extra) => answer(api, { method: 'GET', path: `/research-runs/${encodeURIComponent(args.id)}` }, extra.signal),
  );

  server.registerTool(
    'get_usage',
    {
      title: "Get the account's usage",
      description:
        "Your account's usage today (GET /api/usage; it counts as one request of the day, as every tool call does): the plan, the daily request limit (null: " +
        'unlimited), requests used and remaining (every tool call here is one request; following a research run is one more), ' +
        'when it resets (UTC midnight), and the research allowance (runs a day, used, remaining, given back after provider failures).',
      inputSchema: { days: z.number().int().min(1).max(90).optional().describe('How many UTC days, today included (1–90, default 1)') },
      annotations: { readOnlyHint: true, openWorldHint: false },
    },
    async (args, extra) => answer(api, { method: 'GET', path: '/usage', query: { days: args.days } }, extra.signal),
  );
}

function registerResearchTools(server: McpServer, api: ApiCaller): void {
  server.registerTool(
    'research_idea',
    {
      title: 'Research a startup idea',
      description:
        'Research an idea for a market (POST /api/research-runs; needs a key with research:write and spends one run of the ' +
        "daily research allowance): a 40-step run reading Google Trends (or the service's configured provider) that ends in a " +
        'scored insight. When the idea was researched for that market in the last days, the answer is that insight ' +
        '(reused: true) and nothing is spent, unless refresh is true. Otherwise the answer is the run (status, progress n of ' +
        '40, queue estimate). If you send a progressToken, the call follows the run to its end (minutes against live Google, ' +
        'seconds on synthetic data) with a progress notification per step, and answers with the finished run; read its ' +
        "insight with get_insight or the report resource insights://insights/{insight_id}/report. The run's provider says " +
        'what the insight will rest on: synthetic means simulated data.',
      inputSchema: {
        idea: z.string().min(1).max(500).describe('The idea in a few words, e.g. "mobile dog grooming van"'),
        geo: z
          .string()
          .max(6)
          .optional()
          .describe("The market: a country code (US), a region (US-CA), or '' for worldwide; default the service's"),
        language: z
          .string()
          .max(35)
          .optional()
          .describe('Language of the idea: ISO 639-1, optionally with a country (en, de, pt-BR); default en'),
        visibility: z
          .enum(['private', 'public'])
          .optional()
          .describe("private (default): your account's alone; public: joins the catalogue"),
        refresh: z.boolean().optional().describe('Research again even if researched for this market recently'),
      },
      annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: true },
    },
    async (args, extra) => {
      try {
        const submitted = await api.call({ method: 'POST', path: '/research-runs', body: args }, extra.signal);
        const progressToken = extra._meta?.progressToken;
        if (submitted.status !== 202 || progressToken === undefined) return toolResult(submitted);
        const body = JSON.parse(submitted.text) as { data: FollowedRun; queue: unknown };
        const followed = await followRun(
          api,
          body.data,
          (progress) => extra.sendNotification({ method: 'notifications/progress', params: { progressToken, ...progress } }),
          extra.signal,
        );
        const text = JSON.stringify({
          data: followed.run,
          queue: body.queue,
          ended: followed.ended,
          ...(followed.note ? { note: followed.note } : {}),
        });
        return { content: [{ type: 'text', text }] };
      } catch (error) {
        return unanswered(error);
      }
    },
  );

  server.registerTool(
    'compare_ideas',
    {
      title: 'Compare 2–5 researched ideas',
      description:
        'Compare 2–5 ideas already researched for the market (POST /api/comparisons; needs research:write, and the first ask ' +
        'of a comparison a day spends one run of the research allowance, asking it again that day does not): their search ' +
        'interest asked of the provider in one request, so mean and peak share one 0–100 scale (comparable across the ideas, ' +
        "unlike each insight's own series), beside each idea's overall_score, confidence and dimension scores, and its " +
        'provenance (live, recorded or simulated). An idea not researched for the market is refused (/problems/not-researched): ' +
        'research it first.',
      inputSchema: {
        ideas: z.array(z.string().min(1).max(500)).min(2).max(5).describe('The ideas, as submitted to research_idea'),
        geo: z.string().max(6).optional().describe("The market; default the service's"),
      },
      annotations: { readOnlyHint: true, openWorldHint: true },
    },
    async (args, extra) => answer(api, { method: 'POST', path: '/comparisons', body: args }, extra.signal),
  );
}

export function registerInsightTools(server: McpServer, api: ApiCaller): void {
  registerReadTools(server, api);
  registerResearchTools(server, api);
}
