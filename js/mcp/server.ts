/**
 * An MCP server over an opened memory, on the SDK's low-level `Server`: the tool schemas are
 * plain JSON Schema (the memory-tool ones from the core), so no schema library is involved,
 * and every handler answers, whatever the client sends.
 */
import type { Limits } from "../core.js";
import type { OpenedMemory, ScopedMemory, SelectorConfig } from "../index.js";
import { defaultLimits, scopesPrompt } from "../core.js";
import { INDEX_URI, listResources, MEMORY_TEMPLATE, readResource } from "./resources.js";
import type { McpSdk } from "./sdk.js";
import { callTool, injectCut, mcpTools } from "./tools.js";

export interface MemdirMcpOptions {
  memory: OpenedMemory;
  selector: SelectorConfig;
  /** The limits the memory was opened with (resources render with them). */
  limits: Partial<Limits>;
  /** Only the tools that cannot write. */
  readOnly?: boolean;
  /** Put MEMORY.md, as the model sees it, in the server's instructions. Default true. */
  indexInInstructions?: boolean;
  /** The server's version, reported to the client. */
  version: string;
  now?: () => number;
}

/** The limits in force: the core's defaults with the memory's own. */
const limitsOf = (o: MemdirMcpOptions): Limits => ({ ...defaultLimits(), ...o.limits });

/** What the client's model is told about this server (MCP's `instructions`). */
async function instructions(o: MemdirMcpOptions): Promise<string> {
  const lines = [
    `memdir: a long-term memory made of Markdown files in ${o.memory.host.root}, kept across conversations.`,
    `- At the start of a task, call \`recall\` with a few words about it; it returns the memories that help, at most ${limitsOf(o).maxSelected}.`,
  ];
  if (!o.readOnly) {
    lines.push(
      "- When you learn something worth keeping (who the user is, how they want you to work, a project decision or deadline, where things live outside the code), save it with `remember`: one topic a memory, with a specific one-line description. Update an existing memory (same `file`) rather than adding a near-duplicate, and `forget` one that turns out wrong.",
      "- Do not save what the code, git history or project instructions already show, nor the state of the current task.",
      "- The memory_* tools (view, create, str_replace, insert, delete, rename) edit the files under /memories directly, with the same rules.",
    );
  }
  lines.push(
    "- A memory is a claim about the moment it was written: before relying on a file, function or flag it names, check that it still exists.",
    `- The index is the resource ${INDEX_URI}; each memory is a resource too.`,
  );
  // several scopes: which there are, where, and which wins (the core's words)
  const scoped = o.memory as Partial<ScopedMemory>;
  if (scoped.scopes) lines.push("", scopesPrompt(scoped.scopes.map((s) => ({ name: s.name, root: s.memory.host.root, readOnly: s.readOnly }))));
  if (o.indexInInstructions !== false) {
    const index = await o.memory.index().catch(() => null);
    if (index?.prompt) lines.push("", index.prompt);
  }
  return lines.join("\n");
}

/** Builds the server (not yet connected). */
export async function createMemdirMcpServer(sdk: McpSdk, o: MemdirMcpOptions) {
  const { Server, types } = sdk;
  const { McpError, ErrorCode } = types;
  const now = o.now ?? Date.now;
  const server = new Server(
    { name: "memdir", title: "memdir memory", version: o.version },
    { capabilities: { tools: {}, resources: { listChanged: true } }, instructions: await instructions(o) },
  );
  const tools = mcpTools({ memory: o.memory, selector: o.selector, readOnly: o.readOnly ?? false, limits: limitsOf(o) });
  const byName = new Map(tools.map((t) => [t.name, t]));

  server.setRequestHandler(types.ListToolsRequestSchema, async () => ({
    tools: tools.map(({ name, title, description, inputSchema, annotations }) => ({ name, title, description, inputSchema, annotations })),
  }));

  server.setRequestHandler(types.CallToolRequestSchema, async (request, extra) => {
    const tool = byName.get(request.params.name);
    // an unknown tool is a protocol error; bad arguments are a result the model can act on
    if (!tool) throw new McpError(ErrorCode.InvalidParams, `Unknown tool: ${request.params.name} (this server has ${tools.map((t) => t.name).join(", ")})`);
    // the SDK aborts `extra.signal` when the client cancels the call and when the server closes:
    // a recall's model call stops then, instead of holding the process until its deadline
    const reply = await callTool(tool, request.params.arguments, extra?.signal);
    if (reply.changed) server.sendResourceListChanged().catch(() => {});
    return { content: [{ type: "text" as const, text: reply.text }], isError: reply.isError };
  });

  server.setRequestHandler(types.ListResourcesRequestSchema, async () => ({ resources: await listResources(o.memory, o.limits) }));

  server.setRequestHandler(types.ListResourceTemplatesRequestSchema, async () => ({
    resourceTemplates: [{ uriTemplate: MEMORY_TEMPLATE, name: "memory", title: "A memory", description: `A topic file, as recall would inject it: its freshness header, then the file cut to ${injectCut(limitsOf(o))}.`, mimeType: "text/markdown" }],
  }));

  server.setRequestHandler(types.ReadResourceRequestSchema, async (request) => {
    const { uri } = request.params;
    let text: string | null;
    try {
      text = await readResource(o.memory, uri, o.limits, now());
    } catch (error) {
      const { code, message } = (error ?? {}) as { code?: unknown; message?: unknown };
      throw new McpError(ErrorCode.InternalError, `${typeof code === "string" ? `${code}: ` : ""}${typeof message === "string" ? message : "the resource could not be read"}`);
    }
    // -32002: MCP's "resource not found"
    if (text === null) throw new McpError(-32002, `Resource not found: ${uri}`, { uri });
    return { contents: [{ uri, mimeType: "text/markdown", text }] };
  });

  return server;
}
