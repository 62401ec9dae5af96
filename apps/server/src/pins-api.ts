import type { IncomingMessage, ServerResponse } from 'node:http';
import type { AuthToken, ToolEntry } from '@toolwire/forwarder';
import { HttpError, readJson, sendJson } from './http-util.js';
import type { Runtime } from './runtime.js';

/** One upstream tool as the pins panel shows it. */
function pinView(entry: ToolEntry, held: boolean) {
  const pin = entry.pin!;
  return {
    name: entry.tool.name,
    canonical: entry.canonical,
    server: entry.server,
    status: held ? 'held' : pin.status,
    hash: pin.hash,
    ...(pin.pinned ? { approvedHash: pin.pinned.hash, approvedAt: pin.pinned.pinnedAt } : {}),
    description: entry.tool.description ?? '',
    ...(pin.pinned?.description !== undefined && pin.pinned.hash !== pin.hash
      ? { approvedDescription: pin.pinned.description }
      : {}),
    findings: pin.findings,
  };
}

/**
 * `/api/pins`: the pinned tool definitions, for an admin (a token granted `"*"`): every upstream
 * tool with its standing (`held`, `changed`, `new`, `pinned`) and what its description was flagged
 * for; `POST /api/pins/approve` `{ name, hash? }` pins the changed definition of a tool.
 */
export async function handlePinsApi(
  runtime: Runtime,
  token: AuthToken | undefined,
  path: string,
  req: IncomingMessage,
  res: ServerResponse,
  maxBody: number,
): Promise<void> {
  const pipeline = runtime.forwarder.pipeline;
  if (!pipeline.policy.grantsEverything(token))
    throw new HttpError(403, 'Forbidden: pins are for a token granted "*"');
  const pins = pipeline.pins;
  if (path === '/api/pins' && req.method === 'GET') {
    const tools = [
      ...[...pipeline.index.held().values()].map((entry) => pinView(entry, true)),
      ...[...pipeline.tools().values()]
        .filter((entry) => entry.pin !== undefined)
        .map((entry) => pinView(entry, false)),
    ].sort((a, b) => a.name.localeCompare(b.name));
    sendJson(res, 200, { mode: pins?.mode ?? 'off', tools });
    return;
  }
  if (path === '/api/pins/approve' && req.method === 'POST') {
    if (!pins) throw new HttpError(409, 'Pinning is off (policy.pinning.mode)');
    const body = (await readJson(req, maxBody)) as { name?: unknown; hash?: unknown };
    if (typeof body?.name !== 'string' || body.name === '')
      throw new HttpError(400, 'name: expected the tool name', -32602);
    if (body.hash !== undefined && typeof body.hash !== 'string')
      throw new HttpError(400, 'hash: expected the definition hash shown', -32602);
    // The panel shows exposed names; pins are kept by namespaced name.
    const entry = pipeline.index.held().get(body.name) ?? pipeline.tools().get(body.name);
    const name = entry?.canonical ?? body.name;
    const approved = await pins.approve(name, token?.client ?? 'dashboard', body.hash);
    if (!approved)
      throw new HttpError(
        409,
        `Nothing to approve for "${body.name}" (no changed definition${body.hash ? ' with that hash' : ''} is pending)`,
      );
    sendJson(res, 200, { approved: name });
    return;
  }
  throw new HttpError(404, `Not found: ${path}`);
}
