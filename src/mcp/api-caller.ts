// How the MCP server reaches the API: every tool is one request of the HTTP API, made with the caller's own
// key, so the key's scopes, the daily quota, the research allowance and every refusal are the API's by
// construction (one set of rules, whichever door). The web process answers in-process (Fastify's inject,
// src/http/mcp/); `insights mcp` over the network to a running service (fetch-api.ts).

/** One request of the API: its path under /api, a query, a JSON body, the media type asked for. */
export interface ApiRequest {
  method: 'GET' | 'POST';
  /** Under /api, starting with a slash: "/insights", "/research-runs/run_…". */
  path: string;
  query?: Readonly<Record<string, string | number | boolean | undefined>>;
  body?: unknown;
  /** The Accept header; default application/json. */
  accept?: string;
}

/** The answer: its status, media type and text (JSON, CSV or Markdown as asked). */
export interface ApiAnswer {
  status: number;
  contentType: string;
  text: string;
  /** Its Retry-After header, when it had one. */
  retryAfter?: string;
}

/** A server-sent event of the API (GET /api/research-runs/{id}/events). */
export interface ApiEvent {
  event: string;
  data: string;
}

export interface ApiCaller {
  call(request: ApiRequest, signal?: AbortSignal): Promise<ApiAnswer>;
  /**
   * An event stream: the answer's status and media type, and its events as they come when it is one
   * (a refusal is an ordinary answer with no events).
   */
  stream(
    request: ApiRequest,
    signal?: AbortSignal,
  ): Promise<{ answer: Omit<ApiAnswer, 'text'>; events: AsyncIterable<ApiEvent> } | ApiAnswer>;
}

/** The path and query of a request, as the API spells them (undefined values left out). */
export function urlOf(request: ApiRequest): string {
  const query = new URLSearchParams();
  for (const [name, value] of Object.entries(request.query ?? {})) if (value !== undefined) query.set(name, String(value));
  const text = query.toString();
  return `/api${request.path}${text ? `?${text}` : ''}`;
}

/** The events of a text/event-stream body (WHATWG HTML, "server-sent events"): comments skipped, data lines joined. */
export async function* serverSentEvents(chunks: AsyncIterable<Uint8Array | string>): AsyncIterable<ApiEvent> {
  const decoder = new TextDecoder();
  let buffered = '';
  for await (const chunk of chunks) {
    buffered += typeof chunk === 'string' ? chunk : decoder.decode(chunk, { stream: true });
    buffered = buffered.replace(/\r\n?/g, '\n');
    let end: number;
    while ((end = buffered.indexOf('\n\n')) >= 0) {
      const block = buffered.slice(0, end);
      buffered = buffered.slice(end + 2);
      let event = 'message';
      const data: string[] = [];
      for (const line of block.split('\n')) {
        if (line.startsWith(':')) continue;
        const colon = line.indexOf(':');
        const field = colon < 0 ? line : line.slice(0, colon);
        const value = colon < 0 ? '' : line.slice(colon + 1).replace(/^ /, '');
        if (field === 'event') event = value;
        else if (field === 'data') data.push(value);
      }
      if (data.length > 0) yield { event, data: data.join('\n') };
    }
  }
}
