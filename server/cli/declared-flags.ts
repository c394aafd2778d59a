import { choicesOf, type DeclaredField, type FieldFlag, isRepeatable } from '../domain/declared-fields.ts';
import { type Flag, int32, list, oneOf, pairs, parseBoolean, parseDuration, str, type Values } from './flags.ts';
import { UsageError } from './output.ts';

/**
 * The flags of declared fields (domain/declared-fields.ts): a monitor type's and a channel kind's
 * fields each declare theirs, and commands read them here.
 */

/** A declared field's flag, as parseArgs and help take it. */
export function optionOf(field: DeclaredField & { flag: FieldFlag }, description = field.flag.description): Flag {
  const { flag } = field;
  return {
    type: 'string',
    ...(isRepeatable(flag.read) ? { multiple: true } : {}),
    valueName: flag.valueName ?? choicesOf(field.schema).join('|'),
    description,
  };
}

/** How a declared field's flag shows in a usage line: `[--tls verify|skip-verify]`, `--to ADDRESS...`. */
export function usageOf(field: DeclaredField & { flag: FieldFlag }, required = false): string {
  const flag = `--${field.flag.name} ${optionOf(field).valueName}`;
  return `${required ? flag : `[${flag}]`}${isRepeatable(field.flag.read) ? '...' : ''}`;
}

/** A field's value from its flag, as its declaration reads it; undefined when the flag is not given. */
export function readFlag(field: DeclaredField & { flag: FieldFlag }, values: Values): unknown {
  const { flag } = field;
  const given = list(values, flag.name);
  const text = str(values, flag.name);
  switch (flag.read) {
    case 'text':
      return text;
    case 'boolean':
      return text === undefined ? undefined : parseBoolean(flag.name, text);
    case 'choice':
      return text === undefined ? undefined : oneOf(flag.name, flag.upperCase ? text.toUpperCase() : text, choicesOf(field.schema));
    case 'int':
      return int32(flag.name, text);
    case 'duration':
      return text === undefined ? undefined : parseDuration(flag.name, text);
    case 'pairs':
      return given.length > 0 ? pairs(flag.name, given) : undefined;
    case 'list':
      return given.length > 0 ? given : undefined;
    default:
      return given.length > 0
        ? flag.read(given, (message) => {
            throw new UsageError(message);
          })
        : undefined;
  }
}
