import type { ContentIndex } from '../content/content-index.ts';

/** SPEC 8: a remotely fetched resource waits at most this long. */
const REMOTE_FETCH_TIMEOUT_MS = 5_000;

export interface ResourceSources {
  apiUrl: string;
  /** Where the documentation lives; when it is the service itself, nothing is fetched. */
  docsUrl: string;
  content: ContentIndex;
  /** The OpenAPI document of this service, as served at /openapi.json. */
  openapi(): Promise<string>;
}

export interface Resource {
  name: string;
  title: string;
  description: string;
  uri: string;
  mimeType: string;
  read(): Promise<string>;
}

/** Fetches a page, or says where it is: a resource never reads as empty (SPEC 4.3). */
async function fetchOrPoint(url: string, what: string): Promise<string> {
  let reason: string;
  try {
    const response = await fetch(url, { signal: AbortSignal.timeout(REMOTE_FETCH_TIMEOUT_MS), redirect: 'follow' });
    const text = await response.text();
    if (response.ok && text.trim() !== '') return text;
    reason = response.ok ? 'the answer was empty' : `the answer was HTTP ${response.status}`;
  } catch (error) {
    reason = error instanceof Error && error.name === 'TimeoutError' ? `no answer within ${REMOTE_FETCH_TIMEOUT_MS / 1000} s` : 'it could not be reached';
  }
  return `# ${what}\n\nThis resource could not be fetched just now (${reason}). Read it at ${url}\n`;
}

/** The three resources of SPEC 4.3: public, read-only, the same for every credential. */
export function resourcesOf(sources: ResourceSources): Resource[] {
  const local = sources.docsUrl === sources.apiUrl;
  const referenceUrl = `${sources.docsUrl}/docs/reference/mcp-server`;
  const siteIndexUrl = `${sources.docsUrl}/llms.txt`;
  return [
    {
      name: 'openapi-specification',
      title: 'OpenAPI specification',
      description: 'The full OpenAPI document of the Statusdesk REST API.',
      uri: `${sources.apiUrl}/openapi.json`,
      mimeType: 'application/json',
      read: () => sources.openapi(),
    },
    {
      name: 'mcp-server-reference',
      title: 'MCP server reference',
      description: 'The reference of this MCP server: tools, parameters, limits, errors and resources.',
      uri: referenceUrl,
      mimeType: 'text/markdown',
      read: async () => (local ? (await sources.content.getDocPage('docs/reference/mcp-server')).markdown : fetchOrPoint(referenceUrl, 'MCP server reference')),
    },
    {
      name: 'site-index',
      title: 'Site index',
      description: 'Product context, the plans and an index of every public page (llms.txt).',
      uri: siteIndexUrl,
      mimeType: 'text/markdown',
      read: async () => (local ? sources.content.siteIndex() : fetchOrPoint(siteIndexUrl, 'Site index')),
    },
  ];
}
