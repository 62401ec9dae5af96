import { createHash } from 'node:crypto';
import { canonicalJson } from '@toolwire/schema';
import type { SourceTool } from '../tool-source.js';

/**
 * What a pin covers: the parts of a tool's definition that a model reads or that shape its calls
 * (its upstream name, title, description, input and output schemas, annotations).
 */
function pinnedDefinition(tool: SourceTool): Record<string, unknown> {
  return {
    name: tool.originalName,
    title: (tool as { title?: unknown }).title,
    description: tool.description,
    inputSchema: tool.inputSchema,
    outputSchema: tool.outputSchema,
    annotations: tool.annotations,
  };
}

/** `sha256:<hex>` of the canonical JSON of `pinnedDefinition(tool)`. */
export function toolDefinitionHash(tool: SourceTool): string {
  return `sha256:${createHash('sha256')
    .update(canonicalJson(pinnedDefinition(tool)))
    .digest('hex')}`;
}
