/**
 * `npm run starter -- <command>` and the `hotel-booking` binary: the command-line tool
 * (src/cli/program.ts), configured by the environment through src/config/ alone.
 */
import { runCli } from './cli/program';
import { loadConfig } from './config';

runCli(process.argv.slice(2), {
  io: {
    stdout: (text) => void process.stdout.write(text),
    stderr: (text) => void process.stderr.write(text),
  },
  // Supplier credentials are checked only by the commands that call the supplier.
  loadConfig: () => loadConfig(process.env, { requireSupplierCredentials: false }),
}).then(
  (code) => {
    // exitCode, not exit(): let stdout drain when it is a pipe.
    process.exitCode = code;
  },
  (err: unknown) => {
    process.stderr.write(
      `unexpected failure: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`,
    );
    process.exitCode = 1;
  },
);
