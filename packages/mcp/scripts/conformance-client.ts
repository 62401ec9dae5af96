// The registry as an MCP client under the official conformance runner
// (`conformance client --command "<this>"`): the runner starts a scenario server, passes its URL
// as the last argument, the scenario in MCP_CONFORMANCE_SCENARIO and the revision in
// MCP_CONFORMANCE_PROTOCOL_VERSION. Everything goes through createRegistry/callTool, like a user's calls.
// The server entry has `auth: { type: "oauth" }` (plus the pre-registered client from
// MCP_CONFORMANCE_CONTEXT when the scenario gives one): the auth scenarios' authorization servers
// approve at once, so the headless handler reads the code from the redirect. The
// client-credentials scenario is the one that asks for the machine-to-machine grant.
import {
  MemoryOAuthTokenStore,
  createHeadlessAuthorizationHandler,
  createRegistry,
} from '../src/index.js';

const url = process.argv.at(-1);
const scenario = process.env.MCP_CONFORMANCE_SCENARIO ?? '';
const revision = process.env.MCP_CONFORMANCE_PROTOCOL_VERSION ?? '2025-11-25';
const context = JSON.parse(process.env.MCP_CONFORMANCE_CONTEXT ?? 'null') as {
  toolCalls?: Array<{ name: string; arguments?: Record<string, unknown> }>;
  client_id?: string;
  client_secret?: string;
} | null;

if (!url || !/^https?:\/\//.test(url)) {
  console.error('usage: conformance-client <server-url> (run by the conformance runner)');
  process.exit(2);
}

const log = (message: string) => console.error(`[conformance-client] ${message}`);
const registry = createRegistry({
  config: {
    mcpServers: {
      s: {
        url,
        protocol: revision >= '2026-07-28' ? 'modern' : 'legacy',
        auth: {
          type: 'oauth',
          ...(scenario === 'auth/client-credentials-basic' ? { grant: 'client_credentials' } : {}),
          ...(context?.client_id ? { clientId: context.client_id } : {}),
          ...(context?.client_id && context.client_secret
            ? { clientSecret: context.client_secret }
            : {}),
        },
      },
    },
  },
  oauth: { store: new MemoryOAuthTokenStore(), authorize: createHeadlessAuthorizationHandler() },
  nativeTools: [],
  refreshIntervalMs: 0,
  connectTimeoutMs: 30_000,
  logger: { warn: log, info: log },
  clientInfo: { name: 'toolwire-conformance-client', version: '0.1.0' },
  // Accept every elicitation with no content: the SDK fills in the schema's defaults (SEP-1034).
  handlers: { elicitation: async () => ({ action: 'accept', content: {} }) },
});

const exposed = (original: string) =>
  registry.listTools().find((tool) => tool.originalName === original)?.name;

async function call(original: string, args: Record<string, unknown>): Promise<void> {
  const name = exposed(original);
  if (!name) {
    log(`tool ${original} is not listed (or was left out)`);
    return;
  }
  const result = await registry.callTool(name, args);
  log(`${original} -> ${JSON.stringify(result).slice(0, 300)}`);
}

/** The smallest arguments that satisfy an object schema's required properties. */
function sampleArguments(schema: {
  properties?: Record<string, { type?: unknown; enum?: unknown[] }>;
  required?: string[];
}): Record<string, unknown> {
  const args: Record<string, unknown> = {};
  for (const name of schema.required ?? []) {
    const property = schema.properties?.[name] ?? {};
    if (Array.isArray(property.enum) && property.enum.length > 0) args[name] = property.enum[0];
    else if (property.type === 'integer' || property.type === 'number') args[name] = 1;
    else if (property.type === 'boolean') args[name] = true;
    else if (property.type === 'object') args[name] = {};
    else if (property.type === 'array') args[name] = [];
    else if (property.type === 'null') args[name] = null;
    else args[name] = 'x';
  }
  return args;
}

let failed = false;
try {
  await registry.start();
  const server = registry.servers()[0]!;
  if (server.status !== 'ok') throw new Error(`could not connect: ${server.reason}`);
  log(`connected (${server.protocolVersion}), ${server.tools} tools`);

  if (context?.toolCalls) {
    for (const { name, arguments: args } of context.toolCalls) await call(name, args ?? {});
  } else if (scenario === 'tools_call') {
    await call('add_numbers', { a: 5, b: 3 });
  } else if (scenario === 'json-schema-2020-12-preservation') {
    // Round-trip the schema exactly as the registry holds it: preservation is what is checked.
    const focal = registry
      .listTools()
      .find((tool) => tool.originalName === 'json_schema_2020_12_tool');
    await call('json_schema_echo', { schema: focal?.inputSchema ?? {} });
  } else if (scenario === 'sse-retry') {
    await call('test_reconnection', {});
  } else if (scenario !== 'initialize') {
    // Generic scenarios: call every listed tool with minimal valid arguments, and touch resources
    // and prompts. Tools the registry left out (invalid definitions) are never called.
    for (const tool of registry.listTools()) {
      await call(tool.originalName, sampleArguments(tool.inputSchema)).catch((error: unknown) =>
        log(`${tool.originalName}: ${String(error)}`),
      );
    }
    const client = registry.getClient('s');
    const capabilities = client?.getServerCapabilities();
    if (client && capabilities?.resources) {
      const { resources } = await client.listResources();
      if (resources[0]) await client.readResource({ uri: resources[0].uri });
    }
    if (client && capabilities?.prompts) {
      const { prompts } = await client.listPrompts();
      const prompt = prompts.find((p) => (p.arguments ?? []).every((a) => !a.required));
      if (prompt) await client.getPrompt({ name: prompt.name });
    }
  }
} catch (error) {
  failed = true;
  log(`error: ${error instanceof Error ? error.message : String(error)}`);
} finally {
  await registry.close();
}
process.exit(failed ? 1 : 0);
