// Verdaccio on a free loopback port, storing into a folder of the test's, with one user whose token
// publishes. Only `@toolwire/*` lives there; everything else comes from the usual registry (the
// projects that install from it scope it: `@toolwire:registry=<url>`).
import { once } from 'node:events';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';

export interface LocalRegistry {
  /** `http://127.0.0.1:<port>/` */
  url: string;
  token: string;
  /** `.npmrc` lines that authenticate against it. */
  npmrcAuth: string;
  close(): Promise<void>;
}

export async function startLocalRegistry(dir: string): Promise<LocalRegistry> {
  const { runServer } = (await import('verdaccio')) as unknown as {
    runServer(config: object): Promise<Server>;
  };
  const server = await runServer({
    self_path: dir,
    storage: join(dir, 'storage'),
    auth: { htpasswd: { file: join(dir, 'htpasswd'), max_users: 10 } },
    uplinks: {},
    packages: {
      '@toolwire/*': { access: '$all', publish: '$authenticated', unpublish: '$authenticated' },
      '**': { access: '$all' },
    },
    web: { enable: false },
    log: { type: 'stdout', format: 'pretty', level: 'error' },
    max_body_size: '200mb',
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/`;
  const response = await fetch(`${url}-/user/org.couchdb.user:ci`, {
    method: 'PUT',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ name: 'ci', password: 'ci-password-1', type: 'user', roles: [] }),
  });
  const body = (await response.json()) as { token?: string };
  if (!response.ok || !body.token)
    throw new Error(
      `the local registry refused the user (${response.status}): ${JSON.stringify(body)}`,
    );
  const host = url.replace(/^http:/, '');
  return {
    url,
    token: body.token,
    npmrcAuth: `${host}:_authToken=${body.token}\n`,
    close: async () => {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
