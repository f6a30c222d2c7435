/**
 * `--verbose` (or `MEMDIR_DEBUG=1`): a `fetch` that prints the side query as sent, with its
 * key headers redacted, and the answer as received, to stderr. The answer's status and
 * headers are printed when they arrive, its body once the selector has read it all: the body
 * is passed through, never read ahead, so the selector's cap on the response size holds.
 */
import { shownUrl } from "../selectors.js";
import type { Output } from "./output.js";

const SECRET_HEADERS = new Set(["x-api-key", "authorization", "api-key", "proxy-authorization", "cookie"]);
/** How much of a request or answer body the debug output shows. */
const SHOWN_BYTES = 64 * 1024;


function headerLines(headers: HeadersInit | undefined): string[] {
  return [...new Headers(headers).entries()].map(([k, v]) => `  ${k}: ${SECRET_HEADERS.has(k.toLowerCase()) ? (/^bearer /i.test(v) ? "Bearer [redacted]" : "[redacted]") : v}`);
}

/** The text cut to `SHOWN_BYTES`; `pretty`: JSON indented, for reading a request. */
function shown(text: string, pretty = false): string {
  const out = (() => {
    if (!pretty) return text;
    try {
      return JSON.stringify(JSON.parse(text), null, 2);
    } catch {
      return text;
    }
  })();
  return out.length > SHOWN_BYTES ? `${out.slice(0, SHOWN_BYTES)}\n… (${out.length - SHOWN_BYTES} more characters not shown)` : out;
}

function reasonOf(error: unknown): string {
  const e = error as { message?: string; cause?: { code?: string; message?: string } };
  return e?.cause?.code ?? e?.cause?.message ?? e?.message ?? String(error);
}

/** Wraps `fetch` to print each side-query request and its answer with `out.debug`. */
export function debugFetch(out: Output, inner: typeof fetch = globalThis.fetch): typeof fetch {
  return async (input, init) => {
    const url = input instanceof Request ? input.url : String(input);
    const body = typeof init?.body === "string" ? init.body : "";
    out.debug(`side query request: ${init?.method ?? "GET"} ${shownUrl(url)}`, [...headerLines(init?.headers), shown(body, true)].join("\n"));
    const started = performance.now();
    let response: Response;
    try {
      response = await inner(input, init);
    } catch (error) {
      out.debug(`side query failed after ${(performance.now() - started).toFixed(1)} ms: ${reasonOf(error)}`);
      throw error;
    }
    const heading = `side query answer: HTTP ${response.status}${response.statusText ? ` ${response.statusText}` : ""} in ${(performance.now() - started).toFixed(1)} ms`;
    out.debug(heading, headerLines(response.headers).join("\n"));
    if (!response.body) return response;
    const decoder = new TextDecoder();
    let text = "";
    const passThrough = new TransformStream<Uint8Array, Uint8Array>({
      transform(chunk, controller) {
        if (text.length <= SHOWN_BYTES) text += decoder.decode(chunk, { stream: true });
        controller.enqueue(chunk);
      },
      flush() {
        out.debug("side query answer body (raw):", shown(text + decoder.decode()));
      },
    });
    return new Response(response.body.pipeThrough(passThrough), { status: response.status, statusText: response.statusText, headers: response.headers });
  };
}
