/**
 * The MCP resources: the index as the model sees it (`memdir://index`: MEMORY.md cut to its
 * limits, with the warning when cut) and each topic file (`memdir://memory/<path>`) as recall
 * would inject it (the freshness header, then the file cut to 200 lines and 4 KB). Only files
 * the scan lists can be read, so a URI cannot name anything the scan would not.
 */
import { defaultLimits, injectReadBytes, renderMemory, splitScoped } from "../core.js";
import type { Limits, Memory } from "../core.js";
import type { OpenedMemory, ScopedMemory } from "../index.js";

export const INDEX_URI = "memdir://index";
const MEMORY_PREFIX = "memdir://memory/";
/** For clients that read any file the scan lists, not only those listed. */
export const MEMORY_TEMPLATE = `${MEMORY_PREFIX}{+path}`;

export interface McpResource {
  uri: string;
  name: string;
  title?: string;
  description?: string;
  mimeType: string;
}

/** A topic file's URI: each path segment percent-encoded. */
export function memoryUri(path: string): string {
  return MEMORY_PREFIX + path.split("/").map(encodeURIComponent).join("/");
}

/** The relative path a topic URI names, or `null` when it is not one. */
export function memoryPath(uri: string): string | null {
  if (!uri.startsWith(MEMORY_PREFIX)) return null;
  try {
    return uri.slice(MEMORY_PREFIX.length).split("/").map(decodeURIComponent).join("/");
  } catch {
    return null; // a malformed escape
  }
}

/** The index as a resource, described with the limits in force. */
export function indexResource(limits: Limits): McpResource {
  return {
    uri: INDEX_URI,
    name: "MEMORY.md",
    title: "Memory index",
    description: `MEMORY.md as the model sees it: cut to ${limits.maxIndexLines.toLocaleString("en")} lines and ${limits.maxIndexUtf16.toLocaleString("en")} UTF-16 units, with a warning when cut. Empty when there is no index yet.`,
    mimeType: "text/markdown",
  };
}

function topicResource(m: Memory): McpResource {
  return {
    uri: memoryUri(m.path),
    name: m.path,
    ...(m.name ? { title: m.name } : {}),
    ...(m.description ? { description: `${m.type ? `[${m.type}] ` : ""}${m.description}` } : {}),
    mimeType: "text/markdown",
  };
}

/** The index, then the topic files the scan keeps, newest first. */
export async function listResources(memory: OpenedMemory, limits: Partial<Limits>): Promise<McpResource[]> {
  const scan = await memory.scan();
  return [indexResource({ ...defaultLimits(), ...limits }), ...scan.memories.map(topicResource)];
}

/** The text of a resource, or `null` when the URI names none. */
export async function readResource(memory: OpenedMemory, uri: string, limits: Partial<Limits>, nowMs: number): Promise<string | null> {
  const scopes = (memory as Partial<ScopedMemory>).scopes;
  // several scopes: every scope's index, each under its own line (as the model sees them)
  if (uri === INDEX_URI) return scopes ? (await memory.index()).prompt : (await memory.index()).content;
  const path = memoryPath(uri);
  if (path === null) return null;
  const scan = await memory.scan();
  const found = [...scan.memories, ...scan.dropped].find((m) => m.path === path);
  if (!found) return null;
  const all: Limits = { ...defaultLimits(), ...limits };
  // a memory of several scopes is read from its scope's folder (`<scope>:<path>`)
  const split = scopes ? splitScoped(path, scopes.map((s) => s.name)) : null;
  const host = (split && scopes?.find((s) => s.name === split[0])?.memory.host) || memory.host;
  const file = split?.[1] ?? path;
  const content = await host.readFile(file, injectReadBytes(all));
  const r = renderMemory({ path: file, absolutePath: host.absolutePath(file), mtimeMs: found.timeMs ?? found.mtimeMs, content, nowMs, limits: all });
  return `${r.header}\n\n${r.body}`;
}
