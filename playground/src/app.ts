/** What every view of the page shares: the folder, the opened memory, and the last reading of it. */
import type { HostEntry, Limits, MemoryHost, OpenedMemory, ScanResult, SelectorConfig } from "memdir/browser";
import type { DoctorReport, HistoryItem, IndexPrompt } from "memdir/core";

/** The last reading of the folder, taken together by `refresh`. */
export interface Snapshot {
  entries: HostEntry[];
  scan: ScanResult;
  index: IndexPrompt;
  /** MEMORY.md as stored ("" when missing). */
  indexText: string;
  doctor: DoctorReport;
  /** `false` until doctor has run (the first load shows the folder first): `doctor` is then empty. */
  doctorDone: boolean;
  /** memdir's changes to the folder, newest first (read with doctor: a person's edit adds none). */
  history: HistoryItem[];
  /** Why the history could not be read (the rest of the page works without it), or null. */
  historyError: string | null;
  nowMs: number;
}

export interface App {
  host: MemoryHost & { backend: string };
  memory: OpenedMemory;
  /**
   * The selector the memory was opened with; the Recall tab changes its fields in place before
   * each query, so the one opened memory (and its session) runs whichever selector is chosen.
   */
  selector: SelectorConfig;
  limits: Limits;
  snap: Snapshot;
  /** The file in the editor, or null. */
  current: string | null;
  /** Reads the folder again and redraws; `doctor: false` keeps the last doctor report (while an edit is typed). */
  refresh(options?: { doctor?: boolean }): Promise<void>;
  /** Opens a file in the editor. */
  select(path: string | null): Promise<void>;
}
