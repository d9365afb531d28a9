/**
 * The workflow source line that created a promise, from the stack at its creation mapped through
 * the bundle's inline source map: what `npx tsx bench/promises/count.ts` prints beside each step.
 */
import { SourceMap } from 'node:module';
import { resolve } from 'node:path';

/** The bundle's inline source map (the SDK refuses a bundle without one), to name creating lines. */
export function bundleSourceMap(code: string): { filename: string; map: SourceMap } {
  const at = code.lastIndexOf('//# sourceMappingURL=data:');
  const base64 = at < 0 ? -1 : code.indexOf('base64,', at);
  if (base64 < 0) throw new Error('the workflow bundle has no inline source map');
  const payload = JSON.parse(
    Buffer.from(code.slice(base64 + 'base64,'.length).trimEnd(), 'base64').toString(),
  ) as ConstructorParameters<typeof SourceMap>[0];
  // The name the SDK gives the bundle's script (Worker's bundle loading: the map's file, from cwd).
  return { filename: resolve(process.cwd(), payload.file), map: new SourceMap(payload) };
}

/** The JavaScript frames of the current stack, this function's callers first. */
function callSites(): NodeJS.CallSite[] {
  const { prepareStackTrace, stackTraceLimit } = Error;
  Error.prepareStackTrace = (_error, sites) => sites;
  Error.stackTraceLimit = 64;
  const holder: { stack?: NodeJS.CallSite[] } = {};
  Error.captureStackTrace(holder, callSites);
  const sites = holder.stack ?? [];
  Error.prepareStackTrace = prepareStackTrace;
  Error.stackTraceLimit = stackTraceLimit;
  return sites;
}

const callSiteName = (c: NodeJS.CallSite): string => {
  const type = c.getTypeName();
  const method = c.getMethodName();
  const fn = c.getFunctionName();
  return type && method ? `${type}.${method}` : (fn ?? '<anonymous>');
};

/**
 * The workflow source line that created the promise being created now: the innermost frame of
 * the bundle that maps to the project's own code, with the SDK function it called through (e.g.
 * `src/workflows/booking/decide.ts:63 close → condition`), or the SDK's frame when no project
 * frame is on the stack. An async function's own promise is named by its declaration's line, an
 * `await`'s by the line of the `await`.
 */
export function creatingSite(bundle: { filename: string; map: SourceMap }): string | undefined {
  let through: string | undefined;
  const frames = callSites();
  for (const c of frames) {
    if (c.getFileName() !== bundle.filename) continue;
    const line = c.getLineNumber();
    const column = c.getColumnNumber();
    if (line === null || column === null) continue;
    const entry = bundle.map.findEntry(line - 1, column - 1) as {
      originalSource?: string;
      originalLine?: number;
    };
    const source = entry.originalSource ?? '';
    const sdk = /node_modules\/(@temporalio\/[^/]+)\//.exec(source);
    if (sdk || !source) {
      through = `${callSiteName(c)} (${sdk?.[1] ?? 'bundle'})`;
      continue;
    }
    const own = /(?:^|\/)((?:src|bench|test)\/.*)$/.exec(source)?.[1] ?? source;
    const where = `${own}:${(entry.originalLine ?? -1) + 1} ${callSiteName(c)}`;
    return through ? `${where} → ${through}` : where;
  }
  if (through) return through;
  // No frame of the bundle: V8 calls `then` from the microtask queue to resolve a promise with
  // another one (an async function returning a promise, `resolve(promise)`).
  const thenJob = frames.find((c) => c.getFunctionName() === 'then' && c.getFileName() === null);
  return thenJob
    ? 'a promise resolved with a promise (its then job, run by the microtask queue)'
    : '(no frame of the workflow bundle)';
}
