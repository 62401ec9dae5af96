/**
 * Tools the provider runs on its side: a remote MCP server it connects to (OpenAI Responses `mcp`
 * tools, Anthropic's MCP connector), and its own tool search. Their calls come back in the response
 * for the record, and the caller answers the provider's approval requests in the next request.
 */

/** A remote MCP server the provider calls for the model (the caller's code never sees the calls run). */
export interface RemoteMcpServer {
  /** The server's label, unique in the request; calls name it (OpenAI `server_label`, Anthropic `name`). */
  name: string;
  /** The server's Streamable HTTP (or SSE) URL, reachable from the provider. */
  url: string;
  /** What the server is for, shown to the model (OpenAI only). */
  description?: string;
  /** An OAuth access token the provider sends to the server. */
  authorization?: string;
  /** Other HTTP headers the provider sends to the server (OpenAI only). */
  headers?: Record<string, string>;
  /** Only these of the server's tools are offered (default: all). */
  allowedTools?: string[];
  /**
   * Which calls wait for the caller's approval: every call (`always`, the default), none, or all
   * but the named tools. A provider that cannot ask (Anthropic's connector runs calls at once)
   * accepts only `never`.
   */
  requireApproval?: 'always' | 'never' | { never: string[] };
  /** Keep the server's tools out of the prompt until tool search finds them. */
  deferred?: boolean;
}

/** A call the provider made (or wants to make) on its side. */
export interface ProviderToolCall {
  /** The provider's id of the call (for an approval request: the request's id). */
  id: string;
  /** The tool's name on its server (or the provider's tool, e.g. its tool search). */
  name: string;
  /** The MCP server the tool belongs to; absent for the provider's own tools. */
  server?: string;
  arguments: unknown;
  /** What the call returned; absent while it waits for approval. */
  result?: { text: string; isError: boolean };
  /**
   * Set when the provider waits for the caller's approval: answer it with a `ToolApproval` in the
   * next request's tool message (`{ role: 'tool', results: [], approvals: [...] }`).
   */
  approvalRequestId?: string;
}

/** The caller's answer to a provider's approval request. */
export interface ToolApproval {
  approvalRequestId: string;
  approved: boolean;
  /** Told to the model when the call is refused (where the provider takes a reason). */
  reason?: string;
}
