/** A `${VAR}` or `${VAR:-default}` reference that had no value in the environment. */
export interface UnsetVariable {
  name: string;
  path: string;
}

/**
 * Expands `${VAR}` and `${VAR:-default}` in every string of a JSON value (object keys are left
 * alone). `$${VAR}` is an escape for a literal `${VAR}`. A variable that is unset and has no
 * default becomes the empty string and is reported through `unset`, with the dotted path of the
 * string that used it.
 */
export function expandEnv(
  value: unknown,
  env: Readonly<Record<string, string | undefined>>,
  unset: UnsetVariable[] = [],
  path = '',
): unknown {
  if (typeof value === 'string') return expandString(value, env, unset, path);
  if (Array.isArray(value))
    return value.map((item, index) => expandEnv(item, env, unset, `${path}[${index}]`));
  if (value !== null && typeof value === 'object') {
    const out: Record<string, unknown> = {};
    for (const [key, child] of Object.entries(value))
      out[key] = expandEnv(child, env, unset, joinPath(path, key));
    return out;
  }
  return value;
}

function expandString(
  text: string,
  env: Readonly<Record<string, string | undefined>>,
  unset: UnsetVariable[],
  path: string,
): string {
  return text.replace(
    /(\$?)\$\{([A-Za-z_][A-Za-z0-9_]*)(?::-([^}]*))?\}/g,
    (match, escape: string, name: string, fallback: string | undefined) => {
      if (escape === '$') return match.slice(1);
      const found = env[name];
      if (found !== undefined && found !== '') return found;
      if (fallback !== undefined) return fallback;
      if (found === undefined) unset.push({ name, path });
      return '';
    },
  );
}

/** Appends a key to a dotted path, bracket-quoting keys that are not identifiers. */
export function joinPath(path: string, key: string | number): string {
  if (typeof key === 'number') return `${path}[${key}]`;
  if (/^[A-Za-z_$][A-Za-z0-9_$-]*$/.test(key)) return path === '' ? key : `${path}.${key}`;
  return `${path}[${JSON.stringify(key)}]`;
}
