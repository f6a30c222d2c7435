/**
 * A failure that is not a usage error: the exit status and the message for stderr. On its own
 * so that `main.ts` can catch it without loading the WebAssembly core (`--help`, `--version`).
 */
export class CliFailure extends Error {
  override name = "CliFailure";
  readonly exitCode: number;
  constructor(exitCode: number, message: string) {
    super(message);
    this.exitCode = exitCode;
  }
}
