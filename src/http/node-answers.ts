// Answers Node's HTTP server would otherwise make on its own, made here so that
// they pass the connection guard like every other answer. Node answers an
// HTTP/1.1 request without a Host header (400) and one with an Expect it does
// not know (417) itself, before any handler: a connection pipelining thousands
// of them in one read got thousands of answers queued for a client that never
// read them, past every bound of the guard (the second outside review: 100 such
// connections, 6.5 MB sent, ran a 384 MB heap out and killed the process).
import type { IncomingMessage, ServerResponse } from 'node:http';
import { PROBLEM_CONTENT_TYPE, problem } from './problem.js';

type RequestHandler = (req: IncomingMessage, res: ServerResponse) => void;

function answer(res: ServerResponse, status: 400 | 417, body: string): void {
  res.writeHead(status, {
    'content-type': PROBLEM_CONTENT_TYPE,
    'content-length': Buffer.byteLength(body),
    'x-content-type-options': 'nosniff',
    'cache-control': 'no-store',
    // Node would close the connection (a graceful end, which a client that never reads never
    // sees); kept open instead, the guard bounds what it may pipeline and resets it past that.
  });
  res.end(body);
}

const NO_HOST = JSON.stringify(problem('badRequest', 'An HTTP/1.1 request needs a Host header (RFC 9112, section 3.2).'));
const EXPECTATION = JSON.stringify({
  type: 'about:blank',
  title: 'Expectation failed',
  status: 417,
  detail: 'The only expectation this server meets is "100-continue".',
});

/** The app's handler, refusing an HTTP/1.1 request without a Host header as Node does (serve with requireHostHeader: false). */
export function requireHost(handler: RequestHandler): RequestHandler {
  return (req, res) => {
    if (req.httpVersion === '1.1' && !req.headers.host) return answer(res, 400, NO_HOST);
    handler(req, res);
  };
}

/** The server's `checkExpectation` handler: 417, as Node answers when nobody listens. */
export const expectationFailed: RequestHandler = (_req, res) => answer(res, 417, EXPECTATION);
