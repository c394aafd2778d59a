import type { ToolAnnotations } from '@modelcontextprotocol/server';
import { z } from 'zod';
import type { Actor } from '../domain/actor.ts';
import type { Services } from '../services.ts';
import { pageQuery } from '../domain/validation.ts';
import type { ContentIndex } from '../content/content-index.ts';

/** Who may call a tool: any credential (public content), a read credential, or a write one. */
export type ToolAccess = 'public' | 'read' | 'write';

/** What a tool call runs with: the caller, its workspace, and the services every surface shares. */
export interface ToolContext {
  actor: Actor;
  workspaceId: number;
  services: Services;
  content: ContentIndex;
}

export interface Tool {
  name: string;
  title: string;
  description: string;
  access: ToolAccess;
  /** Registered only on plans with this feature. */
  feature?: 'auditLog';
  annotations: ToolAnnotations;
  input: z.ZodObject;
  output: z.ZodObject;
  run(context: ToolContext, args: Record<string, unknown>): Promise<Record<string, unknown>>;
}

/** Declares a tool whose handler sees its own parsed input type. */
export function defineTool<I extends z.ZodObject, O extends z.ZodObject>(
  tool: Omit<Tool, 'input' | 'output' | 'run'> & {
    input: I;
    output: O;
    /** Its result must match `output`; the tests check every tool's answers against its schema. */
    run(context: ToolContext, args: z.output<I>): Promise<object>;
  },
): Tool {
  return tool as unknown as Tool;
}

/** Reads change nothing and may be repeated; they touch only this service. */
export const READ: ToolAnnotations = { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false };
/** Publishing appends to a public timeline and may reach subscribers outside the service. */
export const PUBLISH: ToolAnnotations = { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: true };
/** Editing overwrites fields in place: the same call twice leaves the same state. */
export const EDIT: ToolAnnotations = { readOnlyHint: false, destructiveHint: true, idempotentHint: true, openWorldHint: false };

/** The pagination object of every paged list (SPEC 4.3). */
export const pagination = z
  .object({
    page: z.number().int().describe('The page returned, 1-indexed.'),
    perPage: z.number().int().describe('Items per page.'),
    totalSize: z.number().int().describe('Items in all pages.'),
    totalPages: z.number().int().describe('Pages in all.'),
  })
  .describe('Where this page sits in the whole list.');

/** The domain's `page` and `perPage` of a paged list, described for the model. */
export function pageInput(max: number, defaultPerPage = Math.min(50, max)) {
  const { page, perPage } = pageQuery(max, defaultPerPage);
  return {
    page: page.describe('Page number, 1-indexed. Default 1.'),
    perPage: perPage.describe(`Items per page, 1 to ${max}. Default ${defaultPerPage}.`),
  };
}

/** A record with these fields and possibly more (the service may grow fields; clients must not break). */
export const record = <T extends z.ZodRawShape>(shape: T) => z.looseObject(shape);
