import { AnswerShiftWatch } from '../domain/trends/google/answer-shift.js';
import type { Logger } from '../logger.js';
import { googleAnswers, googleAnswerSeconds, googleHttpsByFamily, googleUserTypes } from '../observability/metrics.js';
import { currentSpendPurpose } from '../observability/trends-purpose.js';
import type { ExchangeObserver } from '../providers/google/client.js';
import { COUNTED_FAMILY_OF } from '../providers/google/families.js';

/**
 * Counts every exchange with Google per kind and outcome, and per endpoint
 * family and purpose (/metrics), and warns
 * when a kind's share of empty, no-data or changed answers jumps (see
 * domain/trends/google/answer-shift.ts): the first sign that Google changed again.
 */
export function watchGoogleAnswers(logger: Logger): ExchangeObserver {
  const watch = new AnswerShiftWatch();
  return (report) => {
    googleAnswers.inc({ kind: report.kind, outcome: report.outcome });
    googleHttpsByFamily.inc({ family: COUNTED_FAMILY_OF[report.kind], purpose: currentSpendPurpose() });
    googleAnswerSeconds.observe({ kind: report.kind }, report.ms / 1000);
    if (report.userType && (report.kind === 'explore' || report.kind === 'embed_page'))
      googleUserTypes.inc({ route: report.route, user_type: report.userType });
    const shift = watch.record(report.kind, report.outcome);
    if (shift) {
      const spacedPercent = (x: number) => `${Math.round(x * 100)} %`;
      logger.warn(
        {
          kind: shift.kind,
          recentShare: shift.recentShare,
          baselineShare: shift.baselineShare,
          recent: shift.recent,
          baseline: shift.baseline,
          route: report.route,
        },
        `Google's answers to ${shift.kind} changed: ${spacedPercent(shift.recentShare)} of the last ${shift.recent} were empty, without data or in an unknown shape, against ${spacedPercent(shift.baselineShare)} of the ${shift.baseline} before. Google may have changed what it serves: run \`insights google check\``,
      );
    }
  };
}
