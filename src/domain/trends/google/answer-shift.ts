// When Google changes what it serves, it does so for a kind of request at a
// time (related lists went empty on 2024-08-20, dailytrends went 404 on
// 2025-02-23) and without notice. This watches, per kind, the share of answers
// that are not served data (empty, no data, changed shape) and says when it
// jumps.
//
// "Jumps" means: over the last RECENT answers of a kind, that share is at least
// JUMP higher (in absolute terms) than over the BASELINE answers before them,
// both windows full enough to say (RECENT answers, and MIN_BASELINE before
// them). It is said once; it can be said again for that kind only after the
// recent share has come back within JUMP / 2 of the baseline. A kind that is
// always empty (related lists today) has a baseline of 1 and never jumps; one
// that goes from 5 % to 40 % empty does.

export const SHIFT_WINDOWS = { recent: 20, baseline: 200, minBaseline: 20, jump: 0.3 } as const;

/** Outcomes that are not data served: the ones whose share is watched. */
const UNSERVED = new Set(['empty', 'no_data', 'changed_shape']);
/** Outcomes that say nothing about what Google serves (no answer, a block): not counted at all. */
const NOT_AN_ANSWER = new Set(['blocked', 'over_quota', 'error']);

export interface AnswerShift {
  kind: string;
  /** Share of empty, no-data and changed answers in the recent window (0–1). */
  recentShare: number;
  baselineShare: number;
  recent: number;
  baseline: number;
}

interface KindHistory {
  /** 1 for an unserved answer, 0 for a served one; oldest first, at most recent + baseline. */
  answers: number[];
  warned: boolean;
}

export class AnswerShiftWatch {
  private readonly kinds = new Map<string, KindHistory>();

  constructor(private readonly windows: { recent: number; baseline: number; minBaseline: number; jump: number } = SHIFT_WINDOWS) {}

  /** Records one answer; returns the shift when this answer makes the kind's share jump. */
  record(kind: string, outcome: string): AnswerShift | undefined {
    if (NOT_AN_ANSWER.has(outcome)) return undefined;
    let history = this.kinds.get(kind);
    if (!history) this.kinds.set(kind, (history = { answers: [], warned: false }));
    history.answers.push(UNSERVED.has(outcome) ? 1 : 0);
    const { recent, baseline, minBaseline, jump } = this.windows;
    if (history.answers.length > recent + baseline) history.answers.shift();
    const recentAnswers = history.answers.slice(-recent);
    const baselineAnswers = history.answers.slice(0, -recent);
    if (recentAnswers.length < recent || baselineAnswers.length < minBaseline) return undefined;
    const share = (xs: number[]) => xs.reduce((a, b) => a + b, 0) / xs.length;
    const shift = {
      kind,
      recentShare: share(recentAnswers),
      baselineShare: share(baselineAnswers),
      recent: recentAnswers.length,
      baseline: baselineAnswers.length,
    };
    if (history.warned) {
      if (shift.recentShare - shift.baselineShare < jump / 2) history.warned = false;
      return undefined;
    }
    if (shift.recentShare - shift.baselineShare < jump) return undefined;
    history.warned = true;
    return shift;
  }
}
