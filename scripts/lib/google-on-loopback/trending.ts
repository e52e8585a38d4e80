// The loopback Google's other two roads to the trending searches, from the
// same simulated world as its RSS feed (server.ts), so a test can break one
// road and see the next serve the same searches:
//
// - The Trending Now RPC: POST /_/TrendsUi/data/batchexecute?rpcids=i0OFE
//   with f.req=[[["i0OFE","[null,null,\"US\",0,\"en\",24,1]",null,"generic"]]]
//   answers `)]}'` and length-prefixed JSON chunks, the first holding
//   ["wrb.fr","i0OFE","<payload>",null,null,null,"generic"], the payload's
//   element 1 the trends, each [search, null, geo, [start seconds], null, null,
//   volume, null, rise %, [searches it groups], [category ids], [news ids]]
//   (peers' clients of it: see src/providers/google/trending.ts). Broken, it
//   answers as Google did for every country from 2026-11-09 (an actor's
//   changelog): 200 with the envelope's payload null and a status at [5].
// - The /trending page, its data block `AF_initDataCallback({key: 'ds:0', …,
//   data: <the same payload>, sideChannel: {}})` (a shape chosen, see
//   trending.ts), setting an NID cookie as Google's /trending does (gtrends,
//   2026-09-09). Broken, it answers 500.
//
// `brokenTrending.rss` makes the RSS feed answer 500 (issue 51: for weeks in
// late 2026); a changed shape is a canned answer (LoopbackGoogle.answerWith).
import type { IncomingMessage } from 'node:http';
import type { SimulatedWorld } from './world.js';

/** Which trending roads are broken, and how each breaks. */
export interface BrokenTrending {
  /** The RSS feed answers 500. */
  rss?: boolean;
  /** The RPC answers Google's error envelope (200, payload null). */
  rpc?: boolean;
  /** The /trending page answers 500. */
  page?: boolean;
}

type Reply = (status: number, body: string, headers: Record<string, string>) => void;

const SERVER_ERROR =
  '<!DOCTYPE html><html lang=en><meta charset=utf-8><title>Error 500 (Server Error)!!1</title><p><b>500.</b> <ins>That’s an error.</ins><p>There was an error. Please try again later. <ins>That’s all we know.</ins>';
const html = { 'content-type': 'text/html; charset=UTF-8' };

/** "10K+" → 10000: the feed's bucket as the RPC's number. */
function volumeOf(bucket: string): number {
  const match = /^([\d.]+)\s*([KM]?)\+?$/i.exec(bucket.trim());
  if (!match) return 0;
  const scale = match[2]?.toUpperCase() === 'M' ? 1e6 : match[2]?.toUpperCase() === 'K' ? 1e3 : 1;
  return Math.round(Number(match[1]) * scale);
}

/** The ListTrends payload for `geo` today: the RSS feed's searches, in the RPC's arrays. */
function listTrends(world: SimulatedWorld, geo: string): unknown[] {
  const date = new Date().toISOString().slice(0, 10);
  const trends = world
    .trending(geo, date)
    .map((item, i) => [
      item.query,
      null,
      geo,
      [Math.floor(Date.parse(item.pubDate) / 1000)],
      null,
      null,
      volumeOf(item.approxTraffic),
      null,
      100 * (i + 2),
      [item.query, `${item.query} near me`],
      [18],
      item.news.map((_, n) => [`article-${i}-${n}`, 0, 1]),
    ]);
  return [null, trends];
}

/** The RPC's answer (rt=c): each chunk a length line and a JSON line. */
function chunked(envelope: unknown[]): string {
  const chunk = (json: unknown) => {
    const text = JSON.stringify(json);
    return `${text.length}\n${text}\n`;
  };
  return `)]}'\n\n${chunk([envelope, ['di', 42], ['af.httprm', 41, '-4242424242424242424', 1]])}${chunk([['e', 4, null, null, 512]])}`;
}

function readBody(req: IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    req.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size > 64 * 1024) return req.destroy(new Error('request body too large'));
      chunks.push(chunk);
    });
    req.once('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
    req.once('error', reject);
  });
}

/** The country the RPC was asked for, from its f.req; undefined when the request is not the RPC's. */
function rpcGeo(form: string): string | undefined {
  try {
    const freq = JSON.parse(new URLSearchParams(form).get('f.req') ?? '') as unknown;
    const call = Array.isArray(freq) && Array.isArray(freq[0]) && Array.isArray(freq[0][0]) ? (freq[0][0] as unknown[]) : [];
    if (call[0] !== 'i0OFE' || typeof call[1] !== 'string') return undefined;
    const inner = JSON.parse(call[1]) as unknown[];
    return typeof inner[2] === 'string' && /^[A-Z]{2}$/.test(inner[2]) ? inner[2] : undefined;
  } catch {
    return undefined;
  }
}

/** The RSS feed as broken as asked, or undefined to serve it. */
export function brokenFeed(broken: BrokenTrending | undefined): { status: number; body: string } | undefined {
  return broken?.rss ? { status: 500, body: SERVER_ERROR } : undefined;
}

/** Answers the RPC or the /trending page. */
export async function answerTrending(
  kind: 'trending_rpc' | 'trending_page',
  req: IncomingMessage,
  url: URL,
  world: SimulatedWorld,
  broken: BrokenTrending | undefined,
  setCookie: () => string,
  reply: Reply,
): Promise<void> {
  if (kind === 'trending_page') {
    if (req.method !== 'GET') return reply(405, SERVER_ERROR, html);
    if (broken?.page) return reply(500, SERVER_ERROR, html);
    const geo = (url.searchParams.get('geo') ?? 'US').toUpperCase();
    if (!/^[A-Z]{2}$/.test(geo)) return reply(400, SERVER_ERROR, html);
    const data = JSON.stringify(listTrends(world, geo));
    const page = `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Trending now - Google Trends</title></head><body><c-wiz></c-wiz>
<script nonce="x">AF_initDataCallback({key: 'ds:0', hash: '1', data:${data}, sideChannel: {}});</script>
</body></html>`;
    return reply(200, page, { ...html, 'set-cookie': setCookie() });
  }
  if (req.method !== 'POST' || url.searchParams.get('rpcids') !== 'i0OFE') return reply(400, SERVER_ERROR, html);
  const geo = rpcGeo(await readBody(req));
  if (geo === undefined) return reply(400, SERVER_ERROR, html);
  const json = { 'content-type': 'application/json; charset=utf-8' };
  if (broken?.rpc) return reply(200, chunked(['wrb.fr', 'i0OFE', null, null, null, [3], 'generic']), json);
  return reply(200, chunked(['wrb.fr', 'i0OFE', JSON.stringify(listTrends(world, geo)), null, null, null, 'generic']), json);
}
