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
const MIN_SECRET_CHARS: usize = 4;

/// A piece of a credential this long, anywhere in a message, is hidden too (a proxy that shows
/// a key's first characters, a body cut inside one). Shorter pieces are a key's public prefix
/// (`sk-ant-`) or chance.
const MIN_PIECE_CHARS: usize = 8;

/// Whether a request header carries a credential: `authorization`, `x-api-key`, `cookie`,
/// and any header whose name says key, token, secret, auth or password.
fn is_credential_header(name: &str) -> bool {
    let name = name.to_ascii_lowercase();
    name == "cookie"
        || ["key", "token", "secret", "auth", "password"]
            .iter()
            .any(|word| name.contains(word))
}

/// The credentials of a request to `url` with `headers`, each in the forms an echo may take
/// (as sent, percent-encoded, JSON-escaped), longest first: every credential header's value and
/// its token after an auth scheme (`Bearer k` gives `k` too), and the user, password and every
/// query value of the URL (a proxy's `?key=`), decoded and as written.
pub fn request_secrets(url: &str, headers: &BTreeMap<String, String>) -> Vec<String> {
    let mut values: Vec<String> = Vec::new();
    for (name, value) in headers {
        if !is_credential_header(name) {
            continue;
        }
        let value = value.trim();
        values.push(value.to_owned());
        if let Some((_scheme, token)) = value.split_once(' ') {
            values.push(token.trim().to_owned());
        }
    }
    values.extend(url_secrets(url));
    let mut forms: Vec<String> = Vec::new();
    for value in values {
        if value.chars().count() < MIN_SECRET_CHARS {
            continue;
        }
        let encoded = percent_encode(&value);
        let escaped = json_escape(&value);
        forms.push(escaped.replace('/', "\\/"));
        forms.push(encoded.to_ascii_lowercase());
        forms.push(encoded);
        forms.push(escaped);
        forms.push(value);
    }
    forms.sort_by(|a, b| b.len().cmp(&a.len()).then_with(|| a.cmp(b)));
    forms.dedup();
    forms
}

/// The user, password and query values of a URL, each as written and percent-decoded.
fn url_secrets(url: &str) -> Vec<String> {
    let mut out = Vec::new();
    let rest = url.split_once("://").map_or(url, |(_, rest)| rest);
    let rest = rest.split_once('#').map_or(rest, |(before, _)| before);
    let authority_end = rest.find(['/', '?']).unwrap_or(rest.len());
    let authority = rest.get(..authority_end).unwrap_or("");
    if let Some((userinfo, _host)) = authority.rsplit_once('@') {
        match userinfo.split_once(':') {
            Some((user, password)) => out.extend([user, password]),
            None => out.push(userinfo),
        }
    }
    if let Some((_, query)) = rest.split_once('?') {
        for pair in query.split('&') {
            out.push(pair.split_once('=').map_or(pair, |(_, value)| value));
        }
    }
    out.into_iter()
        .flat_map(|v| [v.to_owned(), percent_decode(v)])
        .collect()
}

/// `encodeURIComponent`: every byte but letters, digits and `-_.!~*'()` as `%XX`.
fn percent_encode(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for b in text.bytes() {
        if b.is_ascii_alphanumeric() || b"-_.!~*'()".contains(&b) {
            out.push(char::from(b));
        } else {
            out.push_str(&format!("%{b:02X}"));
        }
    }
    out
}

/// `%XX` sequences decoded (`+` as a space), bad ones kept as written.
fn percent_decode(text: &str) -> String {
    let bytes = text.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while let Some(&b) = bytes.get(i) {
        let hex = bytes
            .get(i + 1..i + 3)
            .and_then(|h| std::str::from_utf8(h).ok())
            .and_then(|h| u8::from_str_radix(h, 16).ok());
        match (b, hex) {
            (b'%', Some(decoded)) => {
                out.push(decoded);
                i += 3;
            }
            (b'+', _) => {
                out.push(b' ');
                i += 1;
            }
            _ => {
                out.push(b);
                i += 1;
            }
        }
    }
    String::from_utf8_lossy(&out).into_owned()
}

/// The text as it stands inside a JSON string.
fn json_escape(text: &str) -> String {
    let quoted = serde_json::to_string(text).unwrap_or_default();
    quoted
        .strip_prefix('"')
        .and_then(|q| q.strip_suffix('"'))
        .unwrap_or(&quoted)
        .to_owned()
}

/// `text` with every form of every secret replaced by [`REDACTED`] (linear in the text for each
/// form: for a whole response body before it is read).
pub fn scrub(text: &str, secrets: &[String]) -> String {
    let mut out = text.to_owned();
    for secret in secrets {
        if secret.chars().count() >= MIN_SECRET_CHARS && out.contains(secret.as_str()) {
            out = out.replace(secret.as_str(), REDACTED);
        }
    }
    out
}

/// [`scrub`], then every run of [`MIN_PIECE_CHARS`] or more characters that is also a piece of a
/// secret hidden too. For a message (its cost is its length times the secrets' length).
pub fn scrub_message(text: &str, secrets: &[String]) -> String {
    let whole = scrub(text, secrets);
    let chars: Vec<char> = whole.chars().collect();
    let mut hidden = vec![false; chars.len()];
    for secret in secrets {
        let secret: Vec<char> = secret.chars().collect();
        if secret.len() < MIN_PIECE_CHARS {
            continue;
        }
        // run[j]: how many characters up to here match the secret's ending at its j-th
        let mut run = vec![0usize; secret.len() + 1];
        for (i, c) in chars.iter().enumerate() {
            let mut longest = 0;
            for j in (1..=secret.len()).rev() {
                let matched = if secret.get(j - 1) == Some(c) {
                    run.get(j - 1).copied().unwrap_or(0) + 1
                } else {
                    0
                };
                if let Some(slot) = run.get_mut(j) {
                    *slot = matched;
                }
                longest = longest.max(matched);
            }
            if longest >= MIN_PIECE_CHARS {
                for h in hidden.iter_mut().take(i + 1).skip(i + 1 - longest) {
                    *h = true;
                }
            }
        }
    }
    if !hidden.contains(&true) {
        return whole;
    }
    let mut out = String::with_capacity(whole.len());
    let mut in_piece = false;
    for (c, h) in chars.iter().zip(&hidden) {
        if *h && !in_piece {
            out.push_str(REDACTED);
        } else if !*h {
            out.push(*c);
        }
        in_piece = *h;
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
            "sk-a%2fb%22c",
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
        assert!(secrets
            .windows(2)
            .all(|w| w.first().map(String::len) >= w.get(1).map(String::len)));
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
        let none: Vec<String> = Vec::new();
        assert_eq!(scrub_message("anything", &none), "anything");
        // non-ASCII around a piece
        assert_eq!(
            scrub_message(&format!("é{piece}é"), &secrets),
            "é[redacted]é"
        );
    }
}
