// The shapes of the `/api/*` answers the dashboard reads (`dashboard-api.ts` writes them).

/** A JSON Schema as the dashboard reads it to build a form. */
export interface Schema {
  type?: string | string[];
  description?: string;
  properties?: Record<string, Schema>;
  required?: string[];
  items?: Schema;
  enum?: unknown[];
  const?: unknown;
  default?: unknown;
  examples?: unknown[];
}

export interface ToolView {
  name: string;
  description: string;
  source: string;
  originalName: string;
  status: string;
  inputSchema: Schema;
}

interface ServerView {
  name: string;
  status: string;
  reason?: string;
  tools: number;
  transport: string;
  protocolVersion?: string;
  protocolKnown?: boolean;
  restarts: number;
}

export interface Overview {
  gateway: {
    version: string;
    uptimeSeconds: number;
    client: string | null;
    auth: boolean;
    admin: boolean;
    redis: boolean;
    codeMode: boolean;
    chatModel: string | null;
    /** The shared sandbox of the playground: started in the background once the page is open. */
    sandbox: 'cold' | 'warming' | 'ready' | 'failed';
  };
  servers: ServerView[];
  tools: ToolView[];
  metrics: {
    calls: number;
    ok: number;
    cached: number;
    toolErrors: number;
    errors: number;
    refused: number;
    cancelled: number;
    p50: number;
    p95: number;
  };
}

export interface CallEntry {
  seq: number;
  time: string;
  tool: string;
  client: string;
  upstream: string;
  durationMs: number;
  outcome: string;
  error?: string;
  /** Set when the call ran for more than a second (it was listed as running under this id). */
  callId?: number;
}

/** A call still running after a second, with its latest progress. */
export interface RunningCall {
  callId: number;
  time: string;
  tool: string;
  client: string;
  upstream: string;
  durationMs: number;
  progress?: { progress: number; total?: number; message?: string };
}

export interface CodeRunResult {
  ok: boolean;
  value?: unknown;
  durationMs: number;
  toolCalls: unknown[];
  logs: Array<{ level: string; message: string }>;
  diagnostics: Array<{ line?: number; message: string }>;
  error?: { kind: string; message: string };
}

/** `/api/pins`: upstream tools against their pinned definitions. */
export interface PinsView {
  mode: 'hold' | 'warn' | 'off';
  tools: Array<{
    name: string;
    server: string;
    status: 'new' | 'pinned' | 'changed' | 'held';
    hash: string;
    description: string;
    approvedDescription?: string;
    findings: Array<{ kind: string; detail: string }>;
  }>;
}
