import { isIP } from 'node:net';
import { z } from 'zod';
import { expected } from '../../validation.ts';

const HOST_LABEL = /^[A-Za-z0-9_]([A-Za-z0-9_-]{0,61}[A-Za-z0-9_])?$/;

/** Whether `host` is a hostname: dot-separated labels of letters, digits, `-` and `_`, at most 253 characters. */
export function isHostname(host: string): boolean {
  return host.length <= 253 && host.split('.').every((label) => HOST_LABEL.test(label));
}

/**
 * Why `value` is not a `host:port` target, or undefined when it is one. `example` is a valid
 * target quoted in the messages.
 */
function hostPortProblem(value: string, example: string): string | undefined {
  const scheme = /^([A-Za-z][A-Za-z0-9+.-]*):\/\//.exec(value);
  if (scheme) return `must be host:port without a scheme: drop "${scheme[1]}://" and write e.g. ${example}`;
  let host: string;
  let port: string;
  if (value.startsWith('[')) {
    const match = /^\[([^\]]*)\](?::(.*))?$/.exec(value);
    if (!match) return 'an IPv6 address must be written in brackets followed by the port, e.g. [::1]:50051';
    host = match[1]!;
    if (isIP(host) !== 6) return `"${host}" in brackets is not an IPv6 address`;
    if (match[2] === undefined) return 'the port is required: write host:port, e.g. [::1]:50051';
    port = match[2];
  } else {
    const colons = value.split(':').length - 1;
    if (colons === 0) return `the port is required: write host:port, e.g. ${example}`;
    if (colons > 1) return 'an IPv6 address must be in brackets, e.g. [::1]:50051';
    [host, port] = value.split(':') as [string, string];
    if (host === '') return `the host is missing: write host:port, e.g. ${example}`;
    if (isIP(host) === 0 && (/^[\d.]+$/.test(host) || !isHostname(host))) return `"${host}" is not a hostname or IP address`;
  }
  if (!/^\d{1,5}$/.test(port) || Number(port) < 1 || Number(port) > 65535) {
    return `the port must be a number from 1 to 65535, got "${port}"`;
  }
  return undefined;
}

/** A `host:port` target; `example` is quoted in the messages. */
export const hostPort = (example: string) =>
  z
    .string(expected(`host:port, e.g. ${example}`))
    .trim()
    .min(1, `is required: write host:port, e.g. ${example}`)
    .superRefine((value, ctx) => {
      const problem = hostPortProblem(value, example);
      if (problem) ctx.addIssue({ code: 'custom', message: problem });
    });

/** The rule of a type whose monitors get the plan's default regions when none are named. */
export const DEFAULTED_REGIONS = 'must name at least one region, or be left out for the plan default, unless the monitor has private locations';
