/**
 * The forms a page path may be given in, and the nearest known paths when one is wrong: a
 * caller that guessed `reference/mcp` should learn what exists instead of guessing again.
 */
import { distance } from 'fastest-levenshtein';

export const SITE_INDEX_PATH = 'llms.txt';
/** A documentation page's path below docs/: lower-case words and hyphens per segment, nothing that can climb out of the folder. */
export const DOC_PATH = /^[a-z0-9][a-z0-9-]*(\/[a-z0-9][a-z0-9-]*)*$/;
/** Names a hosted product's site would have, for the page that means the same here. */
const ALIASES: Record<string, string> = {
  docs: 'docs/index',
  pricing: 'docs/reference/plans',
  plans: 'docs/reference/plans',
  llms: SITE_INDEX_PATH,
};

/**
 * The path in the one form pages are kept under (`docs/reference/mcp-server`, `status/acme`,
 * `llms.txt`), from `/docs/reference/mcp-server.md`, `reference/mcp-server`, a full address of
 * the page, and the like. The result may still name no page.
 */
export function canonicalPath(input: string): string {
  let path = input.trim();
  if (/^https?:\/\//i.test(path)) {
    try {
      path = new URL(path).pathname;
    } catch {
      // Not an address after all: taken as a path.
    }
  }
  path = path
    .replace(/[?#].*$/, '')
    .replace(/^\/+|\/+$/g, '')
    .replace(/\.md$/i, '')
    .toLowerCase();
  if (Object.hasOwn(ALIASES, path)) return ALIASES[path]!;
  if (path === '' || path.startsWith('docs/') || path.startsWith('status/') || path === SITE_INDEX_PATH) return path;
  return `docs/${path}`;
}

const lastSegment = (path: string) => path.slice(path.lastIndexOf('/') + 1);

/**
 * Up to `count` of `known` closest to `wanted` (canonical form): by the whole path or by its last
 * segment, whichever is closer, and any path whose last segment contains the wanted one or is
 * contained in it. Far-off paths are not suggested at all.
 */
export function closestPaths(wanted: string, known: Iterable<string>, count = 3): string[] {
  const name = lastSegment(wanted);
  const scored: { path: string; score: number }[] = [];
  for (const path of known) {
    const other = lastSegment(path);
    let score = Math.min(distance(wanted, path), distance(name, other));
    if (name.length >= 3 && other.length >= 3 && (other.includes(name) || name.includes(other))) score = Math.min(score, 1);
    if (score <= Math.max(2, Math.floor(name.length / 3))) scored.push({ path, score });
  }
  return scored
    .sort((a, b) => a.score - b.score || a.path.localeCompare(b.path))
    .slice(0, count)
    .map((s) => s.path);
}
