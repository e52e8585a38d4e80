// Child process of bench:api: the load generator (autocannon), on its own.
// Measured: run inside the benchmark's main process, after that process had
// built the 3-million-row database, the same server showed list p99 18–21 ms
// where a fresh process measured 8–9 ms against the same database; the
// orchestrator's state was inflating the numbers it reported. A clean process
// per benchmark run measures the servers, not the harness.
import autocannon from 'autocannon';

export interface LoadRequest {
  base: string;
  /** A path; `:id` is replaced by a random one of `ids` on every request. */
  path: string;
  ids: string[];
  headers: Record<string, string>;
  seconds: number;
  connections: number;
}

export interface LoadResult {
  /**
   * Answers with a 2xx status per second. A server shedding load answers 503 at once, so counting
   * every answer (autocannon's requests.average) rewarded shedding: on a loaded machine (2026-11-28)
   * a tenth of our list's answers were not 2xx, and counted as served.
   */
  rps: number;
  /** Every answer per second, 2xx or not (what `rps` counted before 2026-11-28). */
  answeredRps: number;
  p50: number;
  p99: number;
  non2xx: number;
  /** Answers by status code ("200": 9000, "503": 120). */
  statuses: Record<string, number>;
  errors: number;
}

process.on('message', (request: LoadRequest) => {
  const pick = () => request.path.replace(':id', request.ids[Math.floor(Math.random() * request.ids.length)]!);
  const fixed = !request.path.includes(':id');
  void autocannon({
    url: request.base,
    connections: request.connections,
    duration: request.seconds,
    headers: request.headers,
    requests: [{ setupRequest: (req) => ({ ...req, path: fixed ? request.path : pick() }) }],
  }).then((result) => {
    const answer: LoadResult = {
      rps: result['2xx'] / result.duration,
      answeredRps: result.requests.average,
      p50: result.latency.p50,
      p99: result.latency.p99,
      // Which statuses, when any are not 2xx (503: shed under load; 429: a quota).
      non2xx: result.non2xx,
      statuses: Object.fromEntries(Object.entries(result.statusCodeStats ?? {}).map(([code, stat]) => [code, stat.count ?? 0])),
      errors: result.errors + result.timeouts,
    };
    process.send?.(answer);
  });
});
process.on('disconnect', () => process.exit(0));
