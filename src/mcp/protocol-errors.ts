// The JSON-RPC errors this server sends, as JSON-RPC and MCP define them, where the SDK (1.32.2) does not:
//  - Params that do not fit a method's request schema (tools/call with arguments that are no object, or
//    no tool name; resources/read with no URI) are the caller's error, -32602 Invalid params. The SDK
//    parses them before its handlers run and answers the schema's exception as -32603 Internal error
//    (typescript-sdk issue 2284, open): told the server broke, an assistant has nothing to correct.
//  - An error's message is its words alone. The SDK's McpError spells its code into its message ("MCP
//    error -32002: …") and the protocol sends that message as it is, so a client that reads the code
//    from `code` and builds its own McpError, as the SDK's client does, said the prefix twice.
// Both are settled on the transport, for both doors (/mcp and `insights mcp`), before the SDK sees a request
// and after it answered one.
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import {
  CallToolRequestSchema,
  ErrorCode,
  InitializeRequestSchema,
  isJSONRPCErrorResponse,
  isJSONRPCRequest,
  ListResourcesRequestSchema,
  ListResourceTemplatesRequestSchema,
  ListToolsRequestSchema,
  PingRequestSchema,
  ReadResourceRequestSchema,
  type JSONRPCErrorResponse,
  type JSONRPCMessage,
} from '@modelcontextprotocol/sdk/types.js';

/** The methods this server answers (server.ts registers tools and resources, no prompts or completions). */
const ANSWERED_SCHEMAS = [
  InitializeRequestSchema,
  PingRequestSchema,
  ListToolsRequestSchema,
  CallToolRequestSchema,
  ListResourcesRequestSchema,
  ListResourceTemplatesRequestSchema,
  ReadResourceRequestSchema,
] as const;
const ANSWERED = new Map<string, (typeof ANSWERED_SCHEMAS)[number]>(ANSWERED_SCHEMAS.map((schema) => [schema.shape.method.value, schema]));

/** What is wrong with a request's params, in a sentence; undefined when they fit its method (or it is no method answered here). */
export function invalidParams(message: JSONRPCMessage): string | undefined {
  if (!isJSONRPCRequest(message)) return undefined;
  const schema = ANSWERED.get(message.method);
  const checked = schema?.safeParse(message);
  if (!checked || checked.success) return undefined;
  const issues = checked.error.issues.map(
    (issue) => `${issue.path.filter((part) => part !== 'params').join('.') || 'params'}: ${issue.message}`,
  );
  return `Invalid params for ${message.method}: ${issues.join('; ')}`;
}

/** An error's message as the wire carries it: without the "MCP error <code>: " its McpError spelled into it. */
export function withoutCodePrefix(error: JSONRPCErrorResponse): JSONRPCErrorResponse {
  const prefix = `MCP error ${error.error.code}: `;
  let message = error.error.message;
  while (message.startsWith(prefix)) message = message.slice(prefix.length);
  return message === error.error.message ? error : { ...error, error: { ...error.error, message } };
}

/**
 * Settles the two on a transport the SDK has just been connected to (its connect() sets the transport's
 * onmessage before its first await, and reads `send` at each answer, so both are wrapped before any message comes).
 */
export function settleProtocolErrors(transport: Transport): void {
  const deliver = transport.onmessage;
  const send = transport.send.bind(transport);
  transport.send = (message, options) => send(isJSONRPCErrorResponse(message) ? withoutCodePrefix(message) : message, options);
  transport.onmessage = (message, extra) => {
    const refused = invalidParams(message);
    if (refused === undefined || !isJSONRPCRequest(message)) {
      deliver?.(message, extra);
      return;
    }
    const answer: JSONRPCErrorResponse = { jsonrpc: '2.0', id: message.id, error: { code: ErrorCode.InvalidParams, message: refused } };
    transport.send(answer, { relatedRequestId: message.id }).catch((error: unknown) => transport.onerror?.(error as Error));
  };
}
