//! High-confidence credential detection for every write (SPEC §4, issue 4).
//!
//! Only shapes that are credentials by construction are reported — a vendor prefix followed by
//! the vendor's alphabet and length, or a PEM `BEGIN … PRIVATE KEY` marker. There is no entropy
//! heuristic and no keyword match, so a note that talks about "the API key" or "the password"
//! is never flagged.
//!
//! A token match is a whole *word*: a maximal run of `[A-Za-z0-9_-]`. It must start at the
//! beginning of the text or after a character outside that class (so `XAKIA…`, `my_AKIA…` and
//! `x-ghp_…` are not matches) and end at the end of the text or before such a character (so an
//! over-long `AKIA…` is not one either). Multi-byte characters are outside the class, so an
//! accented letter next to a key is a boundary. The text is cut into words in one pass and each
//! word is classified once, so the scan is linear in the input.

use serde::Serialize;

/// One credential found in a text. The secret itself is never carried in full.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
#[cfg_attr(test, derive(ts_rs::TS))]
pub struct SecretFinding {
    /// Stable code, e.g. `aws_access_key_id`.
    pub code: &'static str,
    /// For people, e.g. `AWS access key ID`.
    pub kind: &'static str,
    /// 1-based line of the match.
    pub line: u32,
    /// A redacted preview: the first 4 characters, `…`, and the length.
    pub preview: String,
}

/// What a match is: its stable code and its name for people.
type Rule = (&'static str, &'static str);

const AWS: Rule = ("aws_access_key_id", "AWS access key ID");
const GITHUB: Rule = ("github_token", "GitHub token");
const ANTHROPIC: Rule = ("anthropic_api_key", "Anthropic API key");
const OPENAI: Rule = ("openai_api_key", "OpenAI API key");
const SLACK: Rule = ("slack_token", "Slack token");
const STRIPE: Rule = ("stripe_secret_key", "Stripe secret key");
const GOOGLE: Rule = ("google_api_key", "Google API key");
const NPM: Rule = ("npm_token", "npm token");
const PRIVATE_KEY: Rule = ("private_key", "private key");
const JWT: Rule = ("jwt", "JSON Web Token");
const URL_PASSWORD: Rule = ("url_password", "password in a URL");

/// The labels of `-----BEGIN {label}-----` that open a private key. PUBLIC KEY, CERTIFICATE
/// and the like are not secrets.
const PRIVATE_KEY_LABELS: [&str; 7] = [
    "RSA PRIVATE KEY",
    "EC PRIVATE KEY",
    "DSA PRIVATE KEY",
    "OPENSSH PRIVATE KEY",
    "ENCRYPTED PRIVATE KEY",
    "PRIVATE KEY",
    "PGP PRIVATE KEY BLOCK",
];

const PEM_BEGIN: &str = "-----BEGIN ";
const PEM_DASHES: &[u8] = b"-----";
/// Longer than every label above; bounds the look-ahead after each `-----BEGIN `.
const PEM_MAX_LABEL: usize = 32;

/// Every high-confidence credential in `text`, in order of appearance.
pub fn find_secrets(text: &str) -> Vec<SecretFinding> {
    let bytes = text.as_bytes();
    // (byte offset, length in bytes, rule); every match is ASCII, so bytes are chars.
    let mut hits: Vec<(usize, usize, Rule)> = Vec::new();

    let mut word_start: Option<usize> = None;
    for (i, &b) in bytes.iter().enumerate() {
        if is_word_byte(b) {
            word_start.get_or_insert(i);
        } else if let Some(start) = word_start.take() {
            classify_at(bytes, start, i, &mut hits);
        }
    }
    if let Some(start) = word_start {
        classify_at(bytes, start, bytes.len(), &mut hits);
    }

    for (pos, _) in text.match_indices(PEM_BEGIN) {
        if let Some(len) = bytes.get(pos..).and_then(private_key_marker) {
            hits.push((pos, len, PRIVATE_KEY));
        }
    }
    for (pos, _) in text.match_indices(JWT_START) {
        let boundary = pos == 0
            || bytes
                .get(pos - 1)
                .is_some_and(|&b| !is_word_byte(b) && b != b'.');
        if let Some(len) = bytes.get(pos..).filter(|_| boundary).and_then(jwt_len) {
            hits.push((pos, len, JWT));
        }
    }
    for (pos, _) in text.match_indices("://") {
        if let Some((start, len)) = url_password(bytes, pos) {
            hits.push((start, len, URL_PASSWORD));
        }
    }

    hits.sort_by_key(|&(pos, _, _)| pos);
    // a URL whose password is itself a known token is reported as that token, once
    let spans: Vec<(usize, usize)> = hits
        .iter()
        .filter(|h| h.2 != URL_PASSWORD)
        .map(|&(pos, len, _)| (pos, pos + len))
        .collect();
    hits.retain(|&(pos, len, rule)| {
        rule != URL_PASSWORD || !spans.iter().any(|&(a, b)| a >= pos && b <= pos + len)
    });

    let mut line: usize = 1;
    let mut counted_to = 0;
    hits.into_iter()
        .map(|(pos, len, (code, kind))| {
            line += bytes
                .get(counted_to..pos)
                .map_or(0, |s| s.iter().filter(|&&b| b == b'\n').count());
            counted_to = pos;
            let head = text.get(pos..pos + 4).unwrap_or("");
            SecretFinding {
                code,
                kind,
                line: u32::try_from(line).unwrap_or(u32::MAX),
                preview: format!("{head}… ({len} chars)"),
            }
        })
        .collect()
}

/// ASCII letters, digits, `_` and `-`: the characters a token is made of, and the ones that
/// must not touch it on either side.
fn is_word_byte(b: u8) -> bool {
    b.is_ascii_alphanumeric() || b == b'_' || b == b'-'
}

fn classify_at(bytes: &[u8], start: usize, end: usize, hits: &mut Vec<(usize, usize, Rule)>) {
    if let Some(rule) = bytes.get(start..end).and_then(classify) {
        hits.push((start, end - start, rule));
    }
}

/// The credential a whole word is, if any. `word` is made of [`is_word_byte`] bytes only.
fn classify(word: &[u8]) -> Option<Rule> {
    let alnum = |s: &[u8]| s.iter().all(u8::is_ascii_alphanumeric);
    let after = |prefix: &[u8]| word.strip_prefix(prefix);
    let after_any = |prefixes: &[&[u8]]| prefixes.iter().find_map(|p| word.strip_prefix(*p));

    // AWS access key ID: AKIA/ASIA/ABIA/ACCA + 16 of [A-Z0-9].
    if let Some(rest) = after_any(&[b"AKIA", b"ASIA", b"ABIA", b"ACCA"]) {
        let upper = rest
            .iter()
            .all(|b| b.is_ascii_uppercase() || b.is_ascii_digit());
        return (rest.len() == 16 && upper).then_some(AWS);
    }
    // GitHub: classic tokens (36 alnum) and fine-grained PATs (82 of [A-Za-z0-9_]).
    if let Some(rest) = after_any(&[b"ghp_", b"gho_", b"ghu_", b"ghs_", b"ghr_"]) {
        return (rest.len() == 36 && alnum(rest)).then_some(GITHUB);
    }
    if let Some(rest) = after(b"github_pat_") {
        let ok = rest.len() == 82 && rest.iter().all(|&b| b != b'-');
        return ok.then_some(GITHUB);
    }
    // Anthropic: sk-ant- + at least 32 of [A-Za-z0-9_-] (what a word is made of).
    if let Some(rest) = after(b"sk-ant-") {
        return (rest.len() >= 32).then_some(ANTHROPIC);
    }
    // OpenAI: project, service-account and admin keys, or sk- + at least 40.
    if let Some(rest) = after_any(&[b"sk-proj-", b"sk-svcacct-", b"sk-admin-"]) {
        if rest.len() >= 32 {
            return Some(OPENAI);
        }
    }
    if let Some(rest) = after(b"sk-") {
        return (rest.len() >= 40).then_some(OPENAI);
    }
    // Slack: xox[bpars]- + at least 10 of [A-Za-z0-9-].
    if let Some(rest) = after_any(&[b"xoxb-", b"xoxp-", b"xoxa-", b"xoxr-", b"xoxs-"]) {
        let ok = rest.len() >= 10 && rest.iter().all(|&b| b != b'_');
        return ok.then_some(SLACK);
    }
    // Stripe live secret and restricted keys: + at least 24 alnum.
    if let Some(rest) = after_any(&[b"sk_live_", b"rk_live_"]) {
        return (rest.len() >= 24 && alnum(rest)).then_some(STRIPE);
    }
    // Google API key: AIza + exactly 35 of [A-Za-z0-9_-].
    if let Some(rest) = after(b"AIza") {
        return (rest.len() == 35).then_some(GOOGLE);
    }
    // npm: npm_ + 36 alnum.
    if let Some(rest) = after(b"npm_") {
        return (rest.len() == 36 && alnum(rest)).then_some(NPM);
    }
    None
}

/// A JSON Web Token starts with the base64url of `{"`: its header, and its payload too.
const JWT_START: &str = "eyJ";
/// Shortest header, payload and signature counted as a token (a real header alone is ~36).
const JWT_MIN_PART: usize = 10;
const JWT_MIN_SIGNATURE: usize = 16;

/// The length of a JWT at the start of `s`: three base64url parts joined by `.`, the first
/// two starting `eyJ`, ending at a boundary.
fn jwt_len(s: &[u8]) -> Option<usize> {
    let part = |from: usize| {
        s.get(from..)
            .map_or(0, |r| r.iter().take_while(|&&b| is_word_byte(b)).count())
    };
    let header = part(0);
    let payload_at = header + 1;
    let payload = part(payload_at);
    let signature_at = payload_at + payload + 1;
    let signature = part(signature_at);
    let end = signature_at + signature;
    let ok = header >= JWT_MIN_PART
        && payload >= JWT_MIN_PART
        && signature >= JWT_MIN_SIGNATURE
        && s.get(header) == Some(&b'.')
        && s.get(payload_at + payload) == Some(&b'.')
        && s.get(payload_at..)
            .is_some_and(|r| r.starts_with(JWT_START.as_bytes()))
        && s.get(end) != Some(&b'.');
    ok.then_some(end)
}

/// How far after `://` the `user:password@` part is looked for.
const MAX_USERINFO: usize = 256;
/// Passwords that say where a real one would go.
const PLACEHOLDER_PASSWORDS: &[&str] = &[
    "password", "pass", "passwd", "pwd", "secret", "changeme", "redacted", "hidden", "token",
];

/// `scheme://user:password@host` with a real-looking password at `colon_slash` (the `://`):
/// the start of the scheme and the length up to the `@`.
fn url_password(bytes: &[u8], colon_slash: usize) -> Option<(usize, usize)> {
    let scheme_start = bytes
        .get(..colon_slash)?
        .iter()
        .rposition(|&b| !(b.is_ascii_alphanumeric() || matches!(b, b'+' | b'-' | b'.')))
        .map_or(0, |i| i + 1);
    let scheme = bytes.get(scheme_start..colon_slash)?;
    if !scheme.first()?.is_ascii_alphabetic() {
        return None;
    }
    let after = colon_slash + 3;
    let rest = bytes.get(after..)?;
    let end = rest.iter().take(MAX_USERINFO).position(|&b| {
        matches!(b, b'@' | b'/' | b'?' | b'#') || b.is_ascii_whitespace() || b == b'"' || b == b'\''
    })?;
    if rest.get(end) != Some(&b'@') {
        return None;
    }
    let userinfo = rest.get(..end)?;
    let colon = userinfo.iter().position(|&b| b == b':')?;
    let password = userinfo.get(colon + 1..)?;
    let host = rest.get(end + 1)?;
    let lower = String::from_utf8_lossy(password).to_ascii_lowercase();
    let placeholder = password.is_empty()
        || PLACEHOLDER_PASSWORDS.contains(&lower.as_str())
        || password
            .iter()
            .all(|&b| matches!(b, b'*' | b'x' | b'X' | b'.'))
        || matches!(password.first(), Some(b'$' | b'<' | b'{' | b'%' | b'['));
    (!placeholder && (host.is_ascii_alphanumeric() || *host == b'['))
        .then_some((scheme_start, after + end + 1 - scheme_start))
}

/// The length of the `-----BEGIN {label}-----` marker at the start of `s` when it opens a
/// private key.
fn private_key_marker(s: &[u8]) -> Option<usize> {
    let rest = s.get(PEM_BEGIN.len()..)?;
    let label_len = rest
        .iter()
        .take(PEM_MAX_LABEL + 1)
        .position(|&b| !(b.is_ascii_uppercase() || b.is_ascii_digit() || b == b' '))?;
    let (label, tail) = rest.split_at_checked(label_len)?;
    let is_private = PRIVATE_KEY_LABELS.iter().any(|l| l.as_bytes() == label);
    (is_private && tail.starts_with(PEM_DASHES))
        .then_some(PEM_BEGIN.len() + label_len + PEM_DASHES.len())
}

#[cfg(test)]
#[allow(clippy::indexing_slicing)]
mod tests {
    use super::*;

    fn codes(text: &str) -> Vec<&'static str> {
        find_secrets(text).into_iter().map(|f| f.code).collect()
    }

    const AWS_KEY: &str = "AKIAIOSFODNN7EXAMPLE";

    fn ghp() -> String {
        format!("ghp_{}", "x0".repeat(18))
    }

    #[test]
    fn aws_key_with_preview_and_line() {
        let found = find_secrets(&format!("first\nkey = {AWS_KEY}\n"));
        assert_eq!(
            found,
            vec![SecretFinding {
                code: "aws_access_key_id",
                kind: "AWS access key ID",
                line: 2,
                preview: "AKIA… (20 chars)".into(),
            }]
        );
        for prefix in ["ASIA", "ABIA", "ACCA"] {
            assert_eq!(
                codes(&format!("{prefix}IOSFODNN7EXAMPLE")),
                ["aws_access_key_id"]
            );
        }
    }

    #[test]
    fn boundaries_on_both_sides() {
        for text in [
            format!("X{AWS_KEY}"),
            format!("{AWS_KEY}X"),
            format!("{AWS_KEY}0"),
            format!("my_{AWS_KEY}"),
            format!("my-{AWS_KEY}"),
            format!("{AWS_KEY}_x"),
            "AKIAiosfodnn7example".to_owned(),
            "AKIAIOSFODNN7EXAMPL".to_owned(),
            format!("x{}", ghp()),
        ] {
            assert!(codes(&text).is_empty(), "{text}");
        }
        for text in [
            format!("({AWS_KEY})"),
            format!("\"{AWS_KEY}\","),
            format!("key={AWS_KEY}."),
            format!("é{AWS_KEY}é"),
            format!("🔑{AWS_KEY}🔑"),
        ] {
            assert_eq!(codes(&text), ["aws_access_key_id"], "{text}");
        }
    }

    #[test]
    fn every_kind() {
        let cases = [
            (ghp(), "github_token"),
            (format!("gho_{}", "a".repeat(36)), "github_token"),
            (
                format!("github_pat_{}", "A1_".repeat(27) + "x"),
                "github_token",
            ),
            (
                format!("sk-ant-api03-{}", "a-b_".repeat(10)),
                "anthropic_api_key",
            ),
            (format!("sk-{}", "a".repeat(48)), "openai_api_key"),
            (format!("sk-proj-{}", "Ab0_".repeat(8)), "openai_api_key"),
            ("xoxb-1234567890-abcdef".to_owned(), "slack_token"),
            (format!("sk_live_{}", "0".repeat(24)), "stripe_secret_key"),
            (format!("rk_live_{}", "a".repeat(30)), "stripe_secret_key"),
            (format!("AIza{}", "x".repeat(35)), "google_api_key"),
            (format!("npm_{}", "x".repeat(36)), "npm_token"),
        ];
        for (text, code) in cases {
            assert_eq!(codes(&text), [code], "{text}");
        }
    }

    #[test]
    fn near_misses() {
        for text in [
            format!("ghp_{}", "x".repeat(35)),
            format!("ghp_{}", "x".repeat(37)),
            format!("sk-ant-{}", "a".repeat(31)),
            format!("sk-{}", "a".repeat(39)),
            "sk-1234".to_owned(),
            "xoxb-123456789".to_owned(),
            "xoxb-12345_67890".to_owned(),
            format!("sk_test_{}", "0".repeat(24)),
            format!("sk_live_{}", "0".repeat(23)),
            format!("AIza{}", "x".repeat(34)),
            format!("AIza{}", "x".repeat(36)),
            format!("npm_{}", "x".repeat(35)),
            "Remember: the API key and the password live in 1Password, never here.".to_owned(),
            "Set OPENAI_API_KEY and ANTHROPIC_API_KEY; the AWS_ACCESS_KEY_ID too.".to_owned(),
        ] {
            assert!(codes(&text).is_empty(), "{text}");
        }
    }

    #[test]
    fn anthropic_key_is_not_also_openai() {
        let key = format!("sk-ant-api03-{}", "a".repeat(80));
        let found = find_secrets(&key);
        assert_eq!(found.len(), 1);
        assert_eq!(found[0].code, "anthropic_api_key");
        assert_eq!(found[0].preview, "sk-a… (93 chars)");
    }

    #[test]
    fn private_keys_but_not_public_ones() {
        for label in PRIVATE_KEY_LABELS {
            let text = format!("x\n-----BEGIN {label}-----\nMIIE\n-----END {label}-----\n");
            let found = find_secrets(&text);
            assert_eq!(found.len(), 1, "{label}");
            assert_eq!(found[0].code, "private_key");
            assert_eq!(found[0].line, 2);
            let n = label.len() + 16;
            assert_eq!(found[0].preview, format!("----… ({n} chars)"));
        }
        for label in [
            "PUBLIC KEY",
            "RSA PUBLIC KEY",
            "CERTIFICATE",
            "PGP PUBLIC KEY BLOCK",
        ] {
            let text = format!("-----BEGIN {label}-----\nMIIB\n-----END {label}-----\n");
            assert!(codes(&text).is_empty(), "{label}");
        }
        assert!(codes("-----BEGIN PRIVATE KEY").is_empty());
        assert!(codes("-----BEGIN PRIVATE KEY----").is_empty());
        // inside a JSON string, as in a service-account file
        let json = r#"{"private_key": "-----BEGIN PRIVATE KEY-----\nMIIE"}"#;
        assert_eq!(codes(json), ["private_key"]);
    }

    #[test]
    fn order_and_lines() {
        let text = format!(
            "-----BEGIN RSA PRIVATE KEY-----\n\nuse {} and {AWS_KEY}\n\n\nnpm_{}",
            ghp(),
            "0".repeat(36)
        );
        let found = find_secrets(&text);
        let got: Vec<(&str, u32)> = found.iter().map(|f| (f.code, f.line)).collect();
        assert_eq!(
            got,
            [
                ("private_key", 1),
                ("github_token", 3),
                ("aws_access_key_id", 3),
                ("npm_token", 6)
            ]
        );
    }

    fn jwt() -> String {
        // {"alg":"HS256","typ":"JWT"}.{"sub":"1234567890"}.signature
        "eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0.SflKxwRJSMeKKF2QT4fwpMeJf36POk6yJV_adQssw5c".to_owned()
    }

    #[test]
    fn jwts_and_passwords_in_urls() {
        assert_eq!(codes(&format!("Authorization: Bearer {}", jwt())), ["jwt"]);
        assert_eq!(codes(&format!("\"{}\"", jwt())), ["jwt"]);
        let found = find_secrets("db: postgres://app:s3cr3t-Pw@db.internal:5432/app");
        assert_eq!(found.len(), 1);
        assert_eq!(found[0].code, "url_password");
        assert_eq!(found[0].preview, "post… (25 chars)");
        assert_eq!(
            codes("https://deploy:hunter2@example.com/x"),
            ["url_password"]
        );
        for text in [
            // placeholders, and URLs without a password
            "postgres://user:password@localhost/db",
            "postgres://user:${DB_PASSWORD}@localhost/db",
            "redis://:<password>@cache:6379",
            "https://user@example.com/",
            "https://example.com/a:b@c",
            "mailto:someone@example.com",
            "amqp://guest:****@rabbit/",
            // hashes, ids and dotted things that are not tokens
            "sha256: 9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08",
            "id 123e4567-e89b-12d3-a456-426614174000",
            "eyJ is how a base64 JSON object starts; eyJhbGciOiJIUzI1NiJ9 alone is only a header",
            "version eyJabcdefghij.eyJabcdefghij.short",
            "a.b.c eyJ.eyJ.eyJ",
        ] {
            assert!(codes(text).is_empty(), "{text}");
        }
        // linear on pathological input
        let _ = find_secrets(&"eyJ".repeat(100_000));
        let _ = find_secrets(&"a://".repeat(100_000));
        let _ = find_secrets(&format!("x://{}", "a:".repeat(100_000)));
    }

    #[test]
    fn never_panics_and_stays_linear() {
        let _ = find_secrets("");
        let _ = find_secrets("é");
        let _ = find_secrets("-----BEGIN ");
        let _ = find_secrets("-----BEGIN é-----");
        let _ = find_secrets("sk-ant-éééé");
        // long words, long runs of markers, and dense multi-byte text
        let big = "sk-".repeat(300_000) + &"-----BEGIN ".repeat(30_000) + &"é".repeat(100_000);
        assert!(find_secrets(&big).len() <= 1);
        let many = format!("{AWS_KEY} ").repeat(40_000);
        let found = find_secrets(&many);
        assert_eq!(found.len(), 40_000);
        assert!(found.iter().all(|f| f.line == 1));
    }
}
