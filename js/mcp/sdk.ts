/**
 * Loads the MCP TypeScript SDK, which memdir does not depend on: it is an optional peer
 * dependency, imported only by `memdir mcp`, so the library stays lean for everyone else.
 * Where memdir's own folder does not have it, the project the server runs in may (`npx -p
 * memdir -p @modelcontextprotocol/sdk` installs neither into its cache when the project has
 * it already): the SDK is then taken from there. When it is missing, the error says what to
 * install.
 */
import { createRequire } from "node:module";
import { join } from "node:path";
import type * as ServerModule from "@modelcontextprotocol/sdk/server/index.js";
import type * as StdioModule from "@modelcontextprotocol/sdk/server/stdio.js";
import type * as TypesModule from "@modelcontextprotocol/sdk/types.js";

/** The package `memdir mcp` needs. */
export const SDK_PACKAGE = "@modelcontextprotocol/sdk";

/** What to run when it is missing. */
export const SDK_INSTALL = `npm install ${SDK_PACKAGE}`;

/** The parts of the SDK the server uses. */
export interface McpSdk {
  Server: typeof ServerModule.Server;
  StdioServerTransport: typeof StdioModule.StdioServerTransport;
  types: Pick<
    typeof TypesModule,
    | "CallToolRequestSchema"
    | "ListToolsRequestSchema"
    | "ListResourcesRequestSchema"
    | "ListResourceTemplatesRequestSchema"
    | "ReadResourceRequestSchema"
    | "McpError"
    | "ErrorCode"
  >;
}

/** The SDK could not be loaded: `message` says what to install. */
export class SdkUnavailable extends Error {
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = "SdkUnavailable";
  }
}

/** How a module is imported (a test passes its own). */
export type Importer = (specifier: string) => Promise<unknown>;

const importModule: Importer = (specifier) => import(specifier);

/** From the project the server runs in (the current directory), as its own code would require it. */
const requireFromProject: Importer = async (specifier) => createRequire(join(process.cwd(), "package.json"))(specifier);

/** `true` when `error` says that the SDK package itself cannot be found (not one of its own imports). */
function packageMissing(error: unknown): boolean {
  const { code, message } = (error ?? {}) as { code?: unknown; message?: unknown };
  if (typeof message !== "string") return false;
  // import: Cannot find package '@modelcontextprotocol/sdk' …; require: Cannot find module '@modelcontextprotocol/sdk/…'
  return (code === "ERR_MODULE_NOT_FOUND" && message.includes(`'${SDK_PACKAGE}'`)) || (code === "MODULE_NOT_FOUND" && message.includes(`'${SDK_PACKAGE}/`));
}

const SPECIFIERS = [`${SDK_PACKAGE}/server/index.js`, `${SDK_PACKAGE}/server/stdio.js`, `${SDK_PACKAGE}/types.js`];

/**
 * Imports the SDK (from memdir's own folder, else from the project's); throws `SdkUnavailable`
 * with an install hint when it is missing or broken.
 */
export async function loadSdk(load: Importer = importModule, fallback: Importer = requireFromProject): Promise<McpSdk> {
  let modules: unknown[];
  try {
    try {
      modules = await Promise.all(SPECIFIERS.map((s) => load(s)));
    } catch (error) {
      if (!packageMissing(error)) throw error;
      modules = await Promise.all(SPECIFIERS.map((s) => fallback(s)));
    }
  } catch (error) {
    if (packageMissing(error)) throw new SdkUnavailable(`memdir mcp needs ${SDK_PACKAGE}: ${SDK_INSTALL}`, { cause: error });
    const why = error instanceof Error ? error.message : String(error);
    throw new SdkUnavailable(`memdir mcp could not load ${SDK_PACKAGE} (${why}): ${SDK_INSTALL}@^1.32.2`, { cause: error });
  }
  const [server, stdio, types] = modules as [typeof ServerModule, typeof StdioModule, typeof TypesModule];
  const sdk: McpSdk = { Server: server?.Server, StdioServerTransport: stdio?.StdioServerTransport, types };
  const missing = [
    ["Server", sdk.Server],
    ["StdioServerTransport", sdk.StdioServerTransport],
    ...(["CallToolRequestSchema", "ListToolsRequestSchema", "ListResourcesRequestSchema", "ListResourceTemplatesRequestSchema", "ReadResourceRequestSchema", "McpError", "ErrorCode"] as const).map((k) => [k, types?.[k]] as const),
  ]
    .filter(([, value]) => value === undefined)
    .map(([name]) => name);
  if (missing.length > 0) throw new SdkUnavailable(`memdir mcp needs a newer ${SDK_PACKAGE} (this one has no ${missing.join(", ")}): ${SDK_INSTALL}@^1.32.2`);
  return sdk;
}
