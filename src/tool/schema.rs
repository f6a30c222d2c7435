//! The memory tool's input as data: the six commands, their fields and what each field takes,
//! written once. [`decode_command`](super::decode_command) checks a command's name against
//! this table, the tests below hold the decoder to it field by field, and [`input_schema`]
//! turns it into the JSON Schema that any tool loop (OpenAI functions, MCP, a validator) can
//! hand to a model, so no host writes that schema by hand and none can drift from the core.

/// What a field takes, as the decoder reads it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum FieldType {
    /// A string; required.
    Text,
    /// A string, or left out / `null` (read as the empty string).
    OptionalText,
    /// A whole number, at least this much (a smaller one is refused by the command itself).
    WholeNumber { minimum: i64 },
    /// `[start, end]`, or left out / `null`.
    LineRange,
}

impl FieldType {
    pub(crate) fn required(self) -> bool {
        matches!(self, Self::Text | Self::WholeNumber { .. })
    }
}

/// One field of a command.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Field {
    pub(crate) name: &'static str,
    pub(crate) kind: FieldType,
    pub(crate) about: &'static str,
}

/// One command: its name (the `command` field), what it does, its fields in the order the
/// decoder checks them.
#[derive(Debug, Clone, Copy)]
pub(crate) struct CommandSpec {
    pub(crate) name: &'static str,
    pub(crate) about: &'static str,
    pub(crate) fields: &'static [Field],
}

/// The largest whole number a JavaScript number holds exactly (`Number.MAX_SAFE_INTEGER`):
/// past it the number reaches the core as a float and is refused.
const MAX_WHOLE: i64 = (1 << 53) - 1;

const PATH: Field = Field {
    name: "path",
    kind: FieldType::Text,
    about: "A path under /memories, the memory directory: /memories itself, /memories/MEMORY.md (the index) or a file such as /memories/feedback_testing.md.",
};

/// The six commands of Anthropic's `memory_20250818` memory tool, in the SDK's order.
pub(crate) const COMMANDS: [CommandSpec; 6] = [
    CommandSpec {
        name: "view",
        about: "Shows a directory (its files and folders two levels deep, with sizes) or a file's content with line numbers.",
        fields: &[
            PATH,
            Field {
                name: "view_range",
                kind: FieldType::LineRange,
                about: "Files only: [start, end], the 1-based lines to show, inclusive; end -1 for the end of the file. Left out: the whole file.",
            },
        ],
    },
    CommandSpec {
        name: "create",
        about: "Creates a file with the given text. Refused when the file exists, when the text holds a credential, or when it would break a limit or the rule that MEMORY.md holds only one-line index entries.",
        fields: &[
            PATH,
            Field {
                name: "file_text",
                kind: FieldType::Text,
                about: "The whole content of the new file.",
            },
        ],
    },
    CommandSpec {
        name: "str_replace",
        about: "Replaces text that appears exactly once in a file.",
        fields: &[
            PATH,
            Field {
                name: "old_str",
                kind: FieldType::Text,
                about: "The text to replace, exactly as it is in the file (whitespace included); it must appear exactly once.",
            },
            Field {
                name: "new_str",
                kind: FieldType::OptionalText,
                about: "The replacement text; left out or empty, old_str is deleted.",
            },
        ],
    },
    CommandSpec {
        name: "insert",
        about: "Inserts text into a file after a given line.",
        fields: &[
            PATH,
            Field {
                name: "insert_line",
                kind: FieldType::WholeNumber { minimum: 0 },
                about: "The line after which the text goes: 0 for the top of the file, the file's line count for its end.",
            },
            Field {
                name: "insert_text",
                kind: FieldType::Text,
                about: "The text to insert.",
            },
        ],
    },
    CommandSpec {
        name: "delete",
        about: "Deletes a file or a folder; MEMORY.md entries that link to it are removed with it.",
        fields: &[PATH],
    },
    CommandSpec {
        name: "rename",
        about: "Renames or moves a file or a folder; MEMORY.md entries that link to it follow it. Refused when the destination exists.",
        fields: &[
            Field {
                name: "old_path",
                kind: FieldType::Text,
                about: "The file or folder to move, under /memories.",
            },
            Field {
                name: "new_path",
                kind: FieldType::Text,
                about: "Where it goes, under /memories; it must not exist yet.",
            },
        ],
    },
];

/// The command named `name`, if it is one of the six.
pub(crate) fn command_spec(name: &str) -> Option<&'static CommandSpec> {
    COMMANDS.iter().find(|c| c.name == name)
}

/// The six names, as the decoder's error lists them.
pub(crate) fn command_names() -> String {
    COMMANDS
        .iter()
        .map(|c| c.name)
        .collect::<Vec<_>>()
        .join(", ")
}

/// JSON text, written directly, its writers kept out of line: the schema then costs the wasm
/// about 7 KB, its text included (13 KB when built as a `serde_json::Value`).
struct JsonText(String);

impl JsonText {
    #[inline(never)]
    fn raw(&mut self, text: &str) -> &mut Self {
        self.0.push_str(text);
        self
    }

    /// A JSON string: quotes, backslashes and control characters escaped.
    #[inline(never)]
    fn string(&mut self, text: &str) -> &mut Self {
        self.0.push('"');
        for c in text.chars() {
            match c {
                '"' => self.0.push_str("\\\""),
                '\\' => self.0.push_str("\\\\"),
                '\n' => self.0.push_str("\\n"),
                c if u32::from(c) < 0x20 => self.0.push_str(&format!("\\u{:04x}", u32::from(c))),
                c => self.0.push(c),
            }
        }
        self.0.push('"');
        self
    }

    /// `"key":`, after a comma unless it opens its object.
    #[inline(never)]
    fn key(&mut self, key: &str) -> &mut Self {
        if !self.0.ends_with('{') {
            self.0.push(',');
        }
        self.string(key).raw(":")
    }

    #[inline(never)]
    fn number(&mut self, n: i64) -> &mut Self {
        self.raw(&n.to_string())
    }

    fn strings<'a>(&mut self, items: impl IntoIterator<Item = &'a str>) -> &mut Self {
        self.0.push('[');
        for (i, item) in items.into_iter().enumerate() {
            if i > 0 {
                self.0.push(',');
            }
            self.string(item);
        }
        self.raw("]")
    }
}

/// The JSON Schema of one field.
fn field_schema(out: &mut JsonText, field: &Field) {
    out.raw("{");
    match field.kind {
        FieldType::Text => out.key("type").string("string"),
        FieldType::OptionalText => out.key("type").strings(["string", "null"]),
        FieldType::WholeNumber { minimum } => out
            .key("type")
            .string("integer")
            .key("minimum")
            .number(minimum)
            .key("maximum")
            .number(MAX_WHOLE),
        FieldType::LineRange => out
            .key("type")
            .strings(["array", "null"])
            .key("items")
            .raw("{")
            .key("type")
            .string("integer")
            .key("minimum")
            .number(-1)
            .key("maximum")
            .number(MAX_WHOLE)
            .raw("}")
            .key("minItems")
            .number(2)
            .key("maxItems")
            .number(2),
    };
    out.key("description").string(field.about).raw("}");
}

/// The schema of one command: its `command` constant and its own fields.
fn command_schema(out: &mut JsonText, spec: &CommandSpec) {
    out.raw("{").key("title").string(spec.name);
    out.key("description").string(spec.about);
    out.key("type").string("object");
    out.key("properties").raw("{");
    out.key("command").raw("{").key("type").string("string");
    out.key("const").string(spec.name).raw("}");
    for field in spec.fields {
        out.key(field.name);
        field_schema(out, field);
    }
    out.raw("}").key("required");
    let required = spec.fields.iter().filter(|f| f.kind.required());
    out.strings(std::iter::once("command").chain(required.map(|f| f.name)));
    out.raw("}");
}

/// Options of `memoryToolInputSchema` ([`input_schema`]).
#[derive(Debug, Clone, Copy, Default, serde::Deserialize)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
#[cfg_attr(test, derive(ts_rs::TS))]
#[cfg_attr(test, ts(rename = "MemoryToolSchemaOptions"))]
pub struct SchemaOptions {
    /// Leave out the root `oneOf`, for model APIs that refuse composition keywords at a tool
    /// schema's root (Anthropic's, OpenAI's, Gemini's, and MCP clients built on them): every
    /// field but `command` is then optional in the schema, the root `description` says which
    /// command takes which, and the command itself refuses a missing one.
    #[cfg_attr(test, ts(optional = nullable))]
    pub flat: Option<bool>,
}

/// `- view: path, view_range? — what it does`: one line a command, for the root description.
fn command_line(spec: &CommandSpec) -> String {
    let fields: Vec<String> = spec
        .fields
        .iter()
        .map(|f| {
            if f.kind.required() {
                f.name.to_owned()
            } else {
                format!("{}?", f.name)
            }
        })
        .collect();
    format!("- {}: {} — {}", spec.name, fields.join(", "), spec.about)
}

/// The JSON Schema of one memory-tool command (the `input` of a `tool_use` block), as the
/// core accepts it, as JSON text: an object whose `command` names one of the six commands, and
/// exactly one of the `oneOf` schemas (the one whose `command` is that name) for its fields.
/// `properties` also lists every field of every command, and `description` which command
/// takes which, for tools that read only the root (`flat` leaves `oneOf` out for them). Keys
/// the core does not read are allowed, as the core ignores them. Paths are checked by the
/// command (they must be under `/memories`), not by the schema. JSON Schema draft-07 and
/// 2020-12 read it alike.
pub fn input_schema(options: SchemaOptions) -> String {
    let mut out = JsonText(String::with_capacity(8192));
    let lines: Vec<String> = COMMANDS.iter().map(command_line).collect();
    out.raw("{").key("type").string("object");
    out.key("description").string(&format!(
        "One command of the memory tool (Anthropic's memory_20250818) over the memory directory, seen as /memories. The commands and their fields (? when optional):\n{}",
        lines.join("\n")
    ));
    out.key("properties").raw("{");
    out.key("command").raw("{").key("type").string("string");
    out.key("enum").strings(COMMANDS.iter().map(|c| c.name));
    out.key("description")
        .string("Which command to run; each takes its own fields.")
        .raw("}");
    let mut seen: Vec<&str> = Vec::new();
    for field in COMMANDS.iter().flat_map(|c| c.fields) {
        if !seen.contains(&field.name) {
            seen.push(field.name);
            out.key(field.name);
            field_schema(&mut out, field);
        }
    }
    out.raw("}").key("required").strings(["command"]);
    if options.flat != Some(true) {
        out.key("oneOf").raw("[");
        for (i, spec) in COMMANDS.iter().enumerate() {
            if i > 0 {
                out.raw(",");
            }
            command_schema(&mut out, spec);
        }
        out.raw("]");
    }
    out.raw("}");
    out.0
}

/// The JSON Schema of one memory-tool command, from `memoryToolInputSchema()` and
/// `memory.tool().inputSchema` (the TypeScript type only: the core builds the value).
#[cfg(test)]
#[derive(ts_rs::TS)]
#[ts(rename = "MemoryToolInputSchema")]
#[allow(dead_code)]
pub(crate) struct SchemaShape {
    #[ts(rename = "type", type = "\"object\"")]
    kind: (),
    description: String,
    /// Every field of every command, and `command` itself (an `enum` of the six names).
    #[ts(type = "Record<string, Record<string, unknown>>")]
    properties: (),
    #[ts(type = "[\"command\"]")]
    required: (),
    /// One schema per command, in the SDK's order: `title` is the command's name and
    /// `properties.command.const` its value; `required` lists `command` and its required fields.
    /// Left out with `{flat: true}`.
    #[ts(
        optional,
        rename = "oneOf",
        type = "Array<{ title: string, description: string, type: \"object\", properties: Record<string, Record<string, unknown>>, required: string[] }>"
    )]
    one_of: Option<()>,
}

#[cfg(test)]
#[allow(clippy::expect_used, clippy::panic, clippy::indexing_slicing)] // a test: failing is its job
mod tests {
    use super::*;
    use crate::tool::decode_command;
    use serde_json::{json, Map, Value};

    fn parsed(options: SchemaOptions) -> Value {
        serde_json::from_str(&input_schema(options)).expect("the schema is JSON")
    }

    /// A value of the field's type that the decoder must accept.
    fn good(kind: FieldType) -> Value {
        match kind {
            FieldType::Text | FieldType::OptionalText => json!("/memories/a.md"),
            FieldType::WholeNumber { minimum } => json!(minimum),
            FieldType::LineRange => json!([1, -1]),
        }
    }

    /// Values of other JSON types, which the decoder must refuse.
    fn wrong(kind: FieldType) -> Vec<Value> {
        let all = [
            json!(true),
            json!(1.5),
            json!(7),
            json!("x"),
            json!([1, 2]),
            json!({"a": 1}),
        ];
        let accepted = |v: &Value| match kind {
            FieldType::Text | FieldType::OptionalText => v.is_string(),
            FieldType::WholeNumber { .. } => v.is_i64(),
            FieldType::LineRange => v.is_array(),
        };
        let mut out: Vec<Value> = all.into_iter().filter(|v| !accepted(v)).collect();
        if kind == FieldType::LineRange {
            out.push(json!([1, "x"]));
            out.push(json!([1.5, 2]));
        }
        out
    }

    fn full(spec: &CommandSpec) -> Map<String, Value> {
        let mut input = Map::new();
        input.insert("command".into(), json!(spec.name));
        for field in spec.fields {
            input.insert(field.name.into(), good(field.kind));
        }
        input
    }

    fn decodes(input: &Map<String, Value>) -> bool {
        decode_command(&Value::Object(input.clone())).is_ok()
    }

    #[test]
    fn the_decoder_accepts_exactly_the_table() {
        for spec in &COMMANDS {
            let input = full(spec);
            assert!(decodes(&input), "{}: every field given", spec.name);
            let mut minimal = input.clone();
            minimal.retain(|k, _| {
                k == "command" || spec.fields.iter().any(|f| f.name == k && f.kind.required())
            });
            assert!(decodes(&minimal), "{}: required fields only", spec.name);
            let mut extra = input.clone();
            extra.insert("not_a_field".into(), json!({"any": "thing"}));
            assert!(decodes(&extra), "{}: an unknown key is ignored", spec.name);
            for field in spec.fields {
                let mut without = input.clone();
                without.remove(field.name);
                assert_eq!(
                    decodes(&without),
                    !field.kind.required(),
                    "{}: without {}",
                    spec.name,
                    field.name
                );
                let mut null = input.clone();
                null.insert(field.name.into(), Value::Null);
                assert_eq!(
                    decodes(&null),
                    !field.kind.required(),
                    "{}: {} null",
                    spec.name,
                    field.name
                );
                for value in wrong(field.kind) {
                    let mut bad = input.clone();
                    bad.insert(field.name.into(), value.clone());
                    assert!(!decodes(&bad), "{}: {} = {value}", spec.name, field.name);
                }
            }
        }
    }

    #[test]
    fn json_strings_are_escaped() {
        let tricky = "a \"quote\", a \\ backslash, a\nnew line, a \t tab, \u{1} and — é 😀";
        let mut out = JsonText(String::new());
        out.raw("{").key("k\"ey").string(tricky).raw("}");
        let back: Value = serde_json::from_str(&out.0).expect("JSON");
        assert_eq!(back, json!({"k\"ey": tricky}));
    }

    #[test]
    fn only_the_six_names_decode() {
        for name in ["View", "chmod", "", "view "] {
            let mut input = full(&COMMANDS[0]);
            input.insert("command".into(), json!(name));
            assert!(!decodes(&input), "{name:?}");
        }
        assert_eq!(
            command_names(),
            "view, create, str_replace, insert, delete, rename"
        );
    }

    #[test]
    fn the_schema_lists_every_command_and_field() {
        let schema = parsed(SchemaOptions::default());
        let variants = schema["oneOf"].as_array().expect("oneOf");
        assert_eq!(variants.len(), COMMANDS.len());
        for (variant, spec) in variants.iter().zip(&COMMANDS) {
            assert_eq!(variant["properties"]["command"]["const"], spec.name);
            for field in spec.fields {
                assert!(variant["properties"][field.name].is_object());
                assert_eq!(
                    schema["properties"][field.name], variant["properties"][field.name],
                    "a field means the same in every command"
                );
            }
        }
        let flat = parsed(SchemaOptions { flat: Some(true) });
        let mut without = schema.clone();
        without.as_object_mut().expect("an object").remove("oneOf");
        assert_eq!(flat, without, "flat is the schema without its root oneOf");
    }
}
