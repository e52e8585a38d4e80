// Research runs submitted through POST /api/research-runs while the faults
// land, as a careful API client does: each with an Idempotency-Key, sent again
// (same key, same body, to whichever web process is up) until it gets an
// answer it need not retry. The soak then checks that every accepted run
// completed (none lost), each idea made exactly one run (none run twice, the
// retries included), and no submission got a 500.
import type { Db } from '../../src/db/connection.js';
import type { Slot } from './supervisor.js';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
/** How long a client keeps retrying one submission through the faults. */
const RETRY_FOR_MS = 150_000;
const RETRYABLE = new Set([408, 429, 502, 503, 504]);

export interface SubmitterStats {
  requests: number;
  status: Record<string, number>;
  transportErrors: number;
  accepted: number;
  replayed: number;
  unanswered: string[];
  unexpected: string[];
}

export function researchSubmitter(webs: () => Slot[], key: string, seed: number, random: () => number) {
  const stats: SubmitterStats = { requests: 0, status: {}, transportErrors: 0, accepted: 0, replayed: 0, unanswered: [], unexpected: [] };
  const accepted = new Map<string, string>(); // idea → run id

  /** Submits one idea until answered; the run id, or undefined (said in stats). */
  const submit = async (idea: string, serial: number): Promise<string | undefined> => {
    const idempotencyKey = `chaos-research-${seed}-${serial}`;
    const deadline = Date.now() + RETRY_FOR_MS;
    while (Date.now() < deadline) {
      const live = webs().filter((s) => s.process.running && s.env.PORT);
      const web = live[Math.floor(random() * live.length)];
      if (!web) {
        await sleep(100);
        continue;
      }
      try {
        const res = await fetch(`http://127.0.0.1:${web.env.PORT}/api/research-runs`, {
          method: 'POST',
          headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json', 'idempotency-key': idempotencyKey },
          // Public: its insight is announced to the soak's (operator) subscriptions like every other.
          body: JSON.stringify({ idea, visibility: 'public' }),
          signal: AbortSignal.timeout(20_000),
        });
        const text = await res.text();
        stats.requests += 1;
        stats.status[res.status] = (stats.status[res.status] ?? 0) + 1;
        if (res.status === 202) {
          const id = (JSON.parse(text) as { data: { id: string } }).data.id;
          stats.accepted += 1;
          if (res.headers.get('idempotent-replayed') === 'true') stats.replayed += 1;
          accepted.set(idea, id);
          return id;
        }
        if (!RETRYABLE.has(res.status)) {
          stats.unexpected.push(`"${idea}": ${res.status} ${text.slice(0, 200)}`);
          return undefined;
        }
      } catch {
        // Killed mid-request, or no answer in time: the same request again.
        stats.transportErrors += 1;
      }
      await sleep(200 + Math.floor(random() * 300));
    }
    stats.unanswered.push(idea);
    return undefined;
  };

  /** What the answers promised, against Postgres once the work has settled. */
  const check = async (db: Db): Promise<string[]> => {
    const violations: string[] = [];
    for (const idea of stats.unanswered) violations.push(`the submission of "${idea}" got no answer in ${RETRY_FOR_MS / 1000} s`);
    for (const line of stats.unexpected) violations.push(`a submission was answered ${line}`);
    const runs = await db.selectFrom('research_runs').select(['id', 'idea', 'status', 'error']).where('started_by', '=', 'api').execute();
    for (const [idea, id] of accepted) {
      const mine = runs.filter((r) => r.idea === idea);
      if (mine.length !== 1) violations.push(`"${idea}" made ${mine.length} runs through the API, not 1`);
      const run = mine.find((r) => r.id === id);
      if (!run) violations.push(`the accepted run ${id} of "${idea}" was lost`);
      else if (run.status !== 'succeeded' && !(run.status === 'failed' && run.error)) {
        violations.push(`the accepted run ${id} ended ${run.status}${run.error ? '' : ' without a reason'}`);
      }
    }
    return violations;
  };

  return { submit, check, stats, accepted };
}
