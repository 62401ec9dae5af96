import { ToolSearchIndex } from '@toolwire/schema';
import type { RegistryTool, ToolSearchHit } from './registry-types.js';

/**
 * Ranks tools by how well they match a query, best first: `ToolSearchIndex` of `@toolwire/schema`,
 * the same BM25 ranking as `search()` in code mode (names, servers, descriptions and parameter
 * names; word forms and a few synonyms folded). Default limit 10.
 */
export function searchTools(
  tools: readonly RegistryTool[],
  query: string,
  options: { limit?: number } = {},
): ToolSearchHit[] {
  const limit = Math.max(1, Math.floor(options.limit ?? 10));
  return new ToolSearchIndex(tools).search(query, { limit }).map(({ tool, score }) => ({
    name: tool.name,
    source: tool.source,
    originalName: tool.originalName,
    description: tool.description,
    status: tool.status,
    score,
  }));
}
