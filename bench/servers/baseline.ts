// Child process of bench:api: the bare baseline. Plain node:http + pg running
// the very SQL our repositories build (compiled by kysely, executed raw), with
// no auth, no quota, no cache, no schema serialisation.
import http from 'node:http';
import pg from 'pg';
import { createDb } from '../../src/db/connection.js';
import { buildListQuery, findInsightQuery } from '../../src/insights/insight.repository.js';
import { latestTrendPointsQuery } from '../../src/insights/trend-point.repository.js';

const url = process.argv[2]!;
const db = createDb(url); // used only to compile SQL
const pool = new pg.Pool({ connectionString: url, max: 10 });

async function handle(req: http.IncomingMessage, res: http.ServerResponse): Promise<void> {
  try {
    const u = new URL(req.url ?? '/', 'http://x');
    const parts = u.pathname.split('/').filter(Boolean); // api, insights, id?, trend-data?
    let compiled;
    let shape: 'list' | 'one' | 'points';
    if (parts.length === 2) {
      compiled = buildListQuery(db, {
        limit: Number(u.searchParams.get('limit') ?? 20),
        minScore: u.searchParams.has('min_score') ? Number(u.searchParams.get('min_score')) : undefined,
        sort: 'score',
      }).compile();
      shape = 'list';
    } else if (parts.length === 3) {
      compiled = findInsightQuery(db, parts[2]!).compile();
      shape = 'one';
    } else {
      compiled = latestTrendPointsQuery(db, parts[2]!, 30).compile();
      shape = 'points';
    }
    const { rows } = await pool.query(compiled.sql, compiled.parameters as unknown[]);
    const body =
      shape === 'list'
        ? { data: rows.slice(0, Number(u.searchParams.get('limit') ?? 20)), next_cursor: null }
        : shape === 'one'
          ? rows[0]
          : { data: rows.reverse(), next_cursor: null };
    res.writeHead(body ? 200 : 404, { 'content-type': 'application/json' });
    res.end(JSON.stringify(body ?? {}));
  } catch (error) {
    res.writeHead(500);
    res.end(String(error));
  }
}
// handle() catches everything it can throw; the void says nothing is left to await.
const server = http.createServer((req, res) => void handle(req, res));
server.listen(0, '127.0.0.1', () => {
  const address = server.address();
  process.send?.({ url: `http://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}` });
});
process.on('disconnect', () => {
  server.close();
  void pool
    .end()
    .then(() => db.destroy())
    .then(() => process.exit(0));
});
