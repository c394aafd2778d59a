import { readFile } from 'node:fs/promises';
import { originSetting } from '../config.ts';
import { AppError } from '../errors.ts';
import { exportStaticPage } from '../public/static-export.ts';
import { componentWords, pageWords, subscriberWords } from '../rpc/page-codec.ts';
import { confirmed, yes } from './confirm.ts';
import { address, type Command, connection, dataDir, int32, note, type Options, printFields, required, str, type Values } from './flags.ts';
import { client } from './service-client.ts';
import { withLocalOwner } from './local.ts';
import { printJson, printTable, UsageError } from './output.ts';

/**
 * `statusdesk pages ...`: status pages, their components and subscribers through the client
 * library (status_page.v1), like `monitors`, shown in the words of page-codec.ts (pageWords, …);
 * `pages export` works on the data folder instead.
 */

const pageFlags = {
  title: { type: 'string', valueName: 'TITLE', description: 'the title shown on the page' },
  slug: { type: 'string', valueName: 'SLUG', description: 'the name in its public address (/status/SLUG)' },
  description: { type: 'string', valueName: 'TEXT', description: 'a line under the title' },
  'accent-color': { type: 'string', valueName: '#RRGGBB', description: 'the colour of the band above the title ("" clears)' },
  website: { type: 'string', valueName: 'URL', description: 'the link back to your site, http:// or https:// ("" clears)' },
  logo: { type: 'string', valueName: 'FILE', description: 'a PNG, JPEG, WebP or GIF file of at most 64 KB ("" removes the logo)' },
  domain: { type: 'string', valueName: 'NAME', description: 'a host name that serves the page at / ("" removes it)' },
} as const satisfies Options;
const componentFlags = {
  name: { type: 'string', valueName: 'NAME', description: 'what the component is called on the page' },
  monitor: { type: 'string', valueName: 'ID', description: 'the monitor whose health it shows ("" unlinks: a static component)' },
  group: { type: 'string', valueName: 'GROUP', description: 'the group it is listed under ("" ungroups)' },
  position: { type: 'string', valueName: 'N', description: 'its place on the page, from 0' },
  description: { type: 'string', valueName: 'TEXT', description: 'a line under its name' },
} as const satisfies Options;
const pageFields = {
  title: '--title',
  slug: '--slug',
  description: '--description',
  accentColor: '--accent-color',
  websiteUrl: '--website',
  logo: '--logo',
  customDomain: '--domain',
};

/** The branding and domain flags given, as the request's fields: "" clears, a logo is read from its file. */
async function brandingOf(values: Values) {
  const logoFile = str(values, 'logo');
  let logo: Uint8Array | undefined;
  if (logoFile === '') logo = new Uint8Array();
  else if (logoFile !== undefined) {
    logo = await readFile(logoFile).catch((error: NodeJS.ErrnoException) => {
      throw new UsageError(`--logo: cannot read ${logoFile}: ${error.code ?? error.message}`);
    });
  }
  return { accentColor: str(values, 'accent-color'), websiteUrl: str(values, 'website'), customDomain: str(values, 'domain'), logo };
}
const componentFields = { name: '--name', description: '--description', monitorId: '--monitor', group: '--group', position: '--position' };

type PageShown = ReturnType<typeof pageWords>;
type ComponentShown = ReturnType<typeof componentWords>;
type SubscriberShown = ReturnType<typeof subscriberWords>;

function printPage(page: PageShown): void {
  printFields([
    ['id', page.id],
    ['slug', page.slug],
    ['title', page.title],
    ['description', page.description],
    ['url', page.url],
    ['custom domain', page.customDomain],
    ['former slug', page.formerSlug],
    ['accent colour', page.accentColor],
    ['website', page.websiteUrl],
    ['logo', page.logo === null ? null : `${page.logo.type}, ${page.logo.bytes} bytes`],
    ['created', page.createdAt],
    ['updated', page.updatedAt],
  ]);
}

function printComponent(component: ComponentShown): void {
  printFields([
    ['id', component.id],
    ['page', component.pageId],
    ['name', component.name],
    ['type', component.type],
    ['monitor', component.monitorId],
    ['group', component.group],
    ['position', String(component.position)],
    ['description', component.description],
  ]);
}

function printSubscriber(subscriber: SubscriberShown): void {
  printFields([
    ['id', subscriber.id],
    ['page', subscriber.pageId],
    ['kind', subscriber.kind],
    ['address', subscriber.address],
    ['status', subscriber.status],
    ['created', subscriber.createdAt],
    ['confirmed', subscriber.confirmedAt],
    ['last delivery', subscriber.lastDeliveryAt],
    ['delivery error', subscriber.lastDeliveryError],
  ]);
}

/** A record as --json prints it, or else as a FIELD/VALUE table. */
function show<T>(values: Values, shown: T, print: (shown: T) => void): void {
  if (values.json) return printJson(shown);
  print(shown);
}

// ---- pages ---------------------------------------------------------------------------------------

const pagesCreate: Command = {
  usage: 'pages create --title T --slug S [--description D] [--accent-color #RRGGBB] [--website URL] [--logo FILE] [--domain NAME] [--api-url URL] [--json]',
  summary: 'create a status page',
  options: { ...connection, ...pageFlags },
  fields: pageFields,
  async run(values) {
    const request = {
      title: required(values, 'title'),
      slug: required(values, 'slug'),
      description: str(values, 'description') ?? '',
      ...(await brandingOf(values)),
    };
    const { statusPage } = await client(values).pages.createStatusPage(request);
    show(values, pageWords(statusPage!), printPage);
  },
};

const pagesList: Command = {
  usage: 'pages list [--api-url URL] [--json]',
  summary: 'list the status pages',
  options: connection,
  async run(values) {
    const statusPages = (await client(values).pages.listStatusPages({})).statusPages.map(pageWords);
    if (values.json) return printJson({ statusPages });
    printTable(
      ['ID', 'SLUG', 'TITLE', 'URL', 'CREATED'],
      statusPages.map((p) => [p.id, p.slug, p.title, p.url, p.createdAt]),
    );
  },
};

const pagesGet: Command = {
  usage: 'pages get PAGE [--api-url URL] [--json]   (PAGE: id or slug)',
  summary: 'show a status page',
  options: connection,
  positionals: 1,
  async run(values, [page]) {
    const { statusPage } = await client(values).pages.getStatusPage({ page: page! });
    show(values, pageWords(statusPage!), printPage);
  },
};

const pagesUpdate: Command = {
  usage:
    'pages update PAGE [--title T] [--slug S] [--description D] [--accent-color #RRGGBB] [--website URL] [--logo FILE] [--domain NAME] [--api-url URL] [--json]',
  summary: "change a status page's title, slug, description, branding or custom domain",
  options: { ...connection, ...pageFlags },
  positionals: 1,
  fields: pageFields,
  async run(values, [page]) {
    const fields = { title: str(values, 'title'), slug: str(values, 'slug'), description: str(values, 'description'), ...(await brandingOf(values)) };
    if (Object.values(fields).every((v) => v === undefined))
      throw new UsageError('nothing to change: give --title, --slug, --description, --accent-color, --website, --logo or --domain');
    const { statusPage } = await client(values).pages.updateStatusPage({ id: page!, ...fields });
    show(values, pageWords(statusPage!), printPage);
  },
};

const plural = (n: number, noun: string) => `${n} ${noun}${n === 1 ? '' : 's'}`;

const pagesDelete: Command = {
  usage: 'pages delete PAGE [--yes] [--api-url URL]',
  summary: 'delete a status page with its components, subscribers, reports and maintenance windows (asks first; --yes when not on a terminal)',
  options: { ...address, ...yes },
  positionals: 1,
  async run(values, [page]) {
    const api = client(values);
    const go = await confirmed(values, async () => {
      const { statusPage } = await api.pages.getStatusPage({ page: page! });
      const [reports, maintenances] = await Promise.all([
        api.reports.listStatusReports({ filter: 'all', pageId: statusPage!.id, perPage: 1 }),
        api.maintenances.listMaintenances({ pageId: statusPage!.id, perPage: 1 }),
      ]);
      const what = `${plural(reports.pagination?.totalSize ?? 0, 'status report')} and ${plural(maintenances.pagination?.totalSize ?? 0, 'maintenance window')}`;
      return `Delete status page ${statusPage!.id} "${statusPage!.title}" with its ${what}?`;
    });
    if (!go) return 1;
    await api.pages.deleteStatusPage({ id: page! });
    note(`Deleted status page ${page} with its components, subscribers, reports and maintenance windows.`);
  },
};

// ---- components ----------------------------------------------------------------------------------

const componentsAdd: Command = {
  usage: 'pages components add PAGE --name N [--monitor ID] [--group G] [--position N] [--description D] [--api-url URL] [--json]',
  summary: 'add a component to a status page, linked to a monitor or static',
  options: { ...connection, ...componentFlags },
  positionals: 1,
  fields: componentFields,
  async run(values, [page]) {
    const { component } = await client(values).pages.addPageComponent({
      pageId: page!,
      name: required(values, 'name'),
      description: str(values, 'description') ?? '',
      monitorId: str(values, 'monitor'),
      group: str(values, 'group'),
      position: int32('position', str(values, 'position')),
    });
    show(values, componentWords(component!), printComponent);
  },
};

const componentsList: Command = {
  usage: 'pages components list PAGE [--api-url URL] [--json]',
  summary: "list a status page's components in their order",
  options: connection,
  positionals: 1,
  async run(values, [page]) {
    const components = (await client(values).pages.listPageComponents({ pageId: page! })).components.map(componentWords);
    if (values.json) return printJson({ components });
    printTable(
      ['ID', 'POSITION', 'NAME', 'TYPE', 'MONITOR', 'GROUP'],
      components.map((c) => [c.id, String(c.position), c.name, c.type, c.monitorId, c.group]),
    );
  },
};

const componentsUpdate: Command = {
  usage:
    'pages components update ID [--name N] [--monitor ID] [--group G] [--position N] [--description D] [--api-url URL] [--json]   (--monitor "" unlinks, --group "" ungroups)',
  summary: 'change a component; the other fields keep their values',
  options: { ...connection, ...componentFlags },
  positionals: 1,
  fields: componentFields,
  async run(values, [id]) {
    const fields = {
      name: str(values, 'name'),
      description: str(values, 'description'),
      monitorId: str(values, 'monitor'),
      group: str(values, 'group'),
      position: int32('position', str(values, 'position')),
    };
    if (Object.values(fields).every((v) => v === undefined)) {
      throw new UsageError('nothing to change: give --name, --monitor, --group, --position or --description');
    }
    const { component } = await client(values).pages.updatePageComponent({ id: id!, ...fields });
    show(values, componentWords(component!), printComponent);
  },
};

const componentsRemove: Command = {
  usage: 'pages components remove ID [--api-url URL]',
  summary: 'remove a component from its status page',
  options: address,
  positionals: 1,
  async run(values, [id]) {
    await client(values).pages.removePageComponent({ id: id! });
    note(`Removed component ${id}.`);
  },
};

// ---- subscribers ---------------------------------------------------------------------------------

const subscribersAdd: Command = {
  usage: 'pages subscribers add PAGE (--email E | --webhook URL) [--api-url URL] [--json]',
  summary: "subscribe an address to a status page's notices",
  options: {
    ...connection,
    email: { type: 'string', valueName: 'ADDRESS', description: 'a mail address (sent a confirmation link first)' },
    webhook: { type: 'string', valueName: 'URL', description: 'a webhook that receives signed notices' },
  },
  positionals: 1,
  fields: { email: '--email', webhookUrl: '--webhook' },
  async run(values, [page]) {
    const email = str(values, 'email');
    const webhook = str(values, 'webhook');
    if ((email === undefined) === (webhook === undefined)) throw new UsageError('give one of --email or --webhook');
    const response = await client(values).pages.addSubscriber({
      pageId: page!,
      target: email !== undefined ? { case: 'email', value: email } : { case: 'webhookUrl', value: webhook! },
    });
    const subscriber = subscriberWords(response.subscriber!);
    if (values.json) return printJson({ subscriber, webhookSecret: response.webhookSecret ?? null });
    if (response.webhookSecret !== undefined) {
      // As `keys create`: only the secret on stdout, so that `SECRET=$(statusdesk pages subscribers add …)` works.
      process.stdout.write(`${response.webhookSecret}\n`);
      note(`Subscribed webhook ${subscriber.address} to page ${page} (subscriber ${subscriber.id}).`);
      note('This is the only time the signing secret is shown: store it now. Each notice is signed with it (HMAC-SHA256, x-statusdesk-signature).');
      return;
    }
    printSubscriber(subscriber);
    if (subscriber.status === 'pending') note(`A confirmation mail went to ${subscriber.address}: nothing else is sent until its link is followed.`);
  },
};

const subscribersList: Command = {
  usage: 'pages subscribers list PAGE [--api-url URL] [--json]',
  summary: "list a status page's subscribers",
  options: connection,
  positionals: 1,
  async run(values, [page]) {
    const subscribers = (await client(values).pages.listSubscribers({ pageId: page! })).subscribers.map(subscriberWords);
    if (values.json) return printJson({ subscribers });
    printTable(
      ['ID', 'KIND', 'ADDRESS', 'STATUS', 'CREATED', 'CONFIRMED', 'LAST DELIVERY', 'DELIVERY ERROR'],
      subscribers.map((s) => [s.id, s.kind, s.address, s.status, s.createdAt, s.confirmedAt, s.lastDeliveryAt, s.lastDeliveryError]),
    );
  },
};

const subscribersRemove: Command = {
  usage: 'pages subscribers remove ID [--api-url URL]',
  summary: 'remove a subscriber',
  options: address,
  positionals: 1,
  async run(values, [id]) {
    await client(values).pages.removeSubscriber({ id: id! });
    note(`Removed subscriber ${id}.`);
  },
};

// ---- export --------------------------------------------------------------------------------------

/** The public address of the export: --public-url, else STATUSDESK_PUBLIC_URL, else the services' default. */
function publicUrlOf(values: Values): string | undefined {
  const flag = str(values, 'public-url');
  if (flag !== undefined) {
    let origin: string | undefined;
    try {
      origin = originSetting('--public-url', flag);
    } catch (error) {
      throw error instanceof AppError ? new UsageError(error.message) : error;
    }
    if (origin === undefined) throw new UsageError('--public-url must not be empty');
    return origin;
  }
  return originSetting('STATUSDESK_PUBLIC_URL', process.env.STATUSDESK_PUBLIC_URL);
}

const pagesExport: Command = {
  usage: 'pages export PAGE --out DIR [--public-url URL] [--data-dir D]   (works on the data folder; no running service needed)',
  summary: 'write a static copy of a status page (index.html, feed.atom, summary.json) from the data folder',
  options: { ...dataDir, out: { type: 'string' }, 'public-url': { type: 'string' } },
  positionals: 1,
  async run(values, [ref]) {
    const out = required(values, 'out');
    const publicUrl = publicUrlOf(values);
    const { files, url } = await withLocalOwner(
      str(values, 'data-dir'),
      async (services, owner) => {
        // The page must be one of the owner's workspaces; the public view takes its slug.
        for (const workspace of await services.workspaces.list(owner)) {
          let slug: string;
          try {
            slug = (await services.pages.get(owner, Number(workspace.id), ref!)).slug;
          } catch (error) {
            if (error instanceof AppError && error.code === 'NOT_FOUND') continue;
            throw error;
          }
          const view = await services.publicPages.view(slug);
          return { files: await exportStaticPage(view, out), url: view.url };
        }
        throw new AppError('NOT_FOUND', `status page ${ref} does not exist in your workspaces`);
      },
      publicUrl === undefined ? {} : { publicUrl },
    );
    for (const file of files) process.stdout.write(`${file}\n`);
    note(`Exported a snapshot of the page: publish the folder at ${url}/`);
    if (publicUrl === undefined)
      note('Its links use the default address; give --public-url (or STATUSDESK_PUBLIC_URL) with the host that will serve the copy.');
  },
};

export const pageCommands: Record<string, Command> = {
  'pages create': pagesCreate,
  'pages list': pagesList,
  'pages get': pagesGet,
  'pages update': pagesUpdate,
  'pages delete': pagesDelete,
  'pages components add': componentsAdd,
  'pages components list': componentsList,
  'pages components update': componentsUpdate,
  'pages components remove': componentsRemove,
  'pages subscribers add': subscribersAdd,
  'pages subscribers list': subscribersList,
  'pages subscribers remove': subscribersRemove,
  'pages export': pagesExport,
};
