// One HTTP(S) exchange with a provider's JSON API, bounded in time and in size: the request goes out, and
// the answer's body comes back whole as text within one deadline for the whole exchange (the body
// included) and up to a number of bytes. A provider's client (DataForSEO's, the Trends API's) decides what
// to send and what the answer means; this says only whether one came, and how it was cut off if not.
// Without the size bound, an endpoint that streams without end (a misconfigured URL, a proxy's error page
// looping, a hostile host) would be held in memory until the deadline.
import http from 'node:http';
import https from 'node:https';
import { traceRequest } from '../observability/tracing.js';
import { MalformedResponseError, ProviderUnavailableError } from './contract.js';

/** No answer DataForSEO or the Trends API documents comes near this (a 5-year daily series is under 200 KB). */
export const MAX_ANSWER_BYTES = 8 * 1024 * 1024;

export interface ExchangeRequest {
  /** Who is asked, as a person reads it in the errors: "DataForSEO", "the Google Trends API". */
  provider: string;
  /** What is asked, as a person reads it in the errors. */
  what: string;
  method: 'GET' | 'POST';
  url: URL;
  headers: Record<string, string>;
  /** Sent as is; its content-length is added. */
  body?: string;
  /** The whole exchange's deadline: connecting, sending, and reading the answer's body. */
  timeoutMs: number;
  /** Extra certificate authority to trust (tests: a loopback provider's). */
  ca?: string;
  /** The most the answer's body may hold; more is refused as not the provider's answer. MAX_ANSWER_BYTES if unset. */
  maxBytes?: number;
}

export interface ExchangeAnswer {
  status: number;
  text: string;
}

/**
 * Sends the request and reads the answer whole. Throws ProviderUnavailableError when the provider cannot be
 * reached, goes quiet or misses the deadline (asked again later), and MalformedResponseError when the answer is
 * larger than `maxBytes` (its declared length or what arrived), which retrying would not change.
 */
export function boundedExchange(request: ExchangeRequest): Promise<ExchangeAnswer> {
  const { provider, what, url, timeoutMs } = request;
  const maxBytes = request.maxBytes ?? MAX_ANSWER_BYTES;
  const transport = url.protocol === 'https:' ? https : http;
  const tooLarge = () => new MalformedResponseError(`${provider} answered ${what} with more than ${maxBytes} bytes`);
  return new Promise<ExchangeAnswer>((resolve, reject) => {
    let settled = false;
    const fail = (error: Error) => {
      if (settled) return;
      settled = true;
      reject(error);
      outgoing.destroy();
    };
    const outgoing = transport.request(
      url,
      {
        method: request.method,
        headers: {
          ...request.headers,
          ...(request.body === undefined ? {} : { 'content-length': Buffer.byteLength(request.body) }),
        },
        ...(request.ca ? { ca: request.ca } : {}),
        timeout: timeoutMs,
      },
      (response) => {
        // A declared length over the bound is refused before a byte of the body is read.
        if (Number(response.headers['content-length'] ?? 0) > maxBytes) return fail(tooLarge());
        const chunks: Buffer[] = [];
        let size = 0;
        response.on('data', (chunk: Buffer) => {
          size += chunk.length;
          if (size > maxBytes) return fail(tooLarge());
          chunks.push(chunk);
        });
        response.on('end', () => {
          if (settled) return;
          settled = true;
          resolve({ status: response.statusCode ?? 0, text: Buffer.concat(chunks).toString('utf8') });
        });
        response.on('error', (error) =>
          fail(new ProviderUnavailableError(`${provider} broke off its answer to ${what}: ${error.message}`)),
        );
      },
    );
    traceRequest(outgoing, url.hostname);
    const deadline = setTimeout(
      () => fail(new ProviderUnavailableError(`${provider} did not answer ${what} within ${timeoutMs} ms`)),
      timeoutMs,
    );
    outgoing.on('close', () => clearTimeout(deadline));
    outgoing.on('timeout', () => fail(new ProviderUnavailableError(`${provider} went quiet answering ${what}`)));
    outgoing.on('error', (error) => fail(new ProviderUnavailableError(`${provider} could not be reached for ${what}: ${error.message}`)));
    outgoing.end(request.body);
  });
}
