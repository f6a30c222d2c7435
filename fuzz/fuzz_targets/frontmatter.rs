//! `frontmatter_simple::simple_mapping` against the YAML parser: any text the reader without
//! the parser accepts, the parser reads as the same mapping (keys, strings, numbers, booleans,
//! nulls, the block under a key).
#![no_main]

use libfuzzer_sys::fuzz_target;
use memdir::frontmatter::load;
use memdir::frontmatter_simple::simple_mapping;

fuzz_target!(|data: &[u8]| {
    let Ok(yaml) = std::str::from_utf8(data) else {
        return;
    };
    memdir_fuzz::debug(&yaml);
    if let Some(map) = simple_mapping(yaml) {
        assert_eq!(
            load(yaml).ok(),
            Some(gray_matter::Pod::Hash(map)),
            "the reader without the parser disagrees on {yaml:?}"
        );
    }
});
