import type { Tool as McpTool } from '@modelcontextprotocol/client';
import { validateToolDefinition, type ToolSpec } from '@toolwire/schema';

/** A listed tool left out, and why. */
export interface RejectedTool {
  name: string;
  reason: string;
}

/**
 * The tools of a listing that can be offered, in order, and those left out with why: a definition
 * without a name or with an unusable input schema, or a second definition of a name.
 */
export function checkDefinitions(all: readonly McpTool[]): {
  accepted: McpTool[];
  rejected: RejectedTool[];
} {
  const accepted: McpTool[] = [];
  const rejected: RejectedTool[] = [];
  const names = new Set<string>();
  for (const tool of all) {
    const problem = definitionProblem(tool);
    if (problem) rejected.push({ name: String(tool.name), reason: problem });
    else if (names.has(tool.name))
      rejected.push({ name: tool.name, reason: 'listed twice; the first definition is kept' });
    else {
      names.add(tool.name);
      accepted.push(tool);
    }
  }
  return { accepted, rejected };
}

/** Why a listed tool cannot be offered (name, input schema that is not an object or does not compile), or undefined. */
function definitionProblem(tool: McpTool): string | undefined {
  if (typeof tool.name !== 'string' || tool.name === '') return 'it has no name';
  if (
    tool.inputSchema === null ||
    typeof tool.inputSchema !== 'object' ||
    Array.isArray(tool.inputSchema)
  )
    return '/inputSchema: input schema must be a JSON Schema object';
  const spec: ToolSpec = {
    name: tool.name,
    description: tool.description ?? '',
    inputSchema: tool.inputSchema as ToolSpec['inputSchema'],
    ...(tool.outputSchema ? { outputSchema: tool.outputSchema as ToolSpec['inputSchema'] } : {}),
  };
  const headerProblem = mcpHeaderProblem(tool.inputSchema as Record<string, unknown>);
  if (headerProblem) return headerProblem;
  const issues = validateToolDefinition(spec, { mode: 'lenient', namePattern: /^.+$/ }).filter(
    (issue) =>
      issue.pointer.startsWith('/inputSchema') || issue.pointer.startsWith('/outputSchema'),
  );
  // Depth and required-not-in-properties are advisory; a schema that is not an object or does not compile is not usable.
  const fatal = issues.filter((issue) =>
    /must be a JSON Schema object|must have type "object"|does not compile/.test(issue.message),
  );
  return fatal.length > 0
    ? fatal.map((issue) => `${issue.pointer}: ${issue.message}`).join('; ')
    : undefined;
}

const HEADER_TOKEN = /^[!#$%&'*+\-.^_`|~0-9A-Za-z]+$/;

/**
 * SEP-2243: a property's `x-mcp-header` names an HTTP header the client mirrors the value into.
 * It must be a non-empty token (no spaces, colons, control or non-ASCII characters), sit on a
 * string, integer or boolean property, and be unique ignoring case; otherwise the tool is unusable.
 */
function mcpHeaderProblem(schema: Record<string, unknown>): string | undefined {
  const properties = schema.properties;
  if (properties === null || typeof properties !== 'object') return undefined;
  const seen = new Map<string, string>();
  for (const [name, property] of Object.entries(properties as Record<string, unknown>)) {
    if (property === null || typeof property !== 'object' || !('x-mcp-header' in property))
      continue;
    const header = (property as Record<string, unknown>)['x-mcp-header'];
    const where = `/inputSchema/properties/${name}/x-mcp-header`;
    if (typeof header !== 'string' || header === '')
      return `${where}: must be a non-empty header name`;
    if (!HEADER_TOKEN.test(header))
      return `${where}: ${JSON.stringify(header)} is not a valid HTTP header name`;
    const type = (property as Record<string, unknown>).type;
    if (type !== 'string' && type !== 'integer' && type !== 'boolean') {
      return `${where}: only string, integer and boolean parameters can be mirrored into a header (this one is ${JSON.stringify(type)})`;
    }
    const previous = seen.get(header.toLowerCase());
    if (previous !== undefined)
      return `${where}: header ${JSON.stringify(header)} is also used by "${previous}"`;
    seen.set(header.toLowerCase(), name);
  }
  return undefined;
}
