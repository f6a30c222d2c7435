/**
 * Where the CLI writes. Results go to stdout, notes and debug lines to stderr. Nothing here
 * exits the process: the entry sets `process.exitCode`, and Node exits once stdout has drained,
 * so a piped `scan --json` arrives whole however slowly the reader reads. A reader that goes
 * away early (`memdir scan --json | head -c 10`) closes the pipe: further output is dropped,
 * quietly, and the command still finishes what it was doing (a `doctor --fix` is never left
 * half-applied because nobody read its diff).
 */

/** Control characters a terminal acts on (C0 but tab and newline, DEL, C1, a CR not before LF) and bidi overrides. */
const TERMINAL_CONTROLS = /[\x00-\x08\x0b-\x1f\x7f-\x9f\u202a-\u202e\u2066-\u2069]/g;

/**
 * Text as a terminal should show it: a memory's text can come from anywhere (a checked-out
 * repository), and an escape sequence in a description would otherwise recolour the screen,
 * retitle the window or write the clipboard. Shown as `^[` (C0, DEL as `^?`) or `<U+202E>`.
 * Applied only when the stream is a terminal: piped output stays byte for byte.
 */
export function visibleControls(text: string): string {
  return text.replace(TERMINAL_CONTROLS, (c, offset: number) => {
    const code = c.charCodeAt(0);
    if (c === "\r" && text[offset + 1] === "\n") return c;
    if (code < 0x20) return `^${String.fromCharCode(code + 0x40)}`;
    if (code === 0x7f) return "^?";
    return `<U+${code.toString(16).toUpperCase().padStart(4, "0")}>`;
  });
}

/** Where the CLI writes: the process's streams, or a test's (`runCli`'s third argument). */
export interface CliStreams {
  stdout: CliStream;
  stderr: CliStream;
}

/** A stream the CLI writes text to (a `process.stdout`, or anything with `write`). */
export interface CliStream {
  write(text: string): unknown;
  isTTY?: boolean;
  on?(event: "error", listener: (error: NodeJS.ErrnoException) => void): unknown;
}

/** The streams a reader closed (EPIPE): further output to them is dropped, quietly. */
const closedStreams = new WeakSet<CliStream>();
const watchedStreams = new WeakSet<CliStream>();

function quietOnEpipe(stream: CliStream, stderr: CliStream): void {
  if (watchedStreams.has(stream) || !stream.on) return;
  watchedStreams.add(stream);
  stream.on("error", (error: NodeJS.ErrnoException) => {
    closedStreams.add(stream);
    if (error.code === "EPIPE" || error.code === "ERR_STREAM_DESTROYED") return;
    if (stream !== stderr) stderr.write(`memdir: could not write the output: ${error.message}\n`);
    process.exitCode = 1;
  });
}

export class Output {
  /** Machine-readable results (`--json`). */
  readonly json: boolean;
  /** Debug lines on stderr (`--verbose`, `MEMDIR_DEBUG=1`). */
  readonly verbose: boolean;
  readonly #secrets: string[];
  readonly #streams: CliStreams;

  /** `secrets`: strings never printed (API keys), replaced by `[redacted]` in debug lines. */
  constructor(options: { json: boolean; verbose: boolean; secrets?: string[]; streams?: CliStreams }) {
    this.json = options.json;
    this.verbose = options.verbose;
    this.#secrets = (options.secrets ?? []).filter((s) => s.length >= 4);
    this.#streams = options.streams ?? { stdout: process.stdout, stderr: process.stderr };
    quietOnEpipe(this.#streams.stdout, this.#streams.stderr);
    quietOnEpipe(this.#streams.stderr, this.#streams.stderr);
  }

  /** Text on stdout, as is. */
  write(text: string): void {
    const { stdout } = this.#streams;
    if (!closedStreams.has(stdout)) stdout.write(stdout.isTTY ? visibleControls(text) : text);
  }

  /** A result: its JSON with `--json`, else the text, each ending with a newline. */
  result(value: unknown, text: () => string): void {
    this.write(this.json ? `${JSON.stringify(value, null, 2)}\n` : `${text()}\n`);
  }

  /** A line for people, on stderr: `memdir: …`. */
  note(message: string): void {
    this.#stderr(`memdir: ${message}\n`);
  }

  /** With `--verbose`: a heading line, and a block of text under it, on stderr. */
  debug(heading: string, block?: string): void {
    if (this.verbose) this.#stderr(`memdir: ${heading}\n${block === undefined ? "" : block.replace(/\n?$/, "\n")}`);
  }

  /** Text on stderr, as it comes (a command's own lines: "memdir: nothing written", the help). */
  err(text: string): void {
    this.#stderr(text);
  }

  #stderr(text: string): void {
    const { stderr } = this.#streams;
    if (closedStreams.has(stderr)) return;
    const safe = this.redact(text);
    stderr.write(stderr.isTTY ? visibleControls(safe) : safe);
  }

  /** The text with every secret replaced. */
  redact(text: string): string {
    let out = text;
    for (const secret of this.#secrets) out = out.split(secret).join("[redacted]");
    return out;
  }
}
