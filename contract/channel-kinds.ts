// Generated from server/delivery/channels/ by `node scripts/contract-fields.ts`: do not edit.
// Each field's words, its flag, and the JSON Schema of its input (values, limits, default), from
// the schema the service validates with; test/registries.test.ts fails when this file is stale.

export const CHANNEL_KINDS = {
  webhook: {
    kind: 'webhook',
    title: 'webhook',
    label: 'Webhook',
    hint: 'A signed JSON POST to your address',
    fields: [
      {
        name: 'url',
        label: 'URL',
        placeholder: 'https://example.com/hooks/statusdesk',
        required: true,
        flag: '--webhook-url',
        credential: true,
        schema: {
          type: 'string',
          minLength: 1,
        },
      },
      {
        name: 'secret',
        label: 'Signing secret',
        hint: 'The key of the x-statusdesk-signature header, 16 to 256 characters.',
        required: true,
        flag: '--secret',
        credential: true,
        schema: {
          type: 'string',
          minLength: 16,
          maxLength: 256,
        },
      },
      {
        name: 'headers',
        label: 'Headers',
        hint: 'Sent with each alert, e.g. an authorization header.',
        required: false,
        flag: '--header',
        credential: true,
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
    ],
  },
  slack: {
    kind: 'slack',
    title: 'Slack',
    label: 'Slack',
    hint: 'An incoming webhook of a channel',
    fields: [
      {
        name: 'webhookUrl',
        label: 'Webhook URL',
        placeholder: 'https://hooks.slack.com/services/…',
        required: true,
        flag: '--webhook-url',
        credential: true,
        schema: {
          type: 'string',
          minLength: 1,
        },
      },
    ],
  },
  discord: {
    kind: 'discord',
    title: 'Discord',
    label: 'Discord',
    hint: 'A webhook of a channel',
    fields: [
      {
        name: 'webhookUrl',
        label: 'Webhook URL',
        placeholder: 'https://discord.com/api/webhooks/…',
        required: true,
        flag: '--webhook-url',
        credential: true,
        schema: {
          type: 'string',
          minLength: 1,
        },
      },
    ],
  },
  email: {
    kind: 'email',
    title: 'email',
    label: 'Email',
    hint: 'Mail to up to 20 addresses',
    fields: [
      {
        name: 'to',
        label: 'To',
        hint: '1 to 20 addresses; they see each other.',
        required: true,
        flag: '--to',
        credential: false,
        schema: {
          minItems: 1,
          maxItems: 20,
          type: 'array',
          items: {
            type: 'string',
            maxLength: 254,
            format: 'email',
            pattern: "^(?:[A-Za-z0-9_'+\\-]+\\.)*[A-Za-z0-9_'+\\-]*[A-Za-z0-9_+-]@(?:[A-Za-z0-9][A-Za-z0-9\\-]*\\.)+[A-Za-z]{2,}$",
          },
        },
      },
      {
        name: 'from',
        label: 'From',
        hint: "Empty: the service's sender.",
        required: false,
        flag: '--from',
        credential: false,
        schema: {
          type: 'string',
          maxLength: 254,
          format: 'email',
          pattern: "^(?:[A-Za-z0-9_'+\\-]+\\.)*[A-Za-z0-9_'+\\-]*[A-Za-z0-9_+-]@(?:[A-Za-z0-9][A-Za-z0-9\\-]*\\.)+[A-Za-z]{2,}$",
        },
      },
      {
        name: 'smtpUrl',
        label: 'Mail server',
        hint: "An smtp:// or smtps:// URL. Empty: the service's mail server.",
        placeholder: 'smtps://user:password@smtp.example.com:465',
        required: false,
        flag: '--smtp-url',
        credential: true,
        schema: {
          type: 'string',
        },
      },
    ],
  },
  ntfy: {
    kind: 'ntfy',
    title: 'ntfy',
    label: 'ntfy',
    hint: 'A push to an ntfy topic',
    fields: [
      {
        name: 'server',
        label: 'Server',
        placeholder: 'https://ntfy.sh',
        required: false,
        flag: '--server',
        credential: false,
        schema: {
          default: 'https://ntfy.sh',
          type: 'string',
          minLength: 1,
        },
      },
      {
        name: 'topic',
        label: 'Topic',
        hint: 'On a public server the topic name is the password: choose one nobody can guess.',
        required: true,
        flag: '--topic',
        credential: true,
        schema: {
          type: 'string',
          pattern: '^[A-Za-z0-9_-]{1,64}$',
        },
      },
      {
        name: 'priority',
        label: 'Priority',
        hint: '1 (min) to 5 (max). Empty: 4 for down, 3 otherwise.',
        required: false,
        flag: '--priority',
        credential: false,
        schema: {
          type: 'integer',
          minimum: 1,
          maximum: 5,
        },
      },
      {
        name: 'token',
        label: 'Access token',
        hint: 'Sent as Authorization: Bearer.',
        required: false,
        flag: '--token',
        credential: true,
        schema: {
          type: 'string',
          minLength: 1,
          maxLength: 256,
        },
      },
    ],
  },
  desktop: {
    kind: 'desktop',
    title: 'desktop',
    label: 'Desktop',
    hint: 'A notification of this app',
    fields: [],
  },
} as const;
