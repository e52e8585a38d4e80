// The API over the network, for `insights mcp`: a running service at INSIGHTS_URL, asked with INSIGHTS_KEY.
// The address is the operator's own configuration (their service), not input from a client, so it may be
// a private one; the key travels only in the Authorization header and is never logged.
import { serverSentEvents, urlOf, type ApiAnswer, type ApiCaller, type ApiRequest } from './api-caller.js';

/** How long one ordinary request may take before the tool answers that the service did not (an event stream has its own bound). */
const REQUEST_TIMEOUT_MS = 60_000;

/** An answer's status and the headers a tool reads: its media type, and when to ask again. */
function headOf(response: Response): Omit<ApiAnswer, 'text'> {
  const retryAfter = response.headers.get('retry-after');
  return { status: response.status, contentType: response.headers.get('content-type') ?? '', ...(retryAfter ? { retryAfter } : {}) };
}

export function fetchApi(baseUrl: string, key: string): ApiCaller {
  const base = baseUrl.replace(/\/+$/, '');
  const send = (request: ApiRequest, signal: AbortSignal) =>
    fetch(`${base}${urlOf(request)}`, {
      method: request.method,
      headers: {
        authorization: `Bearer ${key}`,
        accept: request.accept ?? 'application/json',
        ...(request.body === undefined ? {} : { 'content-type': 'application/json' }),
      },
      ...(request.body === undefined ? {} : { body: JSON.stringify(request.body) }),
      signal,
      redirect: 'error',
    });
  return {
    async call(request, signal) {
      const bounded = AbortSignal.any([AbortSignal.timeout(REQUEST_TIMEOUT_MS), ...(signal ? [signal] : [])]);
      const response = await send(request, bounded);
      return { ...headOf(response), text: await response.text() };
    },
    async stream(request, signal) {
      const response = await send(request, signal ?? new AbortController().signal);
      const answer = headOf(response);
      if (!answer.contentType.startsWith('text/event-stream') || !response.body)
        return { ...answer, text: await response.text() } satisfies ApiAnswer;
      return { answer, events: serverSentEvents(response.body) };
    },
  };
}
