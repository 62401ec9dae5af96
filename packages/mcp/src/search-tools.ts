import type { RegistryTool, ToolSearchHit } from './registry-types.js';

/**
 * Ranks tools by how well their names and descriptions match a query: every query word found in
 * the name counts 3, in the description 1, a whole-name match 10. Words are split on spaces,
 * `_`, `-`, `.` and camelCase, compared case-insensitively, with a simple plural/verb-form stem.
 */
export function searchTools(
  tools: readonly RegistryTool[],
  query: string,
  options: { limit?: number } = {},
): ToolSearchHit[] {
  const terms = [...new Set(words(query))];
  const limit = options.limit ?? 10;
  if (terms.length === 0) return [];
  const hits: ToolSearchHit[] = [];
  for (const tool of tools) {
    const nameWords = new Set([
      ...words(tool.name),
      ...words(tool.originalName),
      ...words(tool.source),
    ]);
    const descriptionWords = new Set(words(tool.description));
    let score = 0;
    for (const term of terms) {
      if (nameWords.has(term)) score += 3;
      else if ([...nameWords].some((word) => word.startsWith(term) || term.startsWith(word)))
        score += 2;
      if (descriptionWords.has(term)) score += 1;
    }
    const whole = query.trim().toLowerCase();
    if (whole === tool.name.toLowerCase() || whole === tool.originalName.toLowerCase()) score += 10;
    if (score > 0) {
      hits.push({
        name: tool.name,
        source: tool.source,
        originalName: tool.originalName,
        description: tool.description,
        status: tool.status,
        score,
      });
    }
  }
  return hits
    .sort((a, b) => b.score - a.score || a.name.localeCompare(b.name))
    .slice(0, Math.max(1, limit));
}

function words(text: string): string[] {
  return text
    .replace(/([a-z0-9])([A-Z])/g, '$1 $2')
    .toLowerCase()
    .split(/[^a-z0-9]+/)
    .filter((word) => word.length > 1 || /\d/.test(word))
    .map(stem);
}

function stem(word: string): string {
  if (word.length > 4 && word.endsWith('ies')) return `${word.slice(0, -3)}y`;
  if (word.length > 4 && word.endsWith('ing')) return word.slice(0, -3);
  if (word.length > 3 && word.endsWith('es') && /(ss|x|ch|sh)es$/.test(word))
    return word.slice(0, -2);
  if (word.length > 3 && word.endsWith('s') && !word.endsWith('ss')) return word.slice(0, -1);
  return word;
}
