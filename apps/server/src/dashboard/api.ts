/** The bearer token the user entered (kept for the tab), and what to do when it is refused. */
export const session = {
  token: sessionStorage.getItem('toolwire-token') ?? '',
  onUnauthorized: (): void => {},
};

/** What `api` throws after a 401 (the sign-in form is showing by then). */
export const UNAUTHORIZED = 'unauthorized';

export async function api(path: string, body?: unknown, signal?: AbortSignal): Promise<Response> {
  const headers: Record<string, string> = { accept: 'application/json' };
  if (session.token) headers.authorization = `Bearer ${session.token}`;
  if (body !== undefined) headers['content-type'] = 'application/json';
  const res = await fetch(path, {
    method: body === undefined ? 'GET' : 'POST',
    headers,
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    ...(signal ? { signal } : {}),
  });
  if (res.status === 401) {
    session.onUnauthorized();
    throw new Error(UNAUTHORIZED);
  }
  return res;
}

/** A JSON answer of the API; an error status throws its message. */
export async function apiJson<T>(path: string, body?: unknown): Promise<T> {
  const res = await api(path, body);
  const data = (await res.json()) as T & { error?: { message?: string } };
  if (!res.ok) throw new Error(data.error?.message ?? res.statusText);
  return data;
}
