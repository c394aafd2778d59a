import { statusPageV1 } from '../../client/index.ts';
import { originSetting } from '../config.ts';
import { AppError } from '../errors.ts';
import { exportStaticPage } from '../public/static-export.ts';
import {
  address,
  client,
  type Command,
  connection,
  dataDir,
  int32,
  note,
  printFields,
  printJsonMessage,
  required,
  str,
  timeText,
  type Values,
} from './flags.ts';
import { withLocalOwner } from './local.ts';
import { printTable, UsageError } from './output.ts';

/**
 * `statusdesk pages ...`: status pages, their components and subscribers through the client
 * library (status_page.v1), like `monitors`; `pages export` works on the data folder instead.
 */

const { ComponentType, StatusPageSchema, PageComponentSchema, ListStatusPagesResponseSchema, ListPageComponentsResponseSchema, ListSubscribersResponseSchema, AddSubscriberResponseSchema } =
  statusPageV1;
type StatusPage = statusPageV1.StatusPage;
type PageComponent = statusPageV1.PageComponent;
type Subscriber = statusPageV1.Subscriber;

const pageFlags = { title: { type: 'string' }, slug: { type: 'string' }, description: { type: 'string' } } as const;
const componentFlags = {
  name: { type: 'string' },
  monitor: { type: 'string' },
  group: { type: 'string' },
  position: { type: 'string' },
  description: { type: 'string' },
} as const;

const componentTypeText = (type: statusPageV1.ComponentType) => (ComponentType[type] ?? '-').toLowerCase();

function printPage(page: StatusPage): void {
  printFields([
    ['id', page.id],
    ['slug', page.slug],
    ['title', page.title],
    ['description', page.description],
    ['url', page.url],
    ['created', timeText(page.createdAt)],
    ['updated', timeText(page.updatedAt)],
  ]);
}

function printComponent(component: PageComponent): void {
  printFields([
    ['id', component.id],
    ['page', component.pageId],
    ['name', component.name],
    ['type', componentTypeText(component.type)],
    ['monitor', component.monitorId],
    ['group', component.group],
    ['position', String(component.position)],
    ['description', component.description],
  ]);
}

function printSubscriber(subscriber: Subscriber): void {
  printFields([
    ['id', subscriber.id],
    ['page', subscriber.pageId],
    ['kind', subscriber.kind],
    ['address', subscriber.address],
    ['status', subscriber.status],
    ['created', timeText(subscriber.createdAt)],
    ['confirmed', subscriber.confirmedAt ? timeText(subscriber.confirmedAt) : undefined],
  ]);
}

// ---- pages ---------------------------------------------------------------------------------------

const pagesCreate: Command = {
  usage: 'pages create --title T --slug S [--description D] [--url URL] [--json]',
  options: { ...connection, ...pageFlags },
  async run(values) {
    const request = { title: required(values, 'title'), slug: required(values, 'slug'), description: str(values, 'description') ?? '' };
    const { statusPage } = await client(values).pages.createStatusPage(request);
    if (values.json) return printJsonMessage(StatusPageSchema, statusPage!);
    printPage(statusPage!);
  },
};

const pagesList: Command = {
  usage: 'pages list [--url URL] [--json]',
  options: connection,
  async run(values) {
    const response = await client(values).pages.listStatusPages({});
    if (values.json) return printJsonMessage(ListStatusPagesResponseSchema, response);
    printTable(
      ['ID', 'SLUG', 'TITLE', 'URL', 'CREATED'],
      response.statusPages.map((p) => [p.id, p.slug, p.title, p.url, timeText(p.createdAt)]),
    );
  },
};

const pagesGet: Command = {
  usage: 'pages get PAGE [--url URL] [--json]   (PAGE: id or slug)',
  options: connection,
  positionals: 1,
  async run(values, [page]) {
    const { statusPage } = await client(values).pages.getStatusPage({ page: page! });
    if (values.json) return printJsonMessage(StatusPageSchema, statusPage!);
    printPage(statusPage!);
  },
};

const pagesUpdate: Command = {
  usage: 'pages update PAGE [--title T] [--slug S] [--description D] [--url URL] [--json]',
  options: { ...connection, ...pageFlags },
  positionals: 1,
  async run(values, [page]) {
    const fields = { title: str(values, 'title'), slug: str(values, 'slug'), description: str(values, 'description') };
    if (Object.values(fields).every((v) => v === undefined)) throw new UsageError('nothing to change: give --title, --slug or --description');
    const { statusPage } = await client(values).pages.updateStatusPage({ id: page!, ...fields });
    if (values.json) return printJsonMessage(StatusPageSchema, statusPage!);
    printPage(statusPage!);
  },
};

const pagesDelete: Command = {
  usage: 'pages delete PAGE [--url URL]',
  options: address,
  positionals: 1,
  async run(values, [page]) {
    await client(values).pages.deleteStatusPage({ id: page! });
    note(`Deleted status page ${page} with its components, subscribers, reports and maintenance windows.`);
  },
};

// ---- components ----------------------------------------------------------------------------------

const componentsAdd: Command = {
  usage: 'pages components add PAGE --name N [--monitor ID] [--group G] [--position N] [--description D] [--url URL] [--json]',
  options: { ...connection, ...componentFlags },
  positionals: 1,
  async run(values, [page]) {
    const { component } = await client(values).pages.addPageComponent({
      pageId: page!,
      name: required(values, 'name'),
      description: str(values, 'description') ?? '',
      monitorId: str(values, 'monitor'),
      group: str(values, 'group'),
      position: int32('position', str(values, 'position')),
    });
    if (values.json) return printJsonMessage(PageComponentSchema, component!);
    printComponent(component!);
  },
};

const componentsList: Command = {
  usage: 'pages components list PAGE [--url URL] [--json]',
  options: connection,
  positionals: 1,
  async run(values, [page]) {
    const response = await client(values).pages.listPageComponents({ pageId: page! });
    if (values.json) return printJsonMessage(ListPageComponentsResponseSchema, response);
    printTable(
      ['ID', 'POSITION', 'NAME', 'TYPE', 'MONITOR', 'GROUP'],
      response.components.map((c) => [c.id, String(c.position), c.name, componentTypeText(c.type), c.monitorId, c.group]),
    );
  },
};

const componentsUpdate: Command = {
  usage: 'pages components update ID [--name N] [--monitor ID] [--group G] [--position N] [--description D] [--url URL] [--json]   (--monitor "" unlinks, --group "" ungroups)',
  options: { ...connection, ...componentFlags },
  positionals: 1,
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
    if (values.json) return printJsonMessage(PageComponentSchema, component!);
    printComponent(component!);
  },
};

const componentsRemove: Command = {
  usage: 'pages components remove ID [--url URL]',
  options: address,
  positionals: 1,
  async run(values, [id]) {
    await client(values).pages.removePageComponent({ id: id! });
    note(`Removed component ${id}.`);
  },
};

// ---- subscribers ---------------------------------------------------------------------------------

const subscribersAdd: Command = {
  usage: 'pages subscribers add PAGE (--email E | --webhook URL) [--url URL] [--json]',
  options: { ...connection, email: { type: 'string' }, webhook: { type: 'string' } },
  positionals: 1,
  async run(values, [page]) {
    const email = str(values, 'email');
    const webhook = str(values, 'webhook');
    if ((email === undefined) === (webhook === undefined)) throw new UsageError('give one of --email or --webhook');
    const response = await client(values).pages.addSubscriber({
      pageId: page!,
      target: email !== undefined ? { case: 'email', value: email } : { case: 'webhookUrl', value: webhook! },
    });
    if (values.json) return printJsonMessage(AddSubscriberResponseSchema, response);
    const subscriber = response.subscriber!;
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
  usage: 'pages subscribers list PAGE [--url URL] [--json]',
  options: connection,
  positionals: 1,
  async run(values, [page]) {
    const response = await client(values).pages.listSubscribers({ pageId: page! });
    if (values.json) return printJsonMessage(ListSubscribersResponseSchema, response);
    printTable(
      ['ID', 'KIND', 'ADDRESS', 'STATUS', 'CREATED', 'CONFIRMED'],
      response.subscribers.map((s) => [s.id, s.kind, s.address, s.status, timeText(s.createdAt), s.confirmedAt ? timeText(s.confirmedAt) : undefined]),
    );
  },
};

const subscribersRemove: Command = {
  usage: 'pages subscribers remove ID [--url URL]',
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
    if (publicUrl === undefined) note('Its links use the default address; give --public-url (or STATUSDESK_PUBLIC_URL) with the host that will serve the copy.');
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
