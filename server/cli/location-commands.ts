import type { privateLocationV1 } from '../../client/index.ts';
import { isoOf } from '../rpc/monitor-codec.ts';
import { locationStatus } from '../rpc/private-location-codec.ts';
import { confirmed, yes } from './confirm.ts';
import { address, type Command, connection, int32, list, note, type Options, pairs, printFields, restBase, serviceUrl, str, type Values } from './flags.ts';
import { client } from './service-client.ts';
import { printJson, printTable, UsageError } from './output.ts';

/**
 * `statusdesk locations ...`: private locations and their runners' tokens, through the client
 * library (private_location.v1). A token is printed once, when it is issued, with the command
 * that starts a runner with it.
 */

/** A location in the words of the flags and MCP: enums as words, times as ISO strings, absent as null. */
const locationWords = (l: privateLocationV1.PrivateLocation) => ({
  id: l.id,
  name: l.name,
  status: locationStatus.domain(l.status) ?? null,
  embedded: l.embedded,
  metadata: { ...l.metadata },
  lastSeenAt: isoOf(l.lastSeenAt),
  runnerVersion: l.runnerVersion || null,
  runnerHostname: l.runnerHostname || null,
  droppedResults: Number(l.droppedResults),
  createdAt: isoOf(l.createdAt),
});
type Shown = ReturnType<typeof locationWords>;

const entries = (map: Record<string, string>) =>
  Object.entries(map)
    .map(([k, v]) => `${k}=${v}`)
    .join(',');

function printLocation(l: Shown): void {
  printFields([
    ['id', l.id],
    ['name', l.name],
    ['status', l.status],
    ['embedded', String(l.embedded)],
    ['metadata', entries(l.metadata)],
    ['last seen', l.lastSeenAt ?? '(never)'],
    ['runner version', l.runnerVersion],
    ['runner host', l.runnerHostname],
    ['dropped results', String(l.droppedResults)],
    ['created', l.createdAt],
  ]);
}

/** A location as --json prints it, or else as a FIELD/VALUE table. */
function showLocation(values: Values, location: privateLocationV1.PrivateLocation): void {
  const shown = locationWords(location);
  if (values.json) return printJson(shown);
  printLocation(shown);
}

/**
 * A location with its token, just issued: --json prints both; otherwise the location, then the
 * token and the command that starts its runner, said to be shown only now.
 */
function showIssued(values: Values, location: privateLocationV1.PrivateLocation, token: string): void {
  const runner = `statusdesk runner --api-url ${restBase(serviceUrl(values))} --token ${token}`;
  if (values.json) return printJson({ privateLocation: locationWords(location), token, runnerCommand: runner });
  printLocation(locationWords(location));
  process.stdout.write(`\ntoken: ${token}\n`);
  note('The token is shown only now: keep it where the runner will run. Start the runner there with:');
  process.stdout.write(`${runner}\n`);
}

const metaFlag = {
  meta: { type: 'string', multiple: true, valueName: 'k=v', description: 'a metadata label, e.g. network=office (at most 20)' },
} as const satisfies Options;
const fields = { name: '--name', metadata: '--meta' };

const locationsList: Command = {
  usage: 'locations list [--page-number N] [--per-page N] [--api-url URL] [--json]',
  summary: 'list the embedded runner and the private locations, with their status',
  options: {
    ...connection,
    'page-number': { type: 'string', valueName: 'N', description: 'which page of the list, from 1' },
    'per-page': { type: 'string', valueName: 'N', description: 'how many per page (1 to 100)' },
  },
  fields: { page: '--page-number', perPage: '--per-page' },
  async run(values) {
    const response = await client(values).privateLocations.listPrivateLocations({
      page: int32('page-number', str(values, 'page-number')) ?? 0,
      perPage: int32('per-page', str(values, 'per-page')) ?? 0,
    });
    const locations = response.privateLocations.map(locationWords);
    if (values.json) return printJson({ privateLocations: locations, totalSize: response.totalSize });
    printTable(
      ['ID', 'NAME', 'STATUS', 'LAST SEEN', 'VERSION', 'HOST', 'METADATA'],
      locations.map((l) => [
        l.id,
        l.embedded ? `${l.name} (embedded)` : l.name,
        l.status,
        l.lastSeenAt,
        l.runnerVersion,
        l.runnerHostname,
        entries(l.metadata) || undefined,
      ]),
    );
    note(`${locations.length} of ${response.totalSize} locations`);
  },
};

const locationsGet: Command = {
  usage: 'locations get ID [--api-url URL] [--json]',
  summary: 'show a private location (never its token)',
  options: connection,
  positionals: 1,
  async run(values, [id]) {
    const { privateLocation } = await client(values).privateLocations.getPrivateLocation({ id: id! });
    showLocation(values, privateLocation!);
  },
};

const locationsCreate: Command = {
  usage: 'locations create --name NAME [--meta k=v]... [--api-url URL] [--json]',
  summary: 'create a private location; prints its token once, and the command that starts its runner',
  options: {
    ...connection,
    name: { type: 'string', valueName: 'NAME', description: 'lower-case letters, digits and hyphens, 2 to 40, starting with a letter' },
    ...metaFlag,
  },
  fields,
  async run(values) {
    const response = await client(values).privateLocations.createPrivateLocation({
      name: str(values, 'name') ?? '',
      metadata: pairs('meta', list(values, 'meta')),
    });
    showIssued(values, response.privateLocation!, response.token);
  },
};

const locationsUpdate: Command = {
  usage: 'locations update ID [--name NAME] [--meta k=v]... [--clear-metadata] [--api-url URL] [--json]   (--meta replaces all the metadata)',
  summary: 'rename a private location or replace its metadata',
  options: {
    ...connection,
    name: { type: 'string', valueName: 'NAME', description: 'a new name; results already stored keep the old one' },
    ...metaFlag,
    'clear-metadata': { type: 'boolean', description: 'remove every metadata label' },
  },
  positionals: 1,
  fields,
  async run(values, [id]) {
    const metadata = list(values, 'meta');
    const clear = values['clear-metadata'] === true;
    if (clear && metadata.length > 0) throw new UsageError('give --meta or --clear-metadata, not both');
    const name = str(values, 'name');
    if (name === undefined && metadata.length === 0 && !clear) throw new UsageError('nothing to change: give --name, --meta or --clear-metadata');
    const { privateLocation } = await client(values).privateLocations.updatePrivateLocation({
      id: id!,
      name,
      metadata: pairs('meta', metadata),
      replaceMetadata: clear || metadata.length > 0,
    });
    showLocation(values, privateLocation!);
  },
};

const locationsDelete: Command = {
  usage: 'locations delete ID [--yes] [--api-url URL]',
  summary: 'delete a private location: its runner stops and monitors no longer check from it (asks first; --yes when not on a terminal)',
  options: { ...address, ...yes },
  positionals: 1,
  async run(values, [id]) {
    const api = client(values);
    const go = await confirmed(values, async () => {
      const { privateLocation } = await api.privateLocations.getPrivateLocation({ id: id! });
      return `Delete private location ${privateLocation!.id} "${privateLocation!.name}"? Its runner stops and its monitors no longer check from it.`;
    });
    if (!go) return 1;
    await api.privateLocations.deletePrivateLocation({ id: id! });
    note(`Deleted private location ${id}.`);
  },
};

const locationsRotateToken: Command = {
  usage: 'locations rotate-token ID [--api-url URL] [--json]   (the old token stops working at once)',
  summary: "replace a private location's token: its runner stops until started with the new one, printed once",
  options: connection,
  positionals: 1,
  async run(values, [id]) {
    const response = await client(values).privateLocations.rotatePrivateLocationToken({ id: id! });
    showIssued(values, response.privateLocation!, response.token);
  },
};

export const locationCommands: Record<string, Command> = {
  'locations list': locationsList,
  'locations get': locationsGet,
  'locations create': locationsCreate,
  'locations update': locationsUpdate,
  'locations delete': locationsDelete,
  'locations rotate-token': locationsRotateToken,
};
