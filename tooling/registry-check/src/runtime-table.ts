// The package × runtime table of the root README, as the registry test measures it: a cell is ✓
// when that package ran there (in the shared check, or as a binary), — when it was not tried.
const RUNTIMES = [
  'Node (import)',
  'Node (require)',
  'Deno',
  'Bun',
  'Chromium page',
  'Chromium worker',
  'workerd',
] as const;
export type Runtime = (typeof RUNTIMES)[number];

const TABLE_START = '<!-- runtime-table: written by tooling/registry-check, do not edit -->';
const TABLE_END = '<!-- /runtime-table -->';

export function renderRuntimeTable(
  packages: readonly string[],
  ran: ReadonlyMap<Runtime, ReadonlySet<string>>,
): string {
  const header = `| package | ${RUNTIMES.join(' | ')} |`;
  const rule = `| --- | ${RUNTIMES.map(() => ':-:').join(' | ')} |`;
  const rows = packages.map(
    (name) =>
      `| \`${name}\` | ${RUNTIMES.map((runtime) => (ran.get(runtime)?.has(name) ? '✓' : '—')).join(' | ')} |`,
  );
  return [header, rule, ...rows].join('\n');
}

/** The table between the markers of a README, or undefined. */
export function tableIn(readme: string): string | undefined {
  const start = readme.indexOf(TABLE_START);
  const end = readme.indexOf(TABLE_END);
  if (start < 0 || end < start) return undefined;
  return readme.slice(start + TABLE_START.length, end).trim();
}
