//! `paths::check_relative_path` and the tool's `/memories` mapping: an accepted path never
//! escapes — no `..`, not absolute, no NUL, no backslash, no drive or UNC form, no
//! percent-encoding, and no look-alike that normalises (NFKC) into any of those.
#![no_main]

use libfuzzer_sys::fuzz_target;
use memdir::paths::{check_relative_path, sanitize_path};
use memdir::tool::to_relative;
use memdir_fuzz::{arg, assert_safe_relative, json_args};

fn check(path: &str) {
    memdir_fuzz::debug(&(path,));
    if check_relative_path(path).is_ok() {
        assert_safe_relative(path, "check_relative_path");
    }
    for given in [
        path.to_owned(),
        format!("/memories/{path}"),
        format!("/memories{path}"),
    ] {
        if let Ok(rel) = to_relative(&given) {
            assert!(
                given.starts_with("/memories"),
                "{given:?} accepted outside /memories"
            );
            if !rel.is_empty() {
                assert_safe_relative(&rel, "to_relative");
            }
        }
    }
    let key = sanitize_path(path);
    assert!(
        key.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'-'),
        "{key:?}"
    );
    assert!(
        key.len() <= 200 + 1 + 13,
        "sanitized key too long: {}",
        key.len()
    );
}

fuzz_target!(|data: &[u8]| {
    if let Some(args) = json_args(data) {
        if let Some(path) = arg::<String>(&args, 0) {
            check(&path);
        }
        return;
    }
    check(&String::from_utf8_lossy(data));
});
