import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

// Sources live next to `fixtures/`; the built file is two levels below the package root.
const candidates = [
  new URL('./fixtures/', import.meta.url),
  new URL('../../src/providers/fixtures/', import.meta.url),
];
const directory = candidates.map((url) => fileURLToPath(url)).find((path) => existsSync(path));

const CONTENT_TYPES: Record<string, string> = {
  json: 'application/json',
  sse: 'text/event-stream',
  ndjson: 'application/x-ndjson',
};

/** The recorded provider transcripts shipped with this package (copies of `shared/wire`). */
export function wireFixtureNames(): string[] {
  if (!directory) return [];
  return readdirSync(directory).filter((name) => /\.(json|sse|ndjson)$/.test(name));
}

/** A recorded transcript as a `raw` fake turn: `fake.push({ raw: wireFixture('openai-chat-tools.json') })`. */
export function wireFixture(name: string): { contentType: string; body: string } {
  if (!directory)
    throw new Error('wireFixture: the fixtures directory of @toolwire/testing is missing');
  const extension = name.split('.').pop() ?? '';
  const contentType = CONTENT_TYPES[extension];
  if (!contentType) throw new Error(`wireFixture: "${name}" must end in .json, .sse or .ndjson`);
  if (!wireFixtureNames().includes(name)) {
    throw new Error(`wireFixture: no fixture "${name}" (have: ${wireFixtureNames().join(', ')})`);
  }
  return { contentType, body: readFileSync(`${directory}${name}`, 'utf8') };
}

/** A recorded JSON file (e.g. a `*-followup-request.json`) parsed. */
export function wireFixtureJson(name: string): unknown {
  return JSON.parse(wireFixture(name).body);
}
