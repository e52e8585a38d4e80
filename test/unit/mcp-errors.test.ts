// The MCP server's errors as an assistant's client reads them (the SDK's Client, over an in-memory pair):
// an error's message says its code once, params that do not fit a method are -32602, and an answer that is
// no problem document (a proxy's plain 403 or 429) is labelled by its status (outside review of 2026-11-28).
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import type { JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';
import {
  CallToolResultSchema,
  ErrorCode,
  McpError,
  ReadResourceResultSchema,
  type CallToolResult,
} from '@modelcontextprotocol/sdk/types.js';
import { afterEach, describe, expect, it } from 'vitest';
import type { ApiAnswer, ApiCaller } from '../../src/mcp/api-caller.js';
import { createInsightsMcpServer } from '../../src/mcp/server.js';

/** An API that answers every request with one answer. */
function answering(answer: ApiAnswer): ApiCaller {
  return { call: async () => answer, stream: async () => answer };
}

let client: Client | undefined;
/** The SDK's client connected to the server over that API, and every message the server sent it. */
async function connectedTo(api: ApiCaller): Promise<{ client: Client; sent: JSONRPCMessage[] }> {
  const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
  const sent: JSONRPCMessage[] = [];
  await createInsightsMcpServer(api).connect(serverSide);
  // The SDK's client calls a handler it finds on the transport before its own: every message it is sent, seen.
  clientSide.onmessage = (message) => void sent.push(message);
  client = new Client({ name: 'mcp-errors-test', version: '1.0.0' });
  await client.connect(clientSide);
  return { client, sent };
}
afterEach(async () => {
  await client?.close();
  client = undefined;
});

/** The error a request was refused with. */
async function refusal(request: Promise<unknown>): Promise<McpError> {
  const error = await request.then(
    () => undefined,
    (thrown: unknown) => thrown,
  );
  expect(error).toBeInstanceOf(McpError);
  return error as McpError;
}

describe('MCP errors', () => {
  it("says a resource refusal's code once, on the wire and in the client's message", async () => {
    const problem = { type: '/problems/not-found', title: 'Not found', status: 404, detail: 'No insight ins_x that this key may see.' };
    const { client, sent } = await connectedTo(
      answering({ status: 404, contentType: 'application/problem+json', text: JSON.stringify(problem) }),
    );
    const error = await refusal(client.readResource({ uri: 'insights://insights/ins_x/report' }));
    expect(error.code).toBe(-32002);
    expect(error.message).toBe('MCP error -32002: Not found (/problems/not-found, HTTP 404): No insight ins_x that this key may see.');
    expect(error.data).toMatchObject(problem);
    const wire = sent.find((message) => 'error' in message) as { error: { message: string } } | undefined;
    expect(wire?.error.message).toBe('Not found (/problems/not-found, HTTP 404): No insight ins_x that this key may see.');
  });

  it('answers params that do not fit tools/call or resources/read with -32602, naming what is wrong', async () => {
    const { client } = await connectedTo(answering({ status: 200, contentType: 'application/json', text: '{}' }));
    const badArguments = await refusal(
      client.request(
        { method: 'tools/call', params: { name: 'search_insights', arguments: 'dog grooming' } } as never,
        CallToolResultSchema,
      ),
    );
    expect(badArguments.code).toBe(ErrorCode.InvalidParams);
    expect(badArguments.message).toMatch(/^MCP error -32602: Invalid params for tools\/call: arguments: /);
    const noName = await refusal(client.request({ method: 'tools/call', params: {} } as never, CallToolResultSchema));
    expect(noName.code).toBe(ErrorCode.InvalidParams);
    expect(noName.message).toMatch(/name: /);
    const badUri = await refusal(client.request({ method: 'resources/read', params: { uri: 5 } } as never, ReadResourceResultSchema));
    expect(badUri.code).toBe(ErrorCode.InvalidParams);
    // Good params still reach the tool, and a tool's own arguments are checked by its schema as before.
    const ok = (await client.callTool({ name: 'search_insights', arguments: { limit: 5 } })) as CallToolResult;
    expect(ok.isError ?? false).toBe(false);
    const tooBig = (await client.callTool({ name: 'search_insights', arguments: { limit: 1000 } })) as CallToolResult;
    expect(tooBig).toMatchObject({
      isError: true,
      content: [{ text: expect.stringMatching(/^MCP error -32602: Input validation error/) }],
    });
  });

  it('labels an answer that is no problem document by its status', async () => {
    const cases = [
      [401, undefined, '/problems/unauthorized'],
      [403, undefined, '/problems/forbidden'],
      [404, undefined, '/problems/not-found'],
      [409, undefined, '/problems/conflict'],
      [429, '30', '/problems/rate-limited'],
      [400, undefined, '/problems/bad-request'],
      [502, undefined, '/problems/upstream-error'],
      [503, '5', '/problems/upstream-error'],
    ] as const;
    for (const [status, retryAfter, type] of cases) {
      const { client } = await connectedTo(
        answering({ status, contentType: 'text/plain', text: 'Forbidden by a proxy', ...(retryAfter ? { retryAfter } : {}) }),
      );
      const result = (await client.callTool({ name: 'get_insight', arguments: { id: 'ins_x' } })) as CallToolResult;
      expect(result.isError).toBe(true);
      const problem = JSON.parse((result.content[1] as { text: string }).text) as Record<string, unknown>;
      expect(problem, `HTTP ${status}`).toMatchObject({ type, status });
      if (retryAfter) {
        expect(problem.retry_after_seconds).toBe(Number(retryAfter));
        expect((result.content[0] as { text: string }).text).toContain(`Retry in ${retryAfter} s.`);
      } else expect(problem).not.toHaveProperty('retry_after_seconds');
      await client.close();
    }
  });
});
