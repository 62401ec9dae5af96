// Releases every package the way a maintainer would, into the local registry: a copy of the
// repository (the real one is never versioned) where `changeset version` applies the pending
// changesets (versions, CHANGELOG.md, internal ranges) and `changeset publish` publishes each
// public package with pnpm, which turns `workspace:*` into the released versions.
import { execFile } from 'node:child_process';
import {
  cpSync,
  existsSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  statSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { promisify } from 'node:util';
import type { LocalRegistry } from './local-registry.js';

const run = promisify(execFile);
export const repoRoot = join(dirname(new URL(import.meta.url).pathname), '..', '..', '..');

export interface PublishedPackage {
  name: string;
  version: string;
  /** Folder in the repository, e.g. `packages/schema`. */
  folder: string;
  /** The tarball as the registry stores it. */
  tarballBytes: number;
  changelog: string;
}

interface Manifest {
  name: string;
  version: string;
  private?: boolean;
  files?: string[];
  dependencies?: Record<string, string>;
  devDependencies?: Record<string, string>;
  optionalDependencies?: Record<string, string>;
}

export async function publishPackages(
  registry: LocalRegistry,
  workDir: string,
): Promise<PublishedPackage[]> {
  const copy = join(workDir, 'repo');
  mkdirSync(copy, { recursive: true });
  for (const file of ['package.json', 'pnpm-workspace.yaml', '.changeset'])
    cpSync(join(repoRoot, file), join(copy, file), { recursive: true });
  const folders: string[] = [];
  const folderOf = new Map<string, string>();
  const manifests = new Map<string, Manifest>();
  for (const group of ['packages', 'apps', 'tooling'])
    for (const name of readdirSync(join(repoRoot, group))) {
      const folder = `${group}/${name}`;
      if (!existsSync(join(repoRoot, folder, 'package.json'))) continue;
      const manifest = JSON.parse(
        readFileSync(join(repoRoot, folder, 'package.json'), 'utf8'),
      ) as Manifest;
      folderOf.set(manifest.name, folder);
      manifests.set(folder, manifest);
      // Private packages take part in versioning only as dependents; their manifest is enough.
      const parts = manifest.private
        ? ['package.json']
        : ['package.json', 'README.md', 'LICENSE', ...(manifest.files ?? [])];
      for (const part of parts)
        if (existsSync(join(repoRoot, folder, part)))
          cpSync(join(repoRoot, folder, part), join(copy, folder, part), { recursive: true });
      if (!manifest.private) folders.push(folder);
    }
  // pnpm reads the version of a `workspace:` dependency from the installed one: link them as
  // `pnpm install` would, without installing anything else.
  for (const [folder, manifest] of manifests)
    for (const deps of [
      manifest.dependencies,
      manifest.devDependencies,
      manifest.optionalDependencies,
    ])
      for (const [name, spec] of Object.entries(deps ?? {})) {
        const target = folderOf.get(name);
        if (!spec.startsWith('workspace:') || !target) continue;
        const link = join(copy, folder, 'node_modules', name);
        mkdirSync(dirname(link), { recursive: true });
        if (!existsSync(link)) symlinkSync(join(copy, target), link, 'dir');
      }
  writeFileSync(join(copy, '.npmrc'), `registry=${registry.url}\n${registry.npmrcAuth}`);
  const git = (...args: string[]) => run('git', args, { cwd: copy });
  await git('init', '-q');
  await git('-c', 'user.name=ci', '-c', 'user.email=ci@example.invalid', 'add', '-A');
  await git(
    '-c',
    'user.name=ci',
    '-c',
    'user.email=ci@example.invalid',
    'commit',
    '-qm',
    'release',
  );

  const changeset = join(
    dirname(createRequire(import.meta.url).resolve('@changesets/cli/package.json')),
    'bin.js',
  );
  const env = { ...process.env, npm_config_registry: registry.url };
  await run(process.execPath, [changeset, 'version'], { cwd: copy, env });
  const published = await run(process.execPath, [changeset, 'publish'], { cwd: copy, env });
  const output = `${published.stdout}${published.stderr}`;

  return folders.map((folder) => {
    const manifest = JSON.parse(
      readFileSync(join(copy, folder, 'package.json'), 'utf8'),
    ) as Manifest;
    const tarball = join(
      workDir,
      'registry',
      'storage',
      manifest.name,
      `${manifest.name.split('/')[1]}-${manifest.version}.tgz`,
    );
    if (!existsSync(tarball))
      throw new Error(`${manifest.name}@${manifest.version} is not in the registry:\n${output}`);
    const changelogFile = join(copy, folder, 'CHANGELOG.md');
    return {
      name: manifest.name,
      version: manifest.version,
      folder,
      tarballBytes: statSync(tarball).size,
      changelog: existsSync(changelogFile) ? readFileSync(changelogFile, 'utf8') : '',
    };
  });
}
