import type { z } from 'zod';
import type { DeclaredField, DeclaredFields } from '../../declared-fields.ts';
import { builtOnFirstUse } from '../../validation.ts';

/**
 * A monitor type: everything the service knows of it but its probe (checks/probes.ts), declared
 * in one file of this folder and listed in monitor-types.ts. Its fields give the validation
 * (monitor-rules.ts), the flags of `statusdesk monitors`, the shape of an `apply -f` file, the
 * dashboard form's hints (contract/monitor-types.ts), the wire codec (by name, rpc/monitor-codec.ts)
 * and the type's table in docs/reference/monitors.md.
 */
export interface MonitorTypeSpec<T extends string = string, F extends DeclaredFields = DeclaredFields> {
  type: T;
  /** As people write it: `gRPC`. */
  title: string;
  /** What a check of the type does, one line. */
  summary: string;
  /**
   * Its monitor.v1 message (`GRPCMonitor`), whose fields carry the same names as the domain's;
   * its calls are `Create<message>` and `Update<message>`, and ListMonitors and GetMonitor carry
   * it in the field of that message.
   */
  message: string;
  /** The field that holds what is checked: `--target` on the command line, `target` in a file, `url` in MCP. */
  target: keyof F & string;
  /** Whether the target is a URL; otherwise it is `host:port`. The destination policy judges each its way. */
  targetIsUrl: boolean;
  /**
   * What the target is where it depends on the configuration (an MCP server's URL or command);
   * otherwise `targetIsUrl` says. The destination policy judges a URL or a `host:port`; a command
   * must exist where it is run; a `name` is looked up, never connected to (a DNS monitor's).
   * `none`: nothing is connected to (a heartbeat's schedule: its jobs call the service).
   */
  targetKind?: (value: { [K in keyof F]: z.output<F[K]['schema']> }) => 'url' | 'host-port' | 'host' | 'command' | 'name' | 'none';
  /**
   * The addresses a check connects to besides its target (a DNS monitor's resolver), each as
   * `host:port` with the field that gives it: the destination policy judges them as written, as it
   * judges a target.
   */
  connectsTo?: (value: { [K in keyof F]: z.output<F[K]['schema']> }) => { field: keyof F & string; hostPort: string }[];
  /** What the target is, in the words of `--target`'s help: `host:port`, `the URL`. */
  targetWords: string;
  /** What `timeout` bounds for the type, in the reference's words. */
  timeoutWords: string;
  /** The type's own fields, built with their first use (see builtOnFirstUse). */
  fields: () => F;
  /**
   * What a configuration checked from nowhere is told: with an empty list of regions, and with
   * none given where the type has no default regions (`absent`).
   */
  regions: { empty: string; absent?: string };
  /** A rule across fields of the type, beyond each field's own. */
  refine?: (value: { [K in keyof F]: z.output<F[K]['schema']> }, ctx: z.RefinementCtx) => void;
  /**
   * The maps whose entries named like credentials (authorization, token, …) are sealed at rest
   * and shown `[redacted]` (monitor-secrets.ts).
   */
  secretMaps?: readonly (keyof F & string)[];
  /** The maps whose every value is sealed at rest and shown `[redacted]`, whatever its name (a command's environment). */
  sealedMaps?: readonly (keyof F & string)[];
  /**
   * Lists of the configuration that a file of `apply` writes as one list (`assertions`), each
   * item marked with its list's word (`type: status`); `item` names one in messages.
   */
  fileLists?: { word: string; item: string; lists: Record<string, keyof F & string> };
  /** The rows of `statusdesk monitors get` for the type's fields, from the monitor in the words of the flags. */
  rows?: (monitor: Record<string, any>) => [string, string][];
  /** A whole valid configuration of the type's own fields, as an example (docs, tests). */
  example: { [K in keyof F]?: z.input<F[K]['schema']> };
  /** More whole configurations, for fields the example cannot set together (a stdio server has no headers). */
  moreExamples?: { [K in keyof F]?: z.input<F[K]['schema']> }[];
}

/** Declares a monitor type; its fields are built once, with their first use. */
export function defineMonitorType<T extends string, F extends Record<string, DeclaredField>>(spec: MonitorTypeSpec<T, F>): MonitorTypeSpec<T, F> {
  return { ...spec, fields: builtOnFirstUse(spec.fields) };
}
