import { readFileSync } from 'node:fs';
import { shown } from './errors';

/** A file's text, or the error code of reading it. */
export function readText(path: string): string | { code: string } {
  try {
    return readFileSync(path, 'utf8');
  } catch (err) {
    return { code: (err as NodeJS.ErrnoException).code ?? 'error' };
  }
}

/**
 * `name`'s value, or the trimmed text of the file `name_FILE` names; never both. Undefined when
 * neither is set; null on a problem, pushed naming the variable (a path is shown, a value never).
 */
export function valueOrFile(
  name: string,
  value: string | undefined,
  file: string | undefined,
  problems: string[],
): string | null | undefined {
  if (value !== undefined && file !== undefined) {
    problems.push(`${name} and ${name}_FILE: set only one of them`);
    return null;
  }
  if (file === undefined) return value;
  const text = readText(file);
  if (typeof text === 'string') return text.trim();
  problems.push(`${name}_FILE: cannot read ${shown(file)} (${text.code})`);
  return null;
}
