import { isRecord } from './json-rpc.js';

/**
 * MCP Apps (`@modelcontextprotocol/ext-apps`) on the aggregated route. An app is a `ui://`
 * resource (its HTML) that a tool names in its `_meta` (`ui.resourceUri`, and the older flat
 * `ui/resourceUri`); the host reads it with `resources/read`. Two upstreams may well both have
 * `ui://dashboard/index.html`, so on `/mcp` each `ui://` URI carries its upstream's name as tool
 * names do: `ui://weather/app.html` of upstream `apps` is `ui://apps__weather/app.html` (with the
 * namespace separator), in listings, reads and tool definitions alike. `/servers/<name>/mcp`
 * shows them as the upstream does.
 */
const UI = 'ui://';

/** The `/mcp` form of a `ui://` URI of `server`; any other URI as it is. */
export function namespacedUiUri(server: string, uri: string, separator: string): string {
  return uri.startsWith(UI) ? `${UI}${server}${separator}${uri.slice(UI.length)}` : uri;
}

/**
 * The upstream and its own URI for a `/mcp` `ui://` URI, when it names one of `servers`;
 * `undefined` for any other URI.
 */
export function upstreamUiUri(
  uri: string,
  separator: string,
  servers: readonly string[],
): { server: string; uri: string } | undefined {
  if (!uri.startsWith(UI)) return undefined;
  const rest = uri.slice(UI.length);
  const at = rest.indexOf(separator);
  if (at <= 0) return undefined;
  const server = rest.slice(0, at);
  if (!servers.includes(server)) return undefined;
  return { server, uri: `${UI}${rest.slice(at + separator.length)}` };
}

/** A listed resource or template of `server` with its `ui://` URI namespaced. */
export function namespacedUiResource(
  server: string,
  item: Record<string, unknown>,
  separator: string,
): Record<string, unknown> {
  for (const key of ['uri', 'uriTemplate'] as const) {
    const uri = item[key];
    if (typeof uri === 'string' && uri.startsWith(UI))
      return { ...item, [key]: namespacedUiUri(server, uri, separator) };
  }
  return item;
}

/** A `resources/read` result of `server` with the `ui://` URIs of its contents namespaced. */
export function namespacedUiContents(server: string, result: unknown, separator: string): unknown {
  if (!isRecord(result) || !Array.isArray(result.contents)) return result;
  return {
    ...result,
    contents: result.contents.map((content: unknown) =>
      isRecord(content) ? namespacedUiResource(server, content, separator) : content,
    ),
  };
}

/** A tool's own `_meta` of `server` with the `ui://` resource it names namespaced. */
export function namespacedToolMeta(
  server: string,
  meta: Record<string, unknown>,
  separator: string,
): Record<string, unknown> {
  let out = meta;
  const flat = meta['ui/resourceUri'];
  if (typeof flat === 'string' && flat.startsWith(UI))
    out = { ...out, 'ui/resourceUri': namespacedUiUri(server, flat, separator) };
  const ui = meta.ui;
  if (isRecord(ui) && typeof ui.resourceUri === 'string' && ui.resourceUri.startsWith(UI))
    out = {
      ...out,
      ui: { ...ui, resourceUri: namespacedUiUri(server, ui.resourceUri, separator) },
    };
  return out;
}
