import { hostPort, DEFAULTED_REGIONS } from './host-port.ts';
import { defineMonitorType } from './monitor-type.ts';

/** TCP: the check opens a connection to `host:port` and closes it (checks/tcp-probe.ts). */
export const tcp = defineMonitorType({
  type: 'tcp',
  title: 'TCP',
  summary: 'Opens a TCP connection to a host and port.',
  message: 'TCPMonitor',
  target: 'uri',
  targetIsUrl: false,
  targetWords: 'host:port',
  timeoutWords: 'the wait for the connection',
  regions: { empty: DEFAULTED_REGIONS },
  fields: () => ({
    uri: {
      schema: hostPort('db.internal:5432'),
      ui: { label: 'Host and port', hint: 'A hostname or an IP address, without a scheme; port 1 to 65535.', placeholder: 'db.internal:5432' },
      docs: { rules: '`host:port`: a hostname or an IP address, port 1 to 65535. IPv6 in brackets: `[::1]:5432`. No scheme.' },
    },
  }),
  example: { uri: 'db.internal:5432' },
});
