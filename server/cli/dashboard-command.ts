import { DEFAULT_DASHBOARD_PORT, serviceConfig } from '../config.ts';
import { openBrowser } from './browser.ts';
import { type Command, dataDir, note, str } from './flags.ts';
import { withLocalOwner } from './local.ts';

/**
 * A new one-time sign-in link for the dashboard, made on the data folder by its owner, as
 * `statusdesk serve` prints at start: for a browser whose dashboard tabs were all closed.
 */
export const dashboardCommand: Command = {
  usage: 'dashboard [--dashboard-port Q] [--no-browser] [--data-dir D]   (prints a new sign-in link for the running service and opens it)',
  options: { ...dataDir, 'dashboard-port': { type: 'string' }, 'no-browser': { type: 'boolean' } },
  async run(values) {
    const config = serviceConfig({ dataDir: str(values, 'data-dir'), dashboardPort: str(values, 'dashboard-port') });
    const dashboardUrl = config.dashboardUrl ?? `http://localhost:${config.dashboardPort || DEFAULT_DASHBOARD_PORT}`;
    const token = await withLocalOwner(config.dataDir, async (services, owner) => services.sessions.createSignInToken(owner.type === 'user' ? owner.userId : 0));
    const link = `${dashboardUrl}/signin?token=${token}`;
    process.stdout.write(`${link}\n`);
    note('the link works once, for 15 minutes');
    if (values['no-browser'] !== true) openBrowser(link);
  },
};
