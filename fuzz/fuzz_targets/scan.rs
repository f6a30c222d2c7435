//! `scan::scan_memories` (header and frontmatter scan) and `scan::plan_scan`: any listing, any
//! bytes; the memories are safe topic paths, unique, newest first, at most `maxFiles`, with
//! one-line descriptions.
#![no_main]

use arbitrary::{Arbitrary, Unstructured};
use libfuzzer_sys::fuzz_target;
use memdir::scan::{is_topic_path, plan_scan, scan_memories, FileHead};
use memdir::Limits;
use memdir_fuzz::{
    arg, assert_safe_relative, fuzz_head, json_args, limits_arg, FuzzLimits, FuzzPath,
};

fn check(files: &[FileHead], limits: &Limits) {
    memdir_fuzz::debug(&(files, limits));
    let result = scan_memories(files, limits);
    let plan = plan_scan(files, limits);
    assert!(result.memories.len() <= limits.max_files as usize);
    let all: Vec<_> = result.memories.iter().chain(&result.dropped).collect();
    assert_eq!(
        all.iter().map(|m| &m.path).collect::<Vec<_>>(),
        plan.read.iter().collect::<Vec<_>>(),
        "the plan reads the files in the scan's order"
    );
    for (i, m) in all.iter().enumerate() {
        assert_safe_relative(&m.path, "scan");
        assert!(is_topic_path(&m.path));
        assert!(
            !all[..i].iter().any(|o| o.path == m.path),
            "{} twice",
            m.path
        );
        if let Some(prev) = i.checked_sub(1).map(|p| all[p]) {
            assert!(prev.mtime_ms >= m.mtime_ms, "not newest first");
        }
        if let Some(d) = &m.description {
            assert!(
                !d.contains('\n') && !d.contains('\r'),
                "description {d:?} not one line"
            );
        }
    }
}

#[derive(Debug)]
struct RawFile(FileHead);

impl<'a> Arbitrary<'a> for RawFile {
    fn arbitrary(u: &mut Unstructured<'a>) -> arbitrary::Result<Self> {
        let path = FuzzPath::arbitrary(u)?.0;
        let path = if u.ratio(3u8, 4u8)? && !path.ends_with(".md") {
            format!("{path}.md")
        } else {
            path
        };
        let mtime_ms = match u.int_in_range(0..=5u8)? {
            0 => f64::NAN,
            1 => f64::INFINITY,
            2 => u.arbitrary()?,
            n => f64::from(n) * 86_400_000.0,
        };
        let head = if u.ratio(7u8, 8u8)? {
            Some(fuzz_head(u)?)
        } else {
            None
        };
        let kind = match u.int_in_range(0..=5u8)? {
            0 => Some(memdir::codes::EntryKind::Directory),
            1 => Some(memdir::codes::EntryKind::Other),
            _ => None,
        };
        let problem = match u.int_in_range(0..=9u8)? {
            0 => Some("symlink_escape".to_owned()),
            1 => Some("ENOENT".to_owned()),
            2 => Some(u.arbitrary()?),
            _ => None,
        };
        Ok(Self(FileHead {
            path,
            mtime_ms,
            head,
            kind,
            problem,
        }))
    }
}

fuzz_target!(|data: &[u8]| {
    if let Some(args) = json_args(data) {
        if let (Some(files), Some(limits)) = (arg::<Vec<FileHead>>(&args, 0), limits_arg(&args, 1))
        {
            check(&files, &limits);
        }
        return;
    }
    let mut u = Unstructured::new(data);
    let Ok((limits, files)) = <(FuzzLimits, Vec<RawFile>)>::arbitrary(&mut u) else {
        return;
    };
    let files: Vec<FileHead> = files.into_iter().map(|f| f.0).collect();
    check(&files, &limits.0);
});
