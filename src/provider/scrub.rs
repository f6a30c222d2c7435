//! The credentials a side query carried, kept out of every message about its answer. A
//! provider, or a proxy in front of it, may echo the request in an error body (`invalid
//! x-api-key: sk-…`, a dump of the headers, the URL with its `?key=`); that body becomes the
//! recall's `error`, which goes to logs, the CLI's output and an MCP client. So the request's
//! builder names its credentials ([`request_secrets`]), in every form an echo may take, and
//! the decoder hides each of them, and any long enough piece of one, in what it returns.

use std::collections::BTreeMap;

/// What a hidden credential becomes.
pub const REDACTED: &str = "[redacted]";

/// Shorter values are not taken for credentials (as the CLI's own redaction): `?v=1` is not a
/// key, and hiding every `1` would only garble the message.
const MIN_SECRET_BYTES: usize = 4;

/// A piece of a credential this long (bytes: a key is ASCII), anywhere in a message, is hidden
/// too (a proxy that shows a key's first characters, a body cut inside one). Shorter pieces are
/// a key's public prefix (`sk-ant-`) or chance.
const MIN_PIECE_BYTES: usize = 8;

/// Whether a request header carries a credential: `authorization`, `x-api-key`, `cookie`,
/// and any header whose name says key, token, secret, auth or password.
fn is_credential_header(name: &str) -> bool {
    ["key", "token", "secret", "auth", "password", "cookie"]
        .iter()
        .any(|word| {
            name.as_bytes()
                .windows(word.len())
                .any(|w| w.eq_ignore_ascii_case(word.as_bytes()))
        })
}

/// The credentials of a request to `url` with `headers`, each in the forms an echo may take
/// (as sent, percent-encoded, JSON-escaped), each once: every credential header's value and
/// its token after an auth scheme (`Bearer k` gives `k` too), and the user, password and every
/// query value of the URL (a proxy's `?key=`), decoded and as written.
#[inline(never)]
pub fn request_secrets(url: &str, headers: &BTreeMap<String, String>) -> Vec<String> {
    let mut values: Vec<&str> = Vec::new();
    for (name, value) in headers {
        if is_credential_header(name) {
            let value = value.trim();
            values.push(value);
            // `Bearer k`, `Basic k`: the token alone too
            if let Some((_, token)) = value.split_once(' ') {
                values.push(token.trim());
            }
        }
    }
    url_secrets(url, &mut values);
    let mut forms: Vec<String> = Vec::new();
    for value in values {
        // as sent, and percent-decoded (a URL's values are written encoded)
        add_forms(&mut forms, value.to_owned());
        add_forms(&mut forms, percent_decode(value));
    }
    forms
}

/// A value's forms: as it is, JSON-escaped (with `/` as `\/` too), percent-encoded; each once.
#[inline(never)]
fn add_forms(forms: &mut Vec<String>, value: String) {
    if value.len() < MIN_SECRET_BYTES {
        return;
    }
    let escaped = json_escape(&value);
    let slashed = escaped.replace('/', "\\/");
    let encoded = percent_encode(&value);
    for form in [slashed, escaped, encoded, value] {
        if !forms.contains(&form) {
            forms.push(form);
        }
    }
}

/// The user, password and query values of a URL, as written.
fn url_secrets<'a>(url: &'a str, out: &mut Vec<&'a str>) {
    let rest = url.split_once("://").map_or(url, |(_, rest)| rest);
    let rest = rest.split_once('#').map_or(rest, |(before, _)| before);
    let (before_query, query) = rest.split_once('?').unwrap_or((rest, ""));
    let authority = before_query
        .split_once('/')
        .map_or(before_query, |(a, _)| a);
    if let Some((userinfo, _host)) = authority.rsplit_once('@') {
        out.extend(userinfo.split(':'));
    }
    for pair in query.split('&') {
        out.push(pair.split_once('=').map_or(pair, |(_, value)| value));
    }
}

/// `encodeURIComponent`: every byte but letters, digits and `-_.!~*'()` as `%XX`.
#[inline(never)]
fn percent_encode(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for b in text.bytes() {
        if b.is_ascii_alphanumeric() || b"-_.!~*'()".contains(&b) {
            out.push(char::from(b));
        } else {
            out.push('%');
            for digit in [b >> 4, b & 15] {
                out.push(
                    char::from_digit(u32::from(digit), 16).map_or('0', |c| c.to_ascii_uppercase()),
                );
            }
        }
    }
    out
}

/// `%XX` sequences decoded (`+` as a space), bad ones kept as written.
#[inline(never)]
fn percent_decode(text: &str) -> String {
    let mut out = Vec::with_capacity(text.len());
    let mut bytes = text.bytes();
    while let Some(b) = bytes.next() {
        let hex = |d: Option<u8>| d.and_then(|d| char::from(d).to_digit(16));
        match b {
            b'%' => {
                let (hi, lo) = (bytes.clone().next(), bytes.clone().nth(1));
                match (hex(hi), hex(lo)) {
                    (Some(h), Some(l)) => {
                        out.push(u8::try_from(h * 16 + l).unwrap_or(b'?'));
                        bytes.nth(1);
                    }
                    _ => out.push(b),
                }
            }
            b'+' => out.push(b' '),
            _ => out.push(b),
        }
    }
    String::from_utf8_lossy(&out).into_owned()
}

/// The text as it stands inside a JSON string (a key holds no control characters).
fn json_escape(text: &str) -> String {
    text.replace('\\', "\\\\").replace('"', "\\\"")
}

/// `text` with every form of every secret replaced by [`REDACTED`] (overlapping ones as one),
/// in time linear in the text for each form: for a whole response body before it is read.
pub fn scrub(text: &str, secrets: &[String]) -> String {
    hide(text, secrets, false)
}

/// A message is cut to this many characters before the pieces of secrets are looked for in it
/// (that costs its length times the secrets' length).
const MAX_MESSAGE_CHARS: usize = 2_000;

/// [`scrub`], then cut to [`MAX_MESSAGE_CHARS`], then every run of [`MIN_PIECE_BYTES`] or more
/// that is also a piece of a secret hidden too.
pub fn scrub_message(text: &str, secrets: &[String]) -> String {
    // the whole forms first, so a piece next to one is not taken with its neighbour, and a cut
    // never leaves more of a key than a piece
    let mut whole = hide(text, secrets, false);
    if let Some((at, _)) = whole.char_indices().nth(MAX_MESSAGE_CHARS) {
        whole.truncate(at);
        whole.push('…');
    }
    hide(&whole, secrets, true)
}

#[inline(never)]
fn hide(text: &str, secrets: &[String], pieces: bool) -> String {
    let bytes = text.as_bytes();
    let mut hidden = vec![false; bytes.len()];
    let mut mark = |from: usize, len: usize| {
        for h in hidden.iter_mut().skip(from).take(len) {
            *h = true;
        }
    };
    for secret in secrets.iter().filter(|s| s.len() >= MIN_SECRET_BYTES) {
        for (at, found) in text.match_indices(secret.as_str()) {
            mark(at, found.len());
        }
        let secret = secret.as_bytes();
        if !pieces || secret.len() < MIN_PIECE_BYTES {
            continue;
        }
        // run[j]: how many bytes up to here match the secret's ending at its j-th
        let mut run = vec![0usize; secret.len() + 1];
        for (i, b) in bytes.iter().enumerate() {
            let mut longest = 0;
            for j in (1..=secret.len()).rev() {
                let matched = if secret.get(j - 1) == Some(b) {
                    run.get(j - 1).copied().unwrap_or(0) + 1
                } else {
                    0
                };
                if let Some(slot) = run.get_mut(j) {
                    *slot = matched;
                }
                longest = longest.max(matched);
            }
            if longest >= MIN_PIECE_BYTES {
                mark(i + 1 - longest, longest);
            }
        }
    }
    // a character any byte of which is hidden is hidden; each hidden run becomes one REDACTED
    let mut out = String::with_capacity(text.len());
    let mut in_run = false;
    for (at, c) in text.char_indices() {
        let hide = hidden
            .get(at..at + c.len_utf8())
            .is_some_and(|h| h.contains(&true));
        if hide && !in_run {
            out.push_str(REDACTED);
        } else if !hide {
            out.push(c);
        }
        in_run = hide;
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn headers(pairs: &[(&str, &str)]) -> BTreeMap<String, String> {
        pairs
            .iter()
            .map(|(k, v)| ((*k).to_owned(), (*v).to_owned()))
            .collect()
    }

    #[test]
    fn a_requests_credentials_in_every_form() {
        let secrets = request_secrets(
            "https://user:pa%2Fss@proxy.example/v1?key=k3y%2Bvalue&v=1",
            &headers(&[
                ("authorization", "Bearer sk-a/b\"c"),
                ("content-type", "application/json"),
                ("anthropic-version", "2023-06-01"),
                ("x-api-key", "sk-ant-0123"),
            ]),
        );
        for form in [
            "Bearer sk-a/b\"c",
            "sk-a/b\"c",
            "sk-a/b\\\"c",
            "sk-a\\/b\\\"c",
            "sk-a%2Fb%22c",
            "sk-ant-0123",
            "user",
            "pa%2Fss",
            "pa/ss",
            "k3y%2Bvalue",
            "k3y+value",
        ] {
            assert!(secrets.contains(&form.to_owned()), "{form} in {secrets:?}");
        }
        for not in ["application/json", "2023-06-01", "1", "proxy.example"] {
            assert!(!secrets.contains(&not.to_owned()), "{not} in {secrets:?}");
        }
        let mut unique = secrets.clone();
        unique.sort();
        unique.dedup();
        assert_eq!(unique.len(), secrets.len(), "each form once: {secrets:?}");
        // forms that overlap (a key and its token after the scheme) are hidden as one
        assert_eq!(
            scrub("auth: Bearer sk-a/b\"c.", &secrets),
            "auth: [redacted]."
        );
        assert_eq!(percent_decode("a%2Fb%zz%4+%"), "a/b%zz%4 %");
    }

    #[test]
    fn every_form_and_every_long_piece_is_hidden() {
        let key = "sk-ant-api03-Zq8xW2rT9vLmN4pK";
        let secrets = request_secrets(
            "http://127.0.0.1/v1/messages",
            &headers(&[("x-api-key", key)]),
        );
        assert_eq!(
            scrub_message(&format!("invalid x-api-key: {key}"), &secrets),
            "invalid x-api-key: [redacted]"
        );
        // a piece: the first 20 characters, or the key cut by a body's cut
        let piece = key.get(..20).unwrap_or_default();
        assert_eq!(
            scrub_message(&format!("key {piece}… is wrong"), &secrets),
            "key [redacted]… is wrong"
        );
        let tail = key.get(key.len() - 9..).unwrap_or_default();
        assert_eq!(scrub_message(&format!("…{tail}"), &secrets), "…[redacted]");
        // short pieces and other text stay
        assert_eq!(
            scrub_message("sk-ant- keys start so; rT9v", &secrets),
            "sk-ant- keys start so; rT9v"
        );
        // a long message is cut before its pieces are looked for, never leaving a key
        let long = scrub_message(&format!("{}{key}", "x".repeat(3_000)), &secrets);
        assert_eq!(long, format!("{}…", "x".repeat(2_000)));
        let long = scrub_message(&format!("{}{key}", "x".repeat(1_990)), &secrets);
        assert_eq!(long, format!("{}[redacted]", "x".repeat(1_990)));
        let none: Vec<String> = Vec::new();
        assert_eq!(scrub_message("anything", &none), "anything");
        // non-ASCII around a piece
        assert_eq!(
            scrub_message(&format!("é{piece}é"), &secrets),
            "é[redacted]é"
        );
    }
}
