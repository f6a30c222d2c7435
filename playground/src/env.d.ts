/** The example memory (examples/memory/), embedded by scripts/playground.mjs: relative path → text. */
declare module "virtual:seed" {
  const files: Record<string, string>;
  export default files;
}

/** The File System Access API's folder picker (Chromium), where the browser has it. */
interface FileSystemDirectoryHandle {
  values(): AsyncIterableIterator<FileSystemDirectoryHandle | FileSystemFileHandle>;
}
interface Window {
  showDirectoryPicker?: (options?: { mode?: "read" | "readwrite" }) => Promise<FileSystemDirectoryHandle>;
}
