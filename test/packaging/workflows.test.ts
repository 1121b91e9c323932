// The release workflow and the Action, as GitHub reads them: YAML that parses; a release only on a
// version tag; each job with the permissions it needs and no more (the OIDC identity only where
// the package is published, release writes only where the release is made); every action pinned
// to a commit; the registry with provenance on Node 24; a single executable for each platform,
// with SHA-256 sums.
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';

type Step = { uses?: string; run?: string; with?: Record<string, unknown>; env?: Record<string, string> };
type Job = { needs?: string | string[]; permissions?: Record<string, string>; steps: Step[]; strategy?: { matrix: { include: { target: string; runner: string }[] } }; environment?: string };

const releaseText = readFileSync('.github/workflows/release.yml', 'utf8');
const release = parse(releaseText) as { on: { push: { tags: string[] } }; permissions: unknown; jobs: Record<string, Job> };
const actionText = readFileSync('action.yml', 'utf8');

/** Every `uses:` line of a workflow's text: the action, the ref, and the comment naming its version. */
const usesLines = (text: string) => [...text.matchAll(/^\s*(?:-\s+)?uses:\s*(\S+)(.*)$/gm)].map((m) => ({ action: m[1]!, comment: m[2]!.trim() }));

describe('.github/workflows/release.yml', () => {
  it('runs on a version tag only, and grants nothing by default', () => {
    expect(release.on).toEqual({ push: { tags: ['v*.*.*'] } });
    expect(release.permissions).toEqual({});
  });

  it('gives each job only what it needs: an OIDC identity to publish, write access to make the release, reading elsewhere', () => {
    const permissions = Object.fromEntries(Object.entries(release.jobs).map(([name, job]) => [name, job.permissions]));
    expect(permissions).toEqual({
      test: { contents: 'read' },
      binary: { contents: 'read' },
      publish: { contents: 'read', 'id-token': 'write' },
      release: { contents: 'write' },
    });
    // Nothing is published before the tests pass and every binary is built.
    expect(release.jobs.binary!.needs).toBe('test');
    expect(release.jobs.publish!.needs).toEqual(['test', 'binary']);
    expect(release.jobs.release!.needs).toBe('publish');
  });

  it('pins every action to a commit (with the version it is, in a comment), and keeps no credential in the checkout', () => {
    for (const text of [releaseText, actionText]) {
      const uses = usesLines(text);
      expect(uses.length).toBeGreaterThan(0);
      for (const { action, comment } of uses) {
        expect(action).toMatch(/^[\w.-]+\/[\w.-]+@[0-9a-f]{40}$/);
        expect(comment).toMatch(/^# v\d+\.\d+\.\d+$/);
      }
    }
    for (const job of Object.values(release.jobs)) {
      for (const step of job.steps.filter((s) => s.uses?.startsWith('actions/checkout@'))) expect(step.with).toMatchObject({ 'persist-credentials': false });
    }
  });

  it('tests as CI does, and checks that the tag is the version in package.json', () => {
    const runs = release.jobs.test!.steps.map((s) => s.run ?? '');
    expect(runs).toContain('bash .ci/run');
    expect(runs.some((r) => r.includes('require("./package.json").version') && r.includes('"$TAG"'))).toBe(true);
  });

  it('publishes to the registry with trusted publishing on Node 24: provenance, no token', () => {
    const job = release.jobs.publish!;
    const node = job.steps.find((s) => s.uses?.startsWith('actions/setup-node@'))!;
    expect(node.with).toEqual({ 'node-version': 24, 'registry-url': 'https://registry.npmjs.org' });
    expect(job.steps.map((s) => s.run)).toContain('npm publish --provenance --access public');
    expect(releaseText).not.toMatch(/NODE_AUTH_TOKEN|NPM_TOKEN|secrets\./);
  });

  it('builds the single executable for linux, macOS and Windows on Node 24, runs each, and releases them with SHA-256 sums and the formula', () => {
    const job = release.jobs.binary!;
    expect(job.strategy!.matrix.include.map((m) => m.target).sort()).toEqual(['darwin-arm64', 'darwin-x64', 'linux-arm64', 'linux-x64', 'win-x64']);
    expect(job.steps.find((s) => s.uses?.startsWith('actions/setup-node@'))!.with).toEqual({ 'node-version': 24 });
    const runs = job.steps.map((s) => s.run ?? '').join('\n');
    expect(runs).toContain('npm run --silent build:binary | tail -1');
    expect(runs).toContain('"$BINARY" --version');
    expect(runs).toContain('"$BINARY" balance --demo --json');
    const releasing = release.jobs.release!.steps.map((s) => s.run ?? '').join('\n');
    expect(releasing).toContain('sha256sum tally-* tally.rb > SHA256SUMS');
    expect(releasing).toContain('node scripts/homebrew-formula.mjs');
    expect(releasing).toContain('gh release create "$TAG" release/*');
    // macOS runs only signed code: the build signs the binary ad hoc after injecting the program.
    expect(readFileSync('scripts/build-binary.mjs', 'utf8')).toContain("execFileSync('codesign', ['--sign', '-', binary])");
  });
});

describe('action.yml', () => {
  it('runs tally on Node 24 LTS unless told otherwise', () => {
    const action = parse(actionText) as { inputs: Record<string, { default?: string }> };
    expect(action.inputs['node-version']!.default).toBe('24');
  });
});
