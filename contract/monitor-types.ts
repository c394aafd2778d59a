// Generated from server/domain/monitors/types/ by `node scripts/contract-fields.ts`: do not edit.
// Each field's words, its flag, and the JSON Schema of its input (values, limits, default), from
// the schema the service validates with; test/registries.test.ts fails when this file is stale.

export const MONITOR_TYPES = {
  tcp: {
    type: 'tcp',
    title: 'TCP',
    summary: 'Opens a TCP connection to a host and port.',
    target: 'uri',
    targetIsUrl: false,
    regionsRequired: false,
    secretMaps: [],
    fields: [
      {
        name: 'uri',
        label: 'Host and port',
        hint: 'A hostname or an IP address, without a scheme; port 1 to 65535.',
        placeholder: 'db.internal:5432',
        required: true,
        flag: '--target',
        schema: {
          type: 'string',
          minLength: 1,
        },
      },
    ],
  },
  grpc: {
    type: 'grpc',
    title: 'gRPC',
    summary: 'Calls grpc.health.v1.Health/Check on a server.',
    target: 'uri',
    targetIsUrl: false,
    regionsRequired: true,
    secretMaps: ['metadata'],
    fields: [
      {
        name: 'uri',
        label: 'Host and port',
        hint: 'A hostname or an IP address, without a scheme; port 1 to 65535.',
        placeholder: 'api.internal:50051',
        required: true,
        flag: '--target',
        schema: {
          type: 'string',
          minLength: 1,
        },
      },
      {
        name: 'service',
        label: 'Service name',
        hint: 'Sent in the health request, e.g. my.package.MyService. Empty checks the whole server. A service name, not a method path.',
        required: false,
        flag: '--service',
        schema: {
          default: '',
          type: 'string',
          maxLength: 256,
          description: 'a service name',
        },
      },
      {
        name: 'tls',
        label: 'TLS',
        hint: 'verify checks the certificate against the system trust store; skip-verify accepts any; plaintext is h2c.',
        required: false,
        flag: '--tls',
        schema: {
          default: 'verify',
          type: 'string',
          enum: ['verify', 'skip-verify', 'plaintext'],
        },
      },
      {
        name: 'metadata',
        label: 'Metadata',
        hint: 'Sent with the request as HTTP/2 headers. Names are lower-case; grpc- names are reserved.',
        required: false,
        flag: '--metadata',
        schema: {
          default: {},
          type: 'object',
          propertyNames: {
            type: 'string',
          },
          additionalProperties: {
            type: 'string',
            pattern: '^[\\t\\x20-\\x7e\\x80-\\uffff]*$',
          },
        },
      },
    ],
  },
  http: {
    type: 'http',
    title: 'HTTP',
    summary: 'Requests a URL and checks the answer.',
    target: 'url',
    targetIsUrl: true,
    regionsRequired: false,
    secretMaps: ['headers'],
    fields: [
      {
        name: 'url',
        label: 'URL',
        hint: 'An absolute http:// or https:// URL, without credentials: send them in a header.',
        placeholder: 'https://example.com/health',
        required: true,
        flag: '--target',
        schema: {
          type: 'string',
          minLength: 1,
        },
      },
      {
        name: 'method',
        label: 'Method',
        required: false,
        flag: '--method',
        schema: {
          default: 'GET',
          type: 'string',
          enum: ['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS'],
        },
      },
      {
        name: 'headers',
        label: 'Headers',
        hint: 'At most 32, 8 KiB in all.',
        required: false,
        flag: '--header',
        schema: {
          default: {},
          type: 'object',
          propertyNames: {
            type: 'string',
            pattern: "^[!#$%&'*+.^_`|~0-9A-Za-z-]+$",
          },
          additionalProperties: {
            type: 'string',
            pattern: '^[\\t\\x20-\\x7e\\x80-\\uffff]*$',
          },
        },
      },
      {
        name: 'body',
        label: 'Request body',
        hint: 'Up to 64 KiB. Not sent with GET or HEAD: choose POST, PUT or PATCH to send one.',
        required: false,
        flag: '--body',
        schema: {
          default: '',
          type: 'string',
        },
      },
      {
        name: 'followRedirects',
        label: 'Follow redirects',
        hint: 'Up to 10.',
        required: false,
        flag: '--follow-redirects',
        schema: {
          default: true,
          type: 'boolean',
        },
      },
      {
        name: 'statusCodeAssertions',
        label: 'Status code',
        hint: 'Without one, any 2xx status passes.',
        placeholder: '200',
        required: false,
        flag: '--assert-status',
        schema: {
          default: [],
          maxItems: 20,
          type: 'array',
          items: {
            type: 'object',
            properties: {
              comparator: {
                type: 'string',
                enum: ['equal', 'not_equal', 'greater_than', 'greater_than_or_equal', 'less_than', 'less_than_or_equal'],
              },
              target: {
                type: 'integer',
                minimum: 100,
                maximum: 599,
                description: 'a status code',
              },
            },
            required: ['comparator', 'target'],
            additionalProperties: false,
          },
        },
      },
      {
        name: 'headerAssertions',
        label: 'Response header',
        placeholder: 'content-type',
        required: false,
        flag: '--assert-header',
        schema: {
          default: [],
          maxItems: 20,
          type: 'array',
          items: {
            type: 'object',
            properties: {
              key: {
                type: 'string',
                pattern: "^[!#$%&'*+.^_`|~0-9A-Za-z-]+$",
                description: 'a header name',
              },
              comparator: {
                type: 'string',
                enum: ['contains', 'not_contains', 'equal', 'not_equal', 'empty', 'not_empty'],
              },
              target: {
                default: '',
                type: 'string',
                maxLength: 1024,
              },
            },
            required: ['key', 'comparator'],
            additionalProperties: false,
          },
        },
      },
      {
        name: 'bodyAssertions',
        label: 'Response body',
        required: false,
        flag: '--assert-body-contains',
        schema: {
          default: [],
          maxItems: 20,
          type: 'array',
          items: {
            type: 'object',
            properties: {
              comparator: {
                type: 'string',
                enum: ['contains', 'not_contains', 'equal', 'not_equal', 'empty', 'not_empty'],
              },
              target: {
                default: '',
                type: 'string',
                maxLength: 10240,
              },
            },
            required: ['comparator'],
            additionalProperties: false,
          },
        },
      },
    ],
  },
  mcp: {
    type: 'mcp',
    title: 'MCP server',
    summary: 'Connects to an MCP server, over Streamable HTTP or stdio, and lists its tools.',
    target: 'server',
    targetIsUrl: false,
    regionsRequired: false,
    secretMaps: ['headers', 'env'],
    fields: [
      {
        name: 'server',
        label: 'Server',
        hint: 'The URL of a Streamable HTTP server, or the command that starts a stdio server (its arguments apart).',
        placeholder: 'https://mcp.example.com/mcp',
        required: true,
        flag: '--target',
        schema: {
          type: 'string',
          minLength: 1,
          maxLength: 2048,
          pattern: '^[^\\0\\r\\n]*$',
        },
      },
      {
        name: 'transport',
        label: 'Transport',
        hint: 'http: Streamable HTTP. stdio: a program this machine runs for each check.',
        required: false,
        flag: '--transport',
        schema: {
          default: 'http',
          type: 'string',
          enum: ['http', 'stdio'],
        },
      },
      {
        name: 'headers',
        label: 'Headers',
        hint: 'Sent with every request. An Authorization value is sealed at rest and never shown again.',
        required: false,
        flag: '--header',
        schema: {
          default: {},
          type: 'object',
          propertyNames: {
            type: 'string',
            pattern: "^[!#$%&'*+.^_`|~0-9A-Za-z-]+$",
          },
          additionalProperties: {
            type: 'string',
            pattern: '^[\\t\\x20-\\x7e\\x80-\\uffff]*$',
          },
        },
      },
      {
        name: 'args',
        label: 'Arguments',
        hint: 'Given to the command as they are, one per line; no shell reads them.',
        required: false,
        flag: '--arg',
        schema: {
          default: [],
          maxItems: 64,
          type: 'array',
          items: {
            type: 'string',
            maxLength: 4096,
            pattern: '^[^\\0]*$',
          },
        },
      },
      {
        name: 'env',
        label: 'Environment',
        hint: 'The whole environment of the command: it gets none of the service’s. Every value is sealed at rest.',
        required: false,
        flag: '--env',
        schema: {
          default: {},
          type: 'object',
          propertyNames: {
            type: 'string',
            pattern: '^[A-Za-z_][A-Za-z0-9_]*$',
          },
          additionalProperties: {
            type: 'string',
            pattern: '^[^\\0]*$',
          },
        },
      },
      {
        name: 'cwd',
        label: 'Working folder',
        hint: 'An absolute path. Empty: a fresh empty folder for each check, removed after.',
        required: false,
        flag: '--cwd',
        schema: {
          default: '',
          type: 'string',
          maxLength: 1024,
          pattern: '^[^\\0\\r\\n]*$',
        },
      },
      {
        name: 'allowCommand',
        label: 'Allow running this command',
        hint: 'A stdio server is a program run on this machine for every check, with the environment above.',
        required: false,
        flag: '--allow-command',
        schema: {
          default: false,
          type: 'boolean',
        },
      },
    ],
  },
} as const;
