import type { Command } from 'commander';
import { DIMENSIONS } from '../../domain/scoring/dimensions.js';
import { displayTitle, provenanceOf } from '../../domain/provenance.js';
import { failureKind } from '../../domain/public-error.js';
import { verdictOf } from '../../domain/research/verdict.js';
import { describeDiscovery } from '../../domain/trends/google/discovery.js';
import { findInsight } from '../../insights/insight.repository.js';
import { marketProblem } from '../../domain/research/market.js';
import { InvalidIdeaError } from '../../research/start-run.js';
import { dryRun, type DryRun } from '../../research/dry-run.js';
import { anchorTermFor } from '../../providers/registry.js';
import { NotAnswerableError, ResearchAllowanceSpentError, type Submitter } from '../../research/research-service.js';
import { requireAccount } from '../account-arguments.js';
import { findRun, listRuns, reopenRun, stepsOf, type RunRow } from '../../research/run.repository.js';
import { failedStepOf, runProgress } from '../../research/run-steps.js';
import { traceIdOf } from '../../observability/tracing.js';
import { runStepViews } from '../../views/run.view.js';
import type { Resources } from '../../runtime/resources.js';
import type { Services } from '../../runtime/services.js';
import { startWorkers, type Pipeline } from '../../runtime/workers.js';
import type { CliContext } from '../context.js';
import { describeCommand } from '../command-index.js';
import { withResources, withServices } from '../resources.js';
import { forTerminal, print, printJson, table, UsageError } from '../output.js';

const collect = (value: string, previous: string[]) => [...previous, value];

/** Polls the run until it ends, drawing progress on stderr. */
async function waitForRun(resources: Resources, runId: string, quiet: boolean): Promise<RunRow> {
  const started = Date.now();
  const tty = process.stderr.isTTY;
  let lastLine = '';
  for (;;) {
    const run = await findRun(resources.db, runId);
    if (!run) throw new Error(`run ${runId} disappeared`);
    const { done, total, current } = runProgress(run);
    if (!quiet) {
      const width = 30;
      const filled = Math.round((done / total) * width);
      const name = current ?? 'done';
      const note = run.status === 'waiting' ? ` — ${run.waiting_reason}` : '';
      const line = forTerminal(
        `[${'#'.repeat(filled)}${'.'.repeat(width - filled)}] step ${done}/${total} ${name} ${((Date.now() - started) / 1000).toFixed(1)}s${note}`,
      );
      if (tty) process.stderr.write(`\r${line.padEnd(lastLine.length)}`);
      else if (line.replace(/ [\d.]+s/, '') !== lastLine.replace(/ [\d.]+s/, '')) process.stderr.write(`${line}\n`);
      lastLine = line;
    }
    if (run.status === 'succeeded' || run.status === 'failed') {
      if (!quiet && tty) process.stderr.write('\n');
      return run;
    }
    await new Promise((r) => setTimeout(r, 200));
  }
}

async function ensureWorkers(services: Services): Promise<Pipeline | undefined> {
  if ((await services.queues.research.getWorkers()).length > 0) return undefined;
  process.stderr.write('No worker is running (npm start or the Procfile `worker`): running this research in this process.\n');
  return startWorkers(services);
}

/** The dry run for a person: the candidates, what step choose_primary measures, the category and the requests. */
function printDryRun(d: DryRun): void {
  print(
    `Dry run of "${d.idea}" (${d.geo || 'worldwide'}, providers ${d.providers.join(',')}, plan ${d.plan}): nothing asked, nothing started.`,
  );
  print(
    table(
      d.candidates.map((c, i) => ({
        '#': i + 1,
        phrase: c.phrase,
        prior: c.given ?? c.prior.toFixed(3),
        covers: `${Math.round(c.coverage * 100)}%`,
        subject: c.names_product ? 'yes' : '',
        measured: d.measure.includes(c.phrase) ? 'yes' : '',
      })),
    ),
  );
  print(
    `primary by prior: "${d.primary_by_prior}"; step choose_primary measures: ${d.measure.map((p) => `"${p}"`).join(', ') || 'nothing (operator keyword)'}`,
  );
  print(`in the simulated world step choose_primary chooses: "${d.simulated_primary}"`);
  print(
    `category from the idea alone: ${d.category.category}${d.category.matched.length ? ` (matched: ${d.category.matched.join(', ')})` : ''}`,
  );
  print(
    `requests the run would make: ${Object.values(d.request_kinds).reduce((a, b) => a + b, 0)} (${Object.entries(d.request_kinds)
      .map(([k, n]) => `${n} ${k}`)
      .join(', ')}); after step choose_primary they follow the simulated answers`,
  );
  print(
    table(
      d.requests.map((r) => ({
        step: `${r.number} ${r.step}`,
        kind: r.kind,
        terms: ((t) => (t.length > 70 ? `${t.slice(0, 69)}…` : t))(r.terms.join(' | ')),
        timeframe: r.timeframe ?? '',
        detail: [r.detail, r.same_as_step ? `same as step ${r.same_as_step}` : ''].filter(Boolean).join(', '),
      })),
    ),
  );
}

/** ", trace <id>" for a run submitted while traces were exported (the id to search the tracing backend for); "" otherwise. */
function traceNote(run: Pick<RunRow, 'trace_id'>): string {
  const traceId = traceIdOf(run.trace_id);
  return traceId ? `, trace ${traceId}` : '';
}

export function registerResearchCommands(program: Command, context: () => CliContext): void {
  program
    .command('research')
    .description(describeCommand('research'))
    .argument('<idea>', 'the idea, e.g. "AI meal planner for diabetics" (1–500 characters)')
    .option('--keyword <keyword>', 'a search phrase to use (repeatable; the first becomes the primary phrase)', collect, [])
    .option('--geo <market>', "the market: a country code (US), a region (US-CA), or '' for worldwide; default TRENDS_GEO")
    .option(
      '--account <id>',
      "research for this account (see: insights accounts list): the run is the account's, listed on its Research page, private to it, and spends one run of its daily allowance",
    )
    .option('--wait', 'wait for the run to finish, showing progress')
    .option(
      '--json',
      'print {"run_id","status","insight_id","score","trace_id"} (trace_id: null unless OTEL_EXPORTER_OTLP_ENDPOINT is set; with --dry-run: the dry run as one JSON object)',
    )
    .option(
      '--dry-run',
      'ask nothing and start nothing: print the candidate phrases, what step choose_primary would measure, the category and the requests',
    )
    .addHelpText(
      'after',
      `
Search data comes from TRENDS_PROVIDER (a list in order of preference, docs/providers.md):
  google      live Google Trends (default), rate limited through the trends queue
  replay      recorded real answers only; the recorded idea is "pizza" (anchor "bagel"):
              TRENDS_PROVIDER=replay insights research pizza --wait
  synthetic   generated data, for load tests; its insights have source "synthetic"
  dataforseo  DataForSEO's paid APIs (DATAFORSEO_LOGIN, DATAFORSEO_PASSWORD): Trends data,
              and monthly searches and cost per click; e.g. TRENDS_PROVIDER=google,dataforseo
  trends-api  Google's official Trends API (alpha, allow-listed projects; GOOGLE_APPLICATION_CREDENTIALS):
              series and regions; e.g. TRENDS_PROVIDER=trends-api,google for the related lists`,
    )
    .action(
      async (
        idea: string,
        options: { keyword: string[]; geo?: string; account?: string; wait?: boolean; json?: boolean; dryRun?: boolean },
      ) => {
        if (options.dryRun) {
          const { config } = context();
          // No Redis, no Postgres, no provider: the steps run in memory against the simulated world.
          if (options.wait) throw new UsageError('--dry-run starts no run, so there is nothing to --wait for');
          const geo = options.geo ?? config.trends.geo;
          const problem = marketProblem(geo);
          if (problem) throw new UsageError(problem);
          const result = await dryRun({
            idea,
            hints: options.keyword,
            geo,
            anchor: anchorTermFor(config.trends.provider, config.trends.anchor),
            providers: config.trends.providers,
            requestPlan: config.trends.requestPlan,
          }).catch((error: unknown) => {
            if (error instanceof InvalidIdeaError) throw new UsageError(`cannot research that: ${error.problem}`);
            throw error;
          });
          if (options.json) printJson(result);
          else printDryRun(result);
          return;
        }
        await withServices(context, async (services) => {
          const { resources } = services;
          let pipeline: Pipeline | undefined;
          try {
            // The service the API submits through: an operator's run is public and spends no allowance; one for
            // an account is the account's, as if it had asked (founder review, issue 47: a CLI run was on no
            // account's Research page). It always researches afresh, as the operator asked for a run.
            const who: Submitter = options.account
              ? await requireAccount(resources, options.account).then((a) => ({ accountId: a.id, plan: a.plan }))
              : { operator: true };
            const service = services.research;
            const submitted = await service
              .submit(who, {
                idea,
                hints: options.keyword,
                ...(options.geo !== undefined ? { geo: options.geo } : {}),
                ...(options.account ? { refresh: true } : {}),
              })
              .catch((error: unknown) => {
                if (error instanceof InvalidIdeaError) throw new UsageError(`cannot research that: ${error.problem}`);
                if (error instanceof NotAnswerableError) throw new UsageError(error.message);
                if (error instanceof ResearchAllowanceSpentError) throw new UsageError(error.message);
                throw error;
              });
            if (submitted.kind !== 'run') throw new Error('a submission that asks to research afresh always starts a run');
            const run = submitted.run;
            if (!options.wait) {
              if (options.json)
                printJson({ run_id: run.id, status: run.status, insight_id: null, score: null, trace_id: traceIdOf(run.trace_id) ?? null });
              else print(`Enqueued ${run.id} (provider ${run.provider})${traceNote(run)}. Follow it: insights runs show ${run.id}`);
              return;
            }
            if (!options.json) print(`Researching "${run.idea}" as ${run.id} (provider ${run.provider})${traceNote(run)}`);
            pipeline = await ensureWorkers(services);
            const finished = await waitForRun(resources, run.id, false);
            const insight = finished.insight_id ? await findInsight(resources.db, finished.insight_id) : undefined;
            if (options.json) {
              printJson({
                run_id: finished.id,
                status: finished.status,
                insight_id: finished.insight_id,
                score: insight?.overall_score ?? null,
                trace_id: traceIdOf(finished.trace_id) ?? null,
              });
            } else if (finished.status === 'succeeded' && insight) {
              const { label, source } = provenanceOf(insight);
              print(`${displayTitle(insight.title, insight)}: ${verdictOf(insight).text}`);
              print(`  data: ${source}${label ? ` (${label})` : ''}; data as of ${insight.data_as_of ?? 'unknown'}`);
              print(
                `Insight ${insight.id}: overall ${insight.overall_score.toFixed(3)} (confidence ${insight.confidence.toFixed(2)}), category ${insight.category}`,
              );
              for (const d of DIMENSIONS) {
                const dim = insight.dimensions[d];
                print(`  ${d.padEnd(11)} ${dim.score === null ? '  —  ' : dim.score.toFixed(3)}  ${dim.explanation}`);
              }
            }
            if (finished.status === 'failed') {
              // Google out of reach (no network, a blocked route): say how to try the service without it.
              const offline =
                finished.error !== null && failureKind(finished.error) === 'unreachable'
                  ? '\nGoogle Trends cannot be reached from here. To try the service without it, start it with TRENDS_PROVIDER=synthetic (a simulated world, labelled so everywhere); docs/providers.md lists the others.'
                  : '';
              throw new Error(
                `run ${finished.id} failed at step ${failedStepOf(finished)?.name ?? 'unknown'}: ${finished.error}${offline}`,
              );
            }
          } finally {
            // The workers this command started stop before the services they use (withServices closes those).
            await pipeline?.close();
          }
        });
      },
    );

  const runs = program.command('runs').description(describeCommand('runs'));

  runs
    .command('list')
    .description('The most recent runs')
    .option('--limit <n>', 'how many', '20')
    .action(async (options: { limit: string }) => {
      const limit = Number(options.limit);
      if (!Number.isInteger(limit) || limit < 1 || limit > 1000) throw new UsageError('--limit must be a whole number from 1 to 1000');
      await withResources(context, async (resources) => {
        const rows = await listRuns(resources.db, limit);
        print(
          table(
            rows.map((r) => ({
              id: r.id,
              status: r.status,
              step: (({ done, total }) => `${done}/${total}`)(runProgress(r)),
              provider: r.provider,
              insight: r.insight_id,
              idea: r.idea.length > 50 ? `${r.idea.slice(0, 49)}…` : r.idea,
              created: r.created_at.toISOString(),
            })),
          ),
        );
      });
    });

  runs
    .command('show')
    .description('A run and every step: status, attempts, duration, output summary, error')
    .argument('<id>', 'run id (run_…)')
    .option('--json', 'print the run and its steps as JSON')
    .action(async (id: string, options: { json?: boolean }) => {
      await withResources(context, async (resources) => {
        const run = await findRun(resources.db, id);
        if (!run) throw new UsageError(`No research run has the id "${id}" (see: insights runs list)`);
        const rows = await stepsOf(resources.db, id);
        if (options.json) {
          // The row as stored (its trace_id column holds the whole traceparent) and the trace id a tracing backend is searched by.
          printJson({ run, trace_id: traceIdOf(run.trace_id) ?? null, steps: rows });
          return;
        }
        print(`${run.id}  ${run.status}${run.waiting_reason ? ` (${run.waiting_reason})` : ''}  provider ${run.provider}${traceNote(run)}`);
        print(`idea: ${run.idea}`);
        if (run.discovery) print(`discovered: ${describeDiscovery(run.discovery)}`);
        if (run.insight_id) print(`insight: ${run.insight_id}`);
        if (run.error) print(`error at step ${failedStepOf(run)?.name ?? 'unknown'}: ${run.error}`);
        print(
          table(
            // The steps as the API shows them, their errors as recorded (an operator's view).
            runStepViews(run, rows, 'operator').map((s) => ({
              '#': s.step,
              step: s.name,
              status: s.status,
              attempts: s.attempts,
              ms: s.duration_ms ?? '',
              summary: (s.error ?? s.summary ?? '').slice(0, 90),
            })),
          ),
        );
      });
    });

  runs
    .command('retry')
    .description('Resume a failed run at its first unfinished step')
    .argument('<id>', 'run id (run_…)')
    .action(async (id: string) => {
      await withServices(context, async ({ resources, stepQueue }) => {
        const run = await findRun(resources.db, id);
        if (!run) throw new UsageError(`No research run has the id "${id}" (see: insights runs list)`);
        const step = await reopenRun(resources.db, id);
        if (step === undefined) throw new UsageError(`${id} is ${run.status}, not failed: nothing to retry`);
        await stepQueue.enqueueStep(id, step);
        const { total, current } = runProgress({ ...run, status: 'queued', next_step: step });
        print(`Resumed ${id} at step ${step} of ${total} (${current ?? 'unknown'}).`);
      });
    });
}
