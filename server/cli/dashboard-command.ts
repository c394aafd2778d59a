import { DEFAULT_DASHBOARD_PORT, serviceConfig } from '../config.ts';
import { openBrowser } from './browser.ts';
import { type Command, dataDir, note, str } from './flags.ts';
import { withLocalOwner } from './local.ts';

/**
 * A new one-time sign-in link for the dashboard, made on the data folder by its owner, as
 * `statusdesk serve` prints at start: for a browser whose dashboard tabs were all closed.
 */
export const dashboardCommand: Command = {
  usage: 'dashboard [--dashboard-port Q] [--no-browser] [--data-dir D]',
  summary: 'print a new sign-in link to the dashboard of the running service, and open it',
  options: {
    ...dataDir,
    'dashboard-port': { type: 'string', valueName: 'PORT', description: 'the port of the dashboard (default 3001)' },
    'no-browser': { type: 'boolean', description: 'only print the link' },
  },
  async run(values) {
    const port = str(values, 'dashboard-port');
    const config = serviceConfig({ dashboardPort: port });
    const { token, service } = await withLocalOwner(str(values, 'data-dir'), async (services, owner, folder) => ({
      token: await services.sessions.createSignInToken(owner.type === 'user' ? owner.userId : 0),
      service: folder.service,
    }));
    // The dashboard of the service running on the folder, unless told otherwise.
    const dashboardUrl =
      config.dashboardUrl ?? (port === undefined ? service?.dashboardUrl : undefined) ?? `http://localhost:${config.dashboardPort || DEFAULT_DASHBOARD_PORT}`;
    const link = `${dashboardUrl}/signin?token=${token}`;
    process.stdout.write(`${link}\n`);
    note('the link works once, for 15 minutes');
    if (values['no-browser'] !== true) openBrowser(link);
  },
};
