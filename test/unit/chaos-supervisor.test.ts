// The chaos soak's judgement of a process that exits on its own (issue 54):
// a supervisor's restart during an outage is not a crash only if the process
// refused with an exit code, its slot was ready again, and nothing was lost.
import { describe, expect, it } from 'vitest';
import { judgeExits, type UnexpectedExit } from '../../scripts/chaos/supervisor.js';

const outage = { from: 1_000, to: 5_000 };

function exit(overrides: Partial<Omit<UnexpectedExit, 'recovered'>> & { recovered?: boolean } = {}): UnexpectedExit {
  const { recovered = true, ...rest } = overrides;
  return {
    process: 'worker-1',
    code: 1,
    signal: null,
    tail: ['Redis is not reachable at cluster … (timed out)'],
    at: 2_000,
    afterReady: false,
    recovered: () => recovered,
    ...rest,
  };
}

describe('judgeExits', () => {
  it('excuses a refusal (exit 1) during an outage whose slot was ready again, with nothing lost', () => {
    const { excused, crashes } = judgeExits([exit()], [outage], true);
    expect(crashes).toEqual([]);
    expect(excused).toHaveLength(1);
    expect(excused[0]).toContain('worker-1');
  });

  it('counts the same exit as a crash when work was lost', () => {
    const { excused, crashes } = judgeExits([exit()], [outage], false);
    expect(excused).toEqual([]);
    expect(crashes[0]).toContain('work was lost or left undone');
  });

  it('counts it as a crash when its slot never became ready again', () => {
    const { crashes } = judgeExits([exit({ recovered: false })], [outage], true);
    expect(crashes[0]).toContain('never ready again');
  });

  it('counts an exit outside every outage as a crash', () => {
    const { crashes } = judgeExits([exit({ at: 9_000 })], [outage], true);
    expect(crashes[0]).toContain('no Postgres or Redis fault was under way');
  });

  it('counts a death by signal, or an exit 0 nobody asked for, as a crash even during an outage', () => {
    const { excused, crashes } = judgeExits([exit({ code: null, signal: 'SIGSEGV' }), exit({ code: 0 })], [outage], true);
    expect(excused).toEqual([]);
    expect(crashes).toHaveLength(2);
    for (const line of crashes) expect(line).toContain('not a refusal with an exit code');
  });
});
