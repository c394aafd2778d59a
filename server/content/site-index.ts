import { type Plan, planNames, plans } from '../domain/plans.ts';
import { clip, linkText } from './markdown-text.ts';

export interface SiteLink {
  title: string;
  url: string;
  /** One line; empty when there is nothing to say. */
  description: string;
}

export interface SiteIndexInput {
  apiUrl: string;
  /** The plans page of the documentation, when the docs have one. */
  plansUrl: string | undefined;
  docs: SiteLink[];
  guides: SiteLink[];
  changelog: SiteLink[];
  statusPages: SiteLink[];
}

const list = (words: readonly string[]) => (words.length <= 1 ? words.join('') : `${words.slice(0, -1).join(', ')} or ${words.at(-1)}`);

function planLine(plan: Plan): string {
  return [
    `- ${plan.name}: checks every ${list(plan.frequencies)}`,
    `${plan.defaultTcpRegionCount} default regions for TCP monitors`,
    plan.auditLog ? 'audit log readable (list_audit_logs, get_audit_log)' : 'audit log written but not readable',
    plan.subscriberNotifications ? 'status page subscribers notified' : 'no subscriber notifications',
  ].join('; ');
}

const links = (items: SiteLink[]) => items.map((l) => `- [${linkText(l.title)}](${l.url})${l.description ? `: ${clip(l.description, 200)}` : ''}`);

/**
 * The site index in the llms.txt form: a title, a one-paragraph summary in a quote, context, then
 * sections of links with a line each. Everything linked is public and needs no credential.
 * Statusdesk runs on the user's machine and sells nothing, so where a hosted product would list
 * prices this lists the plans a workspace can be set to.
 */
export function renderSiteIndex(input: SiteIndexInput): string {
  const { apiUrl } = input;
  const out = [
    '# Statusdesk',
    '',
    '> Statusdesk is a status-monitoring service that runs on your own machine, embedded in a desktop app: TCP, gRPC health and HTTP checks, public status pages, status reports, maintenance windows and notifications, with a ConnectRPC API, a REST API and an MCP server.',
    '',
    `This service answers at ${apiUrl}. Documentation pages are markdown and status pages are public: none of the links below needs a credential. The APIs do:`,
    '',
    `- ConnectRPC API: ${apiUrl}/rpc (Connect, gRPC and gRPC-Web), API key in the \`x-service-key\` header`,
    `- REST API: ${apiUrl}/v1/whoami; the full list is the OpenAPI document at ${apiUrl}/openapi.json`,
    `- MCP server: ${apiUrl}/mcp (Streamable HTTP, stateless): monitors, status pages, reports, maintenance, notifications, audit log, and search over these pages (search_docs, search_content)`,
    '',
    '## Plans',
    '',
    'Nothing is bought: Statusdesk is local, and a plan is a setting of each workspace that mirrors the limits of a hosted account. A new local workspace starts on scale, which has every feature.',
    '',
    ...planNames.map((name) => planLine(plans[name])),
    ...(input.plansUrl ? [`- [Plans and regions](${input.plansUrl}): the table of plans and the list of regions`] : []),
    '',
  ];
  const sections: [string, SiteLink[], string | undefined][] = [
    ['Docs', input.docs, undefined],
    ['Guides', input.guides, undefined],
    ['Changelog', input.changelog, undefined],
    ['Status pages', input.statusPages, 'No public status pages yet.'],
  ];
  for (const [heading, items, none] of sections) {
    if (items.length === 0 && none === undefined) continue;
    out.push(`## ${heading}`, '', ...(items.length > 0 ? links(items) : [none!]), '');
  }
  out.push('## Optional', '', `- [OpenAPI document](${apiUrl}/openapi.json): every REST path with its schemas, machine-readable`, '');
  return `${out.join('\n').trim()}\n`;
}
