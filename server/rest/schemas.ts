import { z } from '@hono/zod-openapi';
import { scopes } from '../domain/actor.ts';
import { planNames } from '../domain/plans.ts';
import { errorCodes } from '../errors.ts';

export const ErrorEnvelopeSchema = z
  .object({
    code: z.enum(errorCodes).openapi({ description: 'Machine-readable error kind.' }),
    message: z.string().openapi({ description: 'What went wrong and how to correct it; names the field and the rule for invalid input.' }),
    requestId: z.string().openapi({ description: 'The id of the request, also in the x-request-id response header and the service log.' }),
    docs: z.string().url().openapi({ description: 'Documentation of this error kind.' }),
    violations: z
      .array(z.object({ field: z.string(), rule: z.string() }))
      .optional()
      .openapi({ description: 'For VALIDATION errors: each rejected field and the rule it broke.' }),
  })
  .openapi('Error');

export const IdentitySchema = z
  .object({
    name: z.string().openapi({ description: 'Workspace name.' }),
    slug: z.string().openapi({ description: 'Workspace slug.' }),
    plan: z.enum(planNames).openapi({ description: 'Plan of the workspace.' }),
    actor: z
      .discriminatedUnion('type', [
        z
          .object({
            type: z.literal('apiKey').openapi({ description: 'The kind of credential holder.' }),
            keyId: z.string().openapi({ description: 'Id of the API key.' }),
            scopes: z.array(z.enum(scopes)).openapi({ description: "['read'] or ['write']." }),
          })
          .strict(),
        z
          .object({
            type: z.literal('oauth').openapi({ description: 'An app connected with OAuth.' }),
            grantId: z.string().openapi({ description: 'Id of the connection, oat_<grant id>, as the audit log names it.' }),
            clientId: z.string().openapi({ description: 'The OAuth client id of the app.' }),
            scopes: z.array(z.enum(scopes)).openapi({ description: "['read'] or ['write']." }),
          })
          .strict(),
      ])
      .openapi({ description: 'The resolved credential holder.' }),
  })
  .strict()
  .openapi('Identity');

/** The refusal every path can give, with or without a credential: a Host or Origin that is not this service. */
export const hostRefusedResponse = {
  403: {
    description: 'The Host or Origin is not this service.',
    content: { 'application/json': { schema: ErrorEnvelopeSchema } },
  },
} as const;

/** Responses every authenticated REST path can give. */
export const authErrorResponses = {
  401: {
    description: 'Missing, unknown or revoked credentials.',
    content: { 'application/json': { schema: ErrorEnvelopeSchema } },
  },
  403: {
    description: 'The credential may not do this (for example a mutation with a read-only key), or the Host/Origin is not this service.',
    content: { 'application/json': { schema: ErrorEnvelopeSchema } },
  },
} as const;
