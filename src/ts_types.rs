//! The TypeScript declarations of every type that crosses into JavaScript, generated from the
//! Rust types themselves (ts-rs, under `cfg(test)` only: nothing of it is in the wasm).
//! `js/generated/types.ts` is committed; this test fails when it no longer matches the Rust
//! types, and `MEMDIR_UPDATE_TYPES=1 cargo test --lib ts_types` rewrites it.

#![allow(clippy::expect_used, clippy::panic)] // a test: failing is its job

use std::fmt::Write as _;
use std::path::Path;

use ts_rs::{Config, TS};

use crate::codes::{DiagnosticCode, EntryKind, ErrorCode, FindingCode};
use crate::cost::{Cost, CostInput, Usage};
use crate::doctor::fix::FixPlan;
use crate::doctor::{DoctorInput, DoctorReport, Finding, Severity};
use crate::frontmatter::MemoryType;
use crate::history::journal::{Before, Change, Record, Status};
use crate::history::policy::HistoryPolicy;
use crate::history::record::{
    BlobCopy, IfMatch, ReadPlan as HistoryReadPlan, RecordInput, RecordPlan,
};
use crate::history::reverse::{
    ChangeSummary, HistoryItem, RecoveryPlan, ReverseInput, ReversePlan,
};
use crate::index::{IndexInput, IndexPrompt, IndexReadPlan, IndexView};
use crate::instructions::WriteVia;
use crate::keep::consolidate::{ConsolidationChange, ConsolidationPlan, ConsolidationRequest};
use crate::keep::extract::{
    ExtractSkip, Extraction, ExtractionInput, ExtractionPlan, ExtractionRequest, PlannedProposal,
    Proposal, ProposalAction, RefusedProposal, TurnMessage,
};
use crate::keep::schedule::{ConsolidationDue, ConsolidationSchedule, ConsolidationState};
use crate::keep::KeepMode;
use crate::lexical::{LexicalInput, LexicalSelection, QueryTerm, Scored};
use crate::limits::Limits;
use crate::merge_index::MergedIndex;
use crate::paths::{AgentMemoryInput, AutoMemorySettings, MemoryDirInput};
use crate::provider::{
    DefaultSelector, HttpRequest, Provider, ProviderAnswer, ProviderFailure, ProviderRequestInput,
    ProviderResponseInput, RetryDecision, RetryInput, SelectorDefaults, SelectorEnv,
};
use crate::render::{RenderInput, Rendered, Truncation};
use crate::scan::{Diagnostic, FileHead, Head, Memory, ScanPlan, ScanResult};
use crate::secrets::SecretFinding;
use crate::side_query::answer::{Failure, Rejected, Selection};
use crate::side_query::request::{SelectionInput, SelectionRequest, Skip};
use crate::temp::TempFile;
use crate::tool::{CommandShape, Listing, SchemaOptions, SchemaShape, ToolPlan, ToolResult};
use crate::write::read_plan::ReadPlan;
use crate::write::remember::{RememberInput, WriteAction, WritePlan};
use crate::write::snapshot::{Entry, Snapshot};
use crate::write::Effect;

const HEADER: &str = "// Generated from the Rust types by `MEMDIR_UPDATE_TYPES=1 cargo test --lib ts_types`\n// (src/ts_types.rs). Do not edit: change the Rust type and regenerate.\n";

fn declare<T: TS>(cfg: &Config, out: &mut String) {
    out.push('\n');
    if let Some(docs) = T::docs() {
        out.push_str(&docs);
    }
    let _ = writeln!(out, "export {}", T::decl(cfg));
}

/// Every declaration, in one file.
pub(crate) fn declarations() -> String {
    let cfg = Config::new().with_large_int("number");
    let mut out = String::from(HEADER);
    macro_rules! all {
        ($($t:ty),* $(,)?) => { $(declare::<$t>(&cfg, &mut out);)* };
    }
    all!(
        serde_json::Value,
        ErrorCode,
        DiagnosticCode,
        FindingCode,
        EntryKind,
        Limits,
        Head,
        IndexView,
        IndexInput,
        IndexPrompt,
        IndexReadPlan,
        MergedIndex,
        MemoryType,
        FileHead,
        Memory,
        Diagnostic,
        ScanResult,
        ScanPlan,
        SelectionInput,
        Skip,
        SelectionRequest,
        Rejected,
        Failure,
        Selection,
        RenderInput,
        Truncation,
        Rendered,
        MemoryDirInput,
        AutoMemorySettings,
        AgentMemoryInput,
        Usage,
        CostInput,
        Cost,
        Provider,
        ProviderRequestInput,
        HttpRequest,
        ProviderResponseInput,
        ProviderFailure,
        ProviderAnswer,
        RetryInput,
        RetryDecision,
        SelectorDefaults,
        SelectorEnv,
        DefaultSelector,
        LexicalInput,
        Scored,
        QueryTerm,
        LexicalSelection,
        Effect,
        Entry,
        Snapshot,
        ReadPlan,
        CommandShape,
        SchemaShape,
        SchemaOptions,
        Listing,
        ToolPlan,
        ToolResult,
        RememberInput,
        WriteAction,
        WritePlan,
        KeepMode,
        ConsolidationRequest,
        ConsolidationChange,
        ConsolidationPlan,
        ConsolidationState,
        ConsolidationSchedule,
        ConsolidationDue,
        TurnMessage,
        ExtractionInput,
        ExtractSkip,
        ExtractionRequest,
        ProposalAction,
        Proposal,
        Extraction,
        PlannedProposal,
        RefusedProposal,
        ExtractionPlan,
        SecretFinding,
        DoctorInput,
        Severity,
        Finding,
        DoctorReport,
        FixPlan,
        TempFile,
        WriteVia,
        HistoryPolicy,
        Before,
        Change,
        Record,
        Status,
        HistoryReadPlan,
        RecordInput,
        BlobCopy,
        IfMatch,
        RecordPlan,
        ReverseInput,
        ReversePlan,
        RecoveryPlan,
        ChangeSummary,
        HistoryItem,
    );
    out
}

/// The defaults, as values, for text that must name them without loading the module (the
/// CLI's help): `js/generated/defaults.ts`, checked against the core like the types.
pub(crate) fn defaults() -> String {
    let mut out = String::from(HEADER);
    out.push_str("import type { Limits, MemoryType, SelectorDefaults } from \"./types.js\";\n");
    // the defaults, as values, for text that must name them without loading the module (the
    // CLI's help): checked against the core like the types
    let value = |v: serde_json::Value| serde_json::to_string(&v).expect("JSON");
    let limits = serde_json::to_value(Limits::default()).expect("limits");
    let selector = serde_json::to_value(crate::provider::SELECTOR_DEFAULTS).expect("defaults");
    let _ = writeln!(
        out,
        "\n/** The core's default limits (`defaultLimits()` without loading the module). */\nexport const DEFAULT_LIMITS: Readonly<Limits> = {};",
        value(limits)
    );
    let types = serde_json::to_value(MemoryType::ALL).expect("types");
    let _ = writeln!(
        out,
        "\n/** The four memory types, as the core reads them (`type:` in a memory's frontmatter). */\nexport const MEMORY_TYPES: readonly MemoryType[] = {};",
        value(types)
    );
    let _ = writeln!(
        out,
        "\n/** The side query's defaults (`selectorDefaults()` without loading the module). */\nexport const SELECTOR_DEFAULTS: Readonly<SelectorDefaults> = {};",
        value(selector)
    );
    out
}

#[test]
fn ts_types_match_the_rust_types() {
    for (file, generated) in [("types.ts", declarations()), ("defaults.ts", defaults())] {
        let path = Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("js/generated")
            .join(file);
        if std::env::var_os("MEMDIR_UPDATE_TYPES").is_some() {
            std::fs::create_dir_all(path.parent().expect("a folder")).expect("mkdir");
            std::fs::write(&path, &generated).expect("write js/generated/");
            continue;
        }
        let committed = std::fs::read_to_string(&path).unwrap_or_default();
        assert!(
            committed == generated,
            "js/generated/{file} does not match the core: run `MEMDIR_UPDATE_TYPES=1 cargo test --lib ts_types` and commit it"
        );
    }
}
