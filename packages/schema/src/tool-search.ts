import { isPlainObject } from './json-schema.js';

/** What the index reads of a tool: a registry tool, an MCP tool, a schema `AnyTool`. */
export interface SearchableTool {
  name: string;
  description?: string | undefined;
  inputSchema?: unknown;
  /** The MCP server the tool comes from (`native` for built-in tools). */
  source?: string | undefined;
}

export interface ToolSearchOptions {
  /** How many results at most (default 5). */
  limit?: number;
}

export interface ToolSearchMatch<T extends SearchableTool = SearchableTool> {
  tool: T;
  score: number;
}

/**
 * A BM25 index over tools, the one ranking of tool search: `search()` in code mode and the
 * registry's `search` (the gateway's search tool) both use it. It reads the words of each tool's name (and server), its description and the
 * names of its input parameters, with name words counting three times. Words are split on
 * non-letters and camelCase, lower-cased, reduced to a simple stem, and a few verbs and nouns that
 * mean the same to a user (`remove`/`delete`, `find`/`search`, `repo`/`repository`) are folded
 * together. No network, no model: the same query over the same tools gives the same order.
 */
export class ToolSearchIndex<T extends SearchableTool = SearchableTool> {
  private readonly documents: Array<{ tool: T; terms: Map<string, number>; length: number }>;
  private readonly documentFrequency = new Map<string, number>();
  private readonly averageLength: number;

  constructor(tools: readonly T[]) {
    this.documents = tools.map((tool) => {
      const terms = new Map<string, number>();
      const add = (words: readonly string[], weight: number) => {
        for (const word of words) terms.set(word, (terms.get(word) ?? 0) + weight);
      };
      add(searchTerms(tool.name), NAME_WEIGHT);
      if (tool.source !== undefined && !tool.name.startsWith(tool.source))
        add(searchTerms(tool.source), NAME_WEIGHT);
      add(searchTerms(tool.description ?? ''), 1);
      add(parameterNames(tool.inputSchema).flatMap(searchTerms), PARAMETER_WEIGHT);
      let length = 0;
      for (const [term, weight] of terms) {
        length += weight;
        this.documentFrequency.set(term, (this.documentFrequency.get(term) ?? 0) + 1);
      }
      return { tool, terms, length };
    });
    this.averageLength =
      this.documents.reduce((sum, document) => sum + document.length, 0) /
      Math.max(1, this.documents.length);
  }

  /** Tools matching any word of the query, best first (ties keep the tools' order). */
  search(query: string, options: ToolSearchOptions = {}): Array<ToolSearchMatch<T>> {
    if (typeof query !== 'string')
      throw new TypeError('search: expected a query string, e.g. search("send a message")');
    const limit = options.limit ?? DEFAULT_SEARCH_LIMIT;
    if (!Number.isInteger(limit) || limit < 1)
      throw new TypeError(`search: limit must be a positive integer, got ${JSON.stringify(limit)}`);
    const queryTerms = [...new Set(searchTerms(query))];
    const count = this.documents.length;
    const matches: Array<ToolSearchMatch<T> & { index: number }> = [];
    for (const [index, document] of this.documents.entries()) {
      let score = 0;
      for (const term of queryTerms) {
        const frequency = document.terms.get(term);
        if (frequency === undefined) continue;
        const df = this.documentFrequency.get(term)!;
        const idf = Math.log(1 + (count - df + 0.5) / (df + 0.5));
        score +=
          (idf * frequency * (K1 + 1)) /
          (frequency + K1 * (1 - B + (B * document.length) / this.averageLength));
      }
      if (score > 0) matches.push({ tool: document.tool, score, index });
    }
    matches.sort((a, b) => b.score - a.score || a.index - b.index);
    return matches.slice(0, limit).map(({ tool, score }) => ({ tool, score }));
  }
}

export const DEFAULT_SEARCH_LIMIT = 5;

const K1 = 1.2;
const B = 0.75;
const NAME_WEIGHT = 3;
const PARAMETER_WEIGHT = 1;

/** The words of a text as the index compares them: split, lower-cased, stemmed, synonyms folded. */
export function searchTerms(text: string): string[] {
  return text
    .replace(/([a-z0-9])([A-Z])/g, '$1 $2')
    .replace(/([A-Z]+)([A-Z][a-z])/g, '$1 $2')
    .toLowerCase()
    .split(/[^a-z0-9]+/)
    .filter((word) => word.length > 1 && !STOP_WORDS.has(word))
    .map((word) => {
      const stemmed = stem(word);
      return SYNONYMS.get(stemmed) ?? stemmed;
    });
}

/** A crude stem that maps the forms of one word together: `issues`, `issue` → `issu`; `created`, `creating` → `creat`. */
function stem(word: string): string {
  if (/\d/.test(word) || word.length <= 3) return word;
  let base = word;
  if (base.endsWith('ies') && base.length > 4) base = `${base.slice(0, -3)}y`;
  else if (/(ss|x|ch|sh|z)es$/.test(base)) base = base.slice(0, -2);
  else if (base.endsWith('ing') && base.length > 5) base = undouble(base.slice(0, -3));
  else if (base.endsWith('ed') && base.length > 4) base = undouble(base.slice(0, -2));
  else if (base.endsWith('s') && !/(ss|us|is)$/.test(base)) base = base.slice(0, -1);
  if (base.length > 4 && base.endsWith('e') && !base.endsWith('ee')) base = base.slice(0, -1);
  return base;
}

/** `stopped` → `stopp` → `stop`; `created` → `creat` stays (close enough for both sides). */
function undouble(word: string): string {
  return /([b-df-hj-np-tv-z])\1$/.test(word) ? word.slice(0, -1) : word;
}

/** Top-level parameter names of an input schema (`properties`, also under `allOf`/`anyOf`). */
function parameterNames(schema: unknown): string[] {
  if (!isPlainObject(schema)) return [];
  const names = isPlainObject(schema.properties) ? Object.keys(schema.properties) : [];
  for (const key of ['allOf', 'anyOf', 'oneOf'] as const) {
    const branches = schema[key];
    if (Array.isArray(branches)) names.push(...branches.flatMap(parameterNames));
  }
  return names;
}

const STOP_WORDS = new Set(
  'a an the to of in on at for from by with and or is are be it its this that these those my our your their me us we you i as into onto about all any some can could would should please want need do does how what which who whom whose where when there here then than so if not no yes via per'.split(
    ' ',
  ),
);

/** Words a user says for the same thing, folded to one (applied after stemming). */
const SYNONYMS = new Map<string, string>(
  (
    [
      ['delete', 'remove', 'erase', 'destroy', 'drop', 'trash'],
      ['create', 'add', 'new', 'make', 'insert', 'put', 'book'],
      ['get', 'fetch', 'retrieve', 'show', 'view', 'read', 'lookup'],
      ['search', 'find', 'query', 'look'],
      ['update', 'edit', 'modify', 'change', 'patch'],
      ['send', 'post', 'publish'],
      ['repo', 'repository'],
      ['doc', 'document'],
      ['msg', 'message'],
      ['email', 'mail'],
      ['user', 'member', 'person', 'people'],
      ['dir', 'directory', 'folder'],
      ['start', 'launch', 'trigger', 'begin'],
      ['stop', 'halt', 'terminate'],
      ['cancel', 'abort'],
      ['event', 'meeting', 'appointment'],
    ] as const
  ).flatMap((group) => group.map((word) => [stem(word), stem(group[0])] as [string, string])),
);
