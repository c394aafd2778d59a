import type { Migration } from 'kysely';
import * as m0001 from './0001-initial.ts';
import * as m0002 from './0002-monitors.ts';
import * as m0003 from './0003-checks.ts';
import * as m0004 from './0004-pages.ts';
import * as m0005 from './0005-oauth.ts';
import * as m0006 from './0006-sealed-secrets.ts';
import * as m0007 from './0007-dashboard-views.ts';
import * as m0008 from './0008-subscriber-deliveries.ts';
import * as m0009 from './0009-private-locations.ts';
import * as m0010 from './0010-check-leases.ts';
import * as m0011 from './0011-compact-latencies.ts';
import * as m0012 from './0012-mcp-monitors.ts';
import * as m0013 from './0013-alert-routing.ts';
import * as m0014 from './0014-heartbeats.ts';
import * as m0015 from './0015-channel-deliveries.ts';
import * as m0016 from './0016-page-branding.ts';
import * as m0017 from './0017-email-settings.ts';
import * as m0018 from './0018-monitor-badges.ts';
import * as m0019 from './0019-repeating-maintenance.ts';
import * as m0020 from './0020-monitor-incidents.ts';
import * as m0021 from './0021-monitor-groups.ts';
import * as m0022 from './0022-team-sign-in.ts';

/**
 * Every migration, in order, imported statically so a bundled app carries them. Append only:
 * the position of a migration in this list is the schema version it produces.
 */
export const migrations: Record<string, Migration> = {
  '0001-initial': m0001,
  '0002-monitors': m0002,
  '0003-checks': m0003,
  '0004-pages': m0004,
  '0005-oauth': m0005,
  '0006-sealed-secrets': m0006,
  '0007-dashboard-views': m0007,
  '0008-subscriber-deliveries': m0008,
  '0009-private-locations': m0009,
  '0010-check-leases': m0010,
  '0011-compact-latencies': m0011,
  '0012-mcp-monitors': m0012,
  '0013-alert-routing': m0013,
  '0014-heartbeats': m0014,
  '0015-channel-deliveries': m0015,
  '0016-page-branding': m0016,
  '0017-email-settings': m0017,
  '0018-monitor-badges': m0018,
  '0019-repeating-maintenance': m0019,
  '0020-monitor-incidents': m0020,
  '0021-monitor-groups': m0021,
  '0022-team-sign-in': m0022,
};
