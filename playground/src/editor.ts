/** The CodeMirror 6 editor: Markdown with YAML frontmatter highlighted, themed by the page's colours (light and dark). */
import { markdown } from "@codemirror/lang-markdown";
import { yamlFrontmatter } from "@codemirror/lang-yaml";
import { HighlightStyle, syntaxHighlighting } from "@codemirror/language";
import { Annotation, EditorState, Transaction, type Extension } from "@codemirror/state";
import { EditorView, keymap } from "@codemirror/view";
import { tags as t } from "@lezer/highlight";
import { basicSetup } from "codemirror";

/** Marks a transaction that puts in the file as it is on disk (not an edit to save). */
const fromDisk = Annotation.define<boolean>();

const highlight = HighlightStyle.define([
  { tag: t.heading, fontWeight: "700", color: "var(--accent)" },
  { tag: [t.strong], fontWeight: "700" },
  { tag: [t.emphasis], fontStyle: "italic" },
  { tag: [t.link, t.url], color: "var(--accent)", textDecoration: "underline" },
  { tag: [t.monospace], color: "var(--ok)" },
  { tag: [t.propertyName, t.definition(t.propertyName)], color: "var(--warn)", fontWeight: "600" },
  { tag: [t.string, t.special(t.string)], color: "var(--ok)" },
  { tag: [t.number, t.bool, t.null, t.atom], color: "var(--err)" },
  { tag: [t.meta, t.processingInstruction, t.contentSeparator, t.separator, t.punctuation], color: "var(--muted)" },
  { tag: [t.comment, t.quote], color: "var(--muted)", fontStyle: "italic" },
  { tag: [t.list], color: "var(--fg)" },
]);

const theme = EditorView.theme({
  "&": { backgroundColor: "var(--panel)", color: "var(--fg)", height: "100%" },
  ".cm-content": { caretColor: "var(--fg)", padding: "10px 0" },
  ".cm-gutters": { backgroundColor: "var(--bg)", color: "var(--muted)", borderRight: "1px solid var(--line)" },
  ".cm-activeLine": { backgroundColor: "color-mix(in srgb, var(--sel) 45%, transparent)" },
  ".cm-activeLineGutter": { backgroundColor: "var(--sel)" },
  "&.cm-focused .cm-selectionBackground, .cm-selectionBackground, ::selection": { backgroundColor: "var(--sel) !important" },
  ".cm-cursor": { borderLeftColor: "var(--fg)" },
});

export interface Editor {
  /** Shows a file (a fresh undo history); `readOnly` for none. */
  open(text: string, readOnly?: boolean): void;
  /** Puts in the file's text as it now is on disk (changed by a write from elsewhere), keeping the cursor where it can; not an edit. */
  reload(text: string): void;
  text(): string;
  focus(): void;
  readonly view: EditorView;
}

/** An editor in `parent`; `onChange` gets the text after each edit by the user; `onSave` on Ctrl/Cmd+S. */
export function createEditor(parent: HTMLElement, onChange: (text: string) => void, onSave: () => void): Editor {
  const extensions = (readOnly: boolean): Extension[] => [
    basicSetup,
    yamlFrontmatter({ content: markdown() }),
    syntaxHighlighting(highlight),
    theme,
    EditorView.lineWrapping,
    EditorState.readOnly.of(readOnly),
    keymap.of([{ key: "Mod-s", preventDefault: true, run: () => (onSave(), true) }]),
    EditorView.updateListener.of((update) => {
      // setState (open) is not an update; a reload is not the user's edit
      if (update.docChanged && !update.transactions.some((tr) => tr.annotation(fromDisk))) onChange(update.state.doc.toString());
    }),
  ];
  const view = new EditorView({ parent, state: EditorState.create({ doc: "", extensions: extensions(true) }) });
  view.contentDOM.setAttribute("aria-label", "File contents");
  return {
    view,
    open(text, readOnly = false) {
      view.setState(EditorState.create({ doc: text, extensions: extensions(readOnly) }));
    },
    reload(text) {
      const doc = view.state.doc;
      const head = Math.min(view.state.selection.main.head, text.length);
      view.dispatch({ changes: { from: 0, to: doc.length, insert: text }, selection: { anchor: head }, annotations: [fromDisk.of(true), Transaction.addToHistory.of(false)] });
    },
    text: () => view.state.doc.toString(),
    focus: () => view.focus(),
  };
}
