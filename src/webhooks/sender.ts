// One signed POST. The address actually connected to is checked (the socket's
// lookup hook), so a hostname resolving to a private address is refused too;
// redirects are never followed; bodies over 20 KB are refused. One deadline
// covers the whole exchange (lookup, connect, request, status line and the
// answer's body): a receiver that trickles its answer a byte at a time is cut
// off there like one that never answers, so it holds a delivery slot for at
// most that long.
import { lookup as dnsLookup, type LookupAddress } from 'node:dns';
import http from 'node:http';
import https from 'node:https';
import { isIP } from 'node:net';
import { allowedList, refusal, type AddressPolicy } from '../domain/webhooks/address-policy.js';
import { signatureHeader } from '../domain/webhooks/signing.js';
import { traceRequest } from '../observability/tracing.js';

export const MAX_BODY_BYTES = 20_000;
export const TIMEOUT_MS = 15_000;
/** What of a receiver's answer is read before the socket is let go: the status is all we use. */
const MAX_ANSWER_BYTES = 64 * 1024;

export interface SendResult {
  statusCode: number | null;
  latencyMs: number;
  error: string | null;
  /** The address policy refused the destination: retrying cannot help. */
  refused: boolean;
}

export class BlockedAddressError extends Error {}

/**
 * Why the policy would refuse this URL today (its host resolved now), or null.
 * `webhooks add` asks this at registration; delivery checks again at connect time.
 */
export async function policyRefusal(url: string, policy: AddressPolicy, resolve = dnsLookupAll): Promise<string | null> {
  const host = new URL(url).hostname.replace(/^\[|\]$/g, '');
  const addresses = isIP(host) ? [host] : (await resolve(host)).map((a) => a.address);
  const allowed = allowedList(policy);
  for (const address of addresses) {
    const refused = refusal(address, policy, allowed);
    if (refused) return isIP(host) ? refused : `${host} resolves to ${address}: ${refused}`;
  }
  return null;
}

function dnsLookupAll(host: string): Promise<LookupAddress[]> {
  return new Promise((resolve, reject) => dnsLookup(host, { all: true }, (err, addresses) => (err ? reject(err) : resolve(addresses))));
}

export function send(
  url: string,
  message: { id: string; body: string; secrets: string[] },
  policy: AddressPolicy,
  timeoutMs = TIMEOUT_MS,
  /** How host names are resolved (tests stand in for DNS); the policy judges every address it returns. */
  resolve = dnsLookupAll,
): Promise<SendResult> {
  const started = Date.now();
  const done = (statusCode: number | null, error: string | null, refused = false): SendResult => ({
    statusCode,
    latencyMs: Date.now() - started,
    error,
    refused,
  });
  let target: URL;
  try {
    target = new URL(url);
  } catch {
    return Promise.resolve(done(null, 'invalid URL'));
  }
  if (Buffer.byteLength(message.body) > MAX_BODY_BYTES) return Promise.resolve(done(null, `body over ${MAX_BODY_BYTES} bytes`));
  const allowed = allowedList(policy);
  const host = target.hostname.replace(/^\[|\]$/g, '');
  // Node skips the lookup hook for IP literals: check those here.
  if (isIP(host)) {
    const refused = refusal(host, policy, allowed);
    if (refused) return Promise.resolve(done(null, refused, true));
  }
  const lookup = (
    hostname: string,
    options: object,
    callback: (err: Error | null, address: string | LookupAddress[], family?: number) => void,
  ) => {
    resolve(hostname).then(
      (list) => {
        if (list.length === 0) return callback(new Error(`${hostname} resolves to no address`), '', 0);
        for (const a of list) {
          const refused = refusal(a.address, policy, allowed);
          if (refused) return callback(new BlockedAddressError(`${hostname} resolves to a blocked address: ${refused}`), '', 0);
        }
        if ((options as { all?: boolean }).all) return callback(null, list);
        return callback(null, list[0]!.address, list[0]!.family);
      },
      (error: Error) => callback(error, '', 0),
    );
  };
  const timestamp = Math.floor(Date.now() / 1000);
  const client = target.protocol === 'https:' ? https : http;
  return new Promise((resolve) => {
    let settled = false;
    const finish = (statusCode: number | null, error: string | null, refused = false) => {
      if (settled) return;
      settled = true;
      clearTimeout(deadline);
      resolve(done(statusCode, error, refused));
    };
    const req = client.request(
      target,
      {
        method: 'POST',
        lookup: lookup as never,
        headers: {
          'content-type': 'application/json',
          'content-length': Buffer.byteLength(message.body),
          'user-agent': 'startup-insights-webhooks/1',
          'webhook-id': message.id,
          'webhook-timestamp': String(timestamp),
          'webhook-signature': signatureHeader(message.secrets, message.id, timestamp, message.body),
        },
      },
      (res) => {
        const status = res.statusCode ?? null;
        let read = 0;
        res.on('data', (chunk: Buffer) => {
          read += chunk.length;
          // Enough: the answer's body is not used, and a huge one must not cost us.
          if (read > MAX_ANSWER_BYTES) {
            finish(status, null);
            req.destroy();
          }
        });
        res.once('end', () => finish(status, null));
        res.once('error', (e) => finish(status, e.message));
      },
    );
    traceRequest(req, target.hostname);
    const deadline = setTimeout(() => {
      finish(null, `timed out: no complete answer within ${timeoutMs} ms`);
      req.destroy();
    }, timeoutMs);
    req.once('error', (e) => finish(null, e.message, e instanceof BlockedAddressError));
    req.end(message.body);
  });
}
