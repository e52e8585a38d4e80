import type { Command } from 'commander';
import { textSparkline } from '../../domain/charts/insight-chart.js';
import { displayTitle } from '../../domain/provenance.js';
import { providerWords } from '../../domain/reports/insight-report.js';
import { DIMENSIONS } from '../../domain/scoring/dimensions.js';
import { findForecast } from '../../insights/forecast.repository.js';
import { findInsight } from '../../insights/insight.repository.js';
import { latestTrendPoints } from '../../insights/trend-point.repository.js';
import type { CliContext } from '../context.js';
import { describeCommand } from '../command-index.js';
import { withResources } from '../resources.js';
import { print, UsageError } from '../output.js';

export function registerShowCommand(program: Command, context: () => CliContext): void {
  program
    .command('show')
    .description(describeCommand('show'))
    .argument('<id>', 'insight id (ins_…)')
    .action(async (id: string) => {
      await withResources(context, async (resources) => {
        const insight = await findInsight(resources.db, id);
        if (!insight) throw new UsageError(`No insight has the id "${id}" (see GET /api/insights)`);
        const points = await latestTrendPoints(resources.db, id, 30);
        const forecast = await findForecast(resources.db, id);
        // Simulated or recorded data says so here as on every other surface (issue 47: provenance no one can miss).
        print(`${displayTitle(insight.title, insight)}  [${insight.category}, ${insight.source}]`);
        print(`provider ${providerWords(insight)}  data as of ${insight.data_as_of ?? 'unknown'}`);
        print(`overall ${insight.overall_score.toFixed(3)}  confidence ${insight.confidence.toFixed(2)}`);
        for (const d of DIMENSIONS) {
          const dim = insight.dimensions[d];
          print(
            `  ${d.padEnd(11)} ${dim.score === null ? '  —  ' : dim.score.toFixed(3)}  ${dim.explanation}${dim.experimental ? ' (experimental: not validated yet, weighted at half)' : ''}`,
          );
        }
        // Absolute demand, when a provider of search volume answered (docs/providers.md).
        for (const k of insight.search_volume?.keywords ?? []) {
          const figures =
            k.monthly_searches === null
              ? 'too little data in Google Ads'
              : `${k.monthly_searches.toLocaleString('en-US')} searches a month${k.cpc_usd !== null ? `, $${k.cpc_usd.toFixed(2)} a click` : ''}${k.competition ? `, ${k.competition.toLowerCase()} competition` : ''}`;
          print(`volume   "${k.keyword}" in ${insight.search_volume!.location}: ${figures} (${insight.search_volume!.provider})`);
        }
        if (points.length > 0) {
          const values = points.map((p) => p.value);
          print(
            `series   ${textSparkline(values)}  ${points[0]!.date} … ${points.at(-1)!.date}  (min ${Math.min(...values)}, max ${Math.max(...values)})`,
          );
        } else {
          print('series   (none yet)');
        }
        if (!forecast) print('forecast (none yet)');
        else if (forecast.withheld) print(`forecast withheld: ${forecast.reason}`);
        else {
          const fc = forecast.points as Array<{ date: string; value: number; lower_80: number; upper_80: number }>;
          print(
            `forecast ${textSparkline(fc.map((p) => p.value))}  ${fc[0]!.date} … ${fc.at(-1)!.date}  (${forecast.model}; 80% band ${Math.min(...fc.map((p) => p.lower_80))}–${Math.max(...fc.map((p) => p.upper_80))}; backtest MASE ${forecast.backtest?.mase ?? '–'})`,
          );
        }
      });
    });
}
