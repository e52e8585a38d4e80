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
  rps: number;
  p50: number;
  p99: number;
  non2xx: number;
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
      rps: result.requests.average,
      p50: result.latency.p50,
      p99: result.latency.p99,
      non2xx: result.non2xx,
      errors: result.errors + result.timeouts,
    };
    process.send?.(answer);
  });
});
process.on('disconnect', () => process.exit(0));
