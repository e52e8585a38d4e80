// The one exchange DataForSEO's client and the Trends API's share (src/providers/bounded-exchange.ts):
// an answer larger than its bound is refused as not the provider's answer, whether its length is declared
// up front or it streams without end, and the server's connection is let go; an answer within the bound is
// read whole; a provider that never answers is a wait, not data. Both clients are shown to go through it.
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { boundedExchange, MAX_ANSWER_BYTES } from '../../src/providers/bounded-exchange.js';
import { postTask } from '../../src/providers/dataforseo/client.js';
import { serviceAccountFrom } from '../../src/providers/trends-api/auth.js';
import { TrendsApiClient } from '../../src/providers/trends-api/client.js';
import { MalformedResponseError, ProviderUnavailableError } from '../../src/providers/contract.js';
import { startTrendsApiOnLoopback, type TrendsApiOnLoopback } from '../../scripts/lib/trends-api-on-loopback/index.js';

const CHUNK = Buffer.alloc(64 * 1024, 'x');

/** How each path answers: a declared length over the bound, an endless stream, a small JSON body, or nothing at all. */
let server: http.Server;
let base: string;
/** Resolves each time the server sees a connection of the endless stream close: the client let it go. */
let streamClosed: Array<() => void> = [];
let trendsApi: TrendsApiOnLoopback;

beforeAll(async () => {
  server = http.createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      if (req.url === '/declared') {
        res.writeHead(200, { 'content-type': 'application/json', 'content-length': String(MAX_ANSWER_BYTES + 1) });
        res.write(CHUNK); // the rest never comes: the client must not wait for it
      } else if (req.url?.startsWith('/endless')) {
        res.writeHead(200, { 'content-type': 'application/json' });
        const more = () => {
          while (!res.destroyed && res.write(CHUNK));
          if (!res.destroyed) res.once('drain', more);
        };
        res.on('close', () => streamClosed.shift()?.());
        more();
      } else if (req.url === '/small') {
        res.writeHead(200, { 'content-type': 'application/json' }).end('{"ok":true}');
      }
      // '/silent': no answer at all.
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  trendsApi = await startTrendsApiOnLoopback();
});
afterAll(async () => {
  server.closeAllConnections();
  await new Promise((resolve) => server.close(resolve));
  await trendsApi?.stop();
});

const ask = (path: string, options: { maxBytes?: number; timeoutMs?: number } = {}) =>
  boundedExchange({
    provider: 'the loopback API',
    what: 'a test question',
    method: 'GET',
    url: new URL(`${base}${path}`),
    headers: {},
    timeoutMs: options.timeoutMs ?? 60_000,
    ...(options.maxBytes === undefined ? {} : { maxBytes: options.maxBytes }),
  });

describe('one bounded exchange with a provider', () => {
  it('refuses an answer whose declared length is over the bound, without waiting for its body', async () => {
    await expect(ask('/declared')).rejects.toThrow(MalformedResponseError);
    await expect(ask('/declared')).rejects.toThrow(`the loopback API answered a test question with more than ${MAX_ANSWER_BYTES} bytes`);
  });

  it('refuses an answer that streams without end once it passes the bound, and lets the connection go', async () => {
    const closed = new Promise<void>((resolve) => streamClosed.push(resolve));
    await expect(ask('/endless', { maxBytes: 1024 * 1024 })).rejects.toThrow(/with more than 1048576 bytes/);
    await closed; // the server saw its connection closed: nothing is still being read
  });

  it('reads an answer within the bound whole', async () => {
    expect(await ask('/small')).toEqual({ status: 200, text: '{"ok":true}' });
    // The bound is on the body: exactly its size passes, one byte less does not.
    expect((await ask('/small', { maxBytes: 11 })).text).toBe('{"ok":true}');
    await expect(ask('/small', { maxBytes: 10 })).rejects.toThrow(MalformedResponseError);
  });

  it('makes a provider that never answers a wait (ProviderUnavailableError), not data', async () => {
    await expect(ask('/silent', { timeoutMs: 200 })).rejects.toThrow(ProviderUnavailableError);
  });

  it("DataForSEO's client goes through it: an endless answer is refused as malformed, not read", async () => {
    const closed = new Promise<void>((resolve) => streamClosed.push(resolve));
    const settings = { login: 'me', password: 'pw', apiUrl: `${base}/endless`, requestTimeoutMs: 60_000 };
    await expect(postTask(settings, '/v3/keywords_data/google_trends/explore/live', {}, 'a test task')).rejects.toThrow(
      new MalformedResponseError(`DataForSEO answered a test task with more than ${MAX_ANSWER_BYTES} bytes`),
    );
    await closed;
  });

  it("the Trends API's client goes through it: an endless answer is refused as malformed, not read", async () => {
    const closed = new Promise<void>((resolve) => streamClosed.push(resolve));
    const account = await serviceAccountFrom(trendsApi.env.GOOGLE_APPLICATION_CREDENTIALS!, trendsApi.tokenUrl);
    const client = new TrendsApiClient({ apiUrl: `${base}/endless`, project: 'p', requestTimeoutMs: 60_000, pollMs: 10 }, account);
    await expect(client.ask('fetchTimeSeries', {}, 'a test series')).rejects.toThrow(
      new MalformedResponseError(`the Google Trends API answered a test series with more than ${MAX_ANSWER_BYTES} bytes`),
    );
    await closed;
  });
});
