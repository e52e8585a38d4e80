// One HTTPS exchange with Google Trends over a route's agent: the request goes out as the session built it
// (a GET, or the Trending Now RPC's form POST), and the answer comes back whole, with the few headers the
// session reads (its NID cookie, a redirect, Retry-After). Kept apart from the session (client.ts), which
// decides what to send and what an answer means.
import type https from 'node:https';
import { request as httpsRequest } from 'node:https';
import { traceRequest } from '../../observability/tracing.js';
import { MalformedResponseError } from '../contract.js';
import type { RawAnswer } from './exchange.js';

export const GOOGLE_HOST = 'trends.google.com';
/** No page or answer of Google Trends comes near this; a larger one is not Google's and is cut off. */
const MAX_ANSWER_BYTES = 5 * 1024 * 1024;

/** One HTTPS request over a route's agent: a GET, or a form POST; read whole up to MAX_ANSWER_BYTES. */
export function exchangeOverHttps(agent: https.Agent, path: string, headers: Record<string, string>, form?: string): Promise<RawAnswer> {
  return new Promise<RawAnswer>((resolve, reject) => {
    const method = form === undefined ? 'GET' : 'POST';
    const req = httpsRequest({ host: GOOGLE_HOST, path, method, agent, headers }, (res) => {
      const chunks: Buffer[] = [];
      let size = 0;
      res.on('data', (chunk: Buffer) => {
        size += chunk.length;
        if (size > MAX_ANSWER_BYTES)
          return req.destroy(new MalformedResponseError(`Google Trends answered more than ${MAX_ANSWER_BYTES} bytes`));
        chunks.push(chunk);
      });
      res.once('end', () => {
        const nid = res.headers['set-cookie']?.map((c) => c.split(';')[0]!.trim()).find((c) => c.startsWith('NID='));
        const retryAfter = res.headers['retry-after'];
        resolve({
          status: res.statusCode ?? 0,
          body: Buffer.concat(chunks).toString('utf8'),
          ...(nid ? { nid } : {}),
          ...(res.headers.location ? { location: res.headers.location } : {}),
          ...(typeof retryAfter === 'string' ? { retryAfter } : {}),
        });
      });
      res.once('error', reject);
    });
    traceRequest(req, GOOGLE_HOST);
    req.once('error', reject);
    req.end(form);
  });
}
