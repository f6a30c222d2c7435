// Starts the real `memdir mcp` (pkg/cli/main.js) on a folder and connects the MCP SDK's own
// client to it over stdio, as Claude Desktop, Claude Code or Cursor would.
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";

export const bin = fileURLToPath(new URL("../../pkg/cli/main.js", import.meta.url));

const temps = [];
/** A fresh folder, removed by `cleanUp`. */
export function tempDir(prefix = "memdir-mcp-") {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  temps.push(dir);
  return dir;
}
export function cleanUp() {
  for (const dir of temps.splice(0)) rmSync(dir, { recursive: true, force: true });
}

/** No provider keys unless a test sets them: recall is lexical, nothing leaves the machine. */
export function baseEnv(extra = {}) {
  return { PATH: process.env.PATH ?? "", HOME: process.env.HOME ?? tmpdir(), ANTHROPIC_API_KEY: "", OPENAI_API_KEY: "", ...extra };
}

/** `memdir mcp ...args` with the SDK's client connected; `stderr` collects what the server said. */
export async function connect(args, { env = baseEnv() } = {}) {
  const transport = new StdioClientTransport({ command: process.execPath, args: [bin, "mcp", ...args], env, stderr: "pipe" });
  let stderr = "";
  transport.stderr?.on("data", (chunk) => (stderr += chunk));
  const client = new Client({ name: "memdir-test", version: "1.0.0" });
  await client.connect(transport);
  return {
    client,
    transport,
    get stderr() {
      return stderr;
    },
    /** The text of a tool call, and whether it is an error result. */
    async call(name, args) {
      const result = await client.callTool({ name, arguments: args });
      assert(Array.isArray(result.content) && result.content.length === 1 && result.content[0].type === "text", `one text block from ${name}`);
      return { text: result.content[0].text, isError: result.isError === true };
    },
    close: () => client.close(),
  };
}

function assert(ok, message) {
  if (!ok) throw new Error(message);
}
