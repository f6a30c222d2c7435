//! Micro-benchmarks of the core's hot paths (`cargo bench --bench core`), with divan.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::indexing_slicing)]

use memdir::scan::{plan_scan, scan_memories, FileHead, Head};
use memdir::Limits;

fn main() {
    divan::main();
}

fn heads(n: usize) -> Vec<FileHead> {
    let types = ["user", "feedback", "project", "reference"];
    (0..n)
        .map(|i| {
            let t = types[i % 4];
            let mut head = format!("---\nname: Memory number {i}\ndescription: >\n  {t} memory {i} about the staging deploy checklist,\n  integration tests against a real database and on-call rotation\ntype: {t}\n---\n\n");
            for j in 0..22 {
                head.push_str(&format!("Line {j} of the body of memory {i}: **Why:** because.\n"));
            }
            FileHead {
                path: format!("{t}_{i}.md"),
                mtime_ms: 1.7e12 - (i as f64) * 3.6e6,
                head: Some(Head::Bytes(head.into_bytes())),
                kind: None,
                problem: None,
            }
        })
        .collect()
}

#[divan::bench(args = [20, 200])]
fn scan(bencher: divan::Bencher, n: usize) {
    let files = heads(n);
    let limits = Limits::default();
    bencher.bench(|| scan_memories(divan::black_box(&files), &limits));
}

/// A listing of `n` topic files, no heads read: what a plan is given.
fn listing(n: usize) -> Vec<FileHead> {
    heads(n)
        .into_iter()
        .map(|mut f| {
            f.head = None;
            f
        })
        .collect()
}

#[divan::bench(args = [200, 20_000])]
fn plan(bencher: divan::Bencher, n: usize) {
    let files = listing(n);
    let limits = Limits::default();
    bencher.bench(|| plan_scan(divan::black_box(&files), &limits));
}

/// The plan as a turn makes it: a packed listing given to a scan session, which keeps it.
#[divan::bench(args = [200, 20_000])]
fn plan_session(bencher: divan::Bencher, n: usize) {
    let packed = memdir::packed::PackedBuffers::from_files(&listing(n));
    let mut session = memdir::scan_session::ScanSession::new(Limits::default());
    bencher.bench_local(|| session.plan(&packed.listing(), false));
}

/// `remember`'s plan into 180 memories whose headers a scan already parsed (an opened memory's).
#[divan::bench]
fn plan_remember(bencher: divan::Bencher) {
    let mut entries = vec![
        serde_json::json!({"path": "MEMORY.md", "kind": "file", "size": 0, "mtimeMs": 1.7e12}),
    ];
    let mut scanned = Vec::new();
    let mut index = String::new();
    for i in 0..180 {
        entries.push(serde_json::json!({"path": format!("project_f{i}.md"), "kind": "file", "size": 120, "mtimeMs": 1.7e12 - (i as f64) * 1000.0}));
        scanned.push(serde_json::json!([
            format!("project_f{i}.md"),
            format!("F{i}"),
            format!("fact {i} about subsystem {} and its owner", i * 7919)
        ]));
        index.push_str(&format!("- [F{i}](project_f{i}.md) — fact {i}\n"));
    }
    entries[0]["size"] = serde_json::json!(index.len());
    let snapshot: memdir::write::Snapshot = serde_json::from_value(serde_json::json!({
        "entries": entries,
        "contents": {"MEMORY.md": index},
        "scanned": serde_json::to_string(&scanned).unwrap(),
    }))
    .unwrap();
    let input: memdir::write::remember::RememberInput = serde_json::from_value(serde_json::json!({
        "type": "project", "name": "Bench", "description": "benchmark memory about topic", "body": "body"
    }))
    .unwrap();
    let limits = Limits::default();
    bencher.bench_local(|| memdir::write::remember::plan_remember(&input, &snapshot, &limits));
}

/// The offline selector's first turn at 200 memories: every head's terms made (what a fresh
/// process, `memdir recall` without a model, pays), and a later turn with them kept in the session.
#[divan::bench(args = ["first", "kept"])]
fn lexical(bencher: divan::Bencher, turn: &str) {
    let files = heads(200);
    let limits = Limits::default();
    let query = "what should I know about deploys and tests";
    if turn == "first" {
        let scan = scan_memories(&files, &limits);
        let input = memdir::lexical::LexicalInput {
            query: query.into(),
            heads: files
                .iter()
                .map(|f| (f.path.clone(), f.head.clone().unwrap()))
                .collect(),
            memories: scan.memories,
            recent_tools: Vec::new(),
            limits: None,
        };
        bencher.bench(|| memdir::lexical::lexical_select(divan::black_box(&input)));
    } else {
        let packed = memdir::packed::PackedBuffers::from_files(&files);
        let mut session = memdir::scan_session::ScanSession::new(limits);
        session.plan(&packed.listing(), false).unwrap();
        session.scan(&packed.heads(), &[]).unwrap();
        let candidates: Vec<String> = session
            .last_memories()
            .iter()
            .map(|m| m.path.clone())
            .collect();
        bencher.bench_local(|| session.lexical_select(query, &candidates, &[], &limits));
    }
}
