//! Credential detection for every write and for doctor (rules §4.3, issues 4 and 21).
//!
//! Two kinds of evidence, and nothing else: a note that talks about "the API key" or "the
//! password" is never flagged.
//!
//! - **A vendor's shape**: a prefix followed by the vendor's alphabet and length (`ghp_…`,
//!   `xoxb-…`, `AKIA…`), a PEM `BEGIN … PRIVATE KEY` marker, a JSON Web Token, a Telegram bot
//!   token (`<bot id>:<35 characters>`), three dotted parts (SendGrid, Discord, Doppler), a
//!   Slack webhook, a password in a URL. A token match is a whole *word*: a maximal run of
//!   `[A-Za-z0-9_-]`, so it must start at the beginning of the text or after a character
//!   outside that class (so `XAKIA…`, `my_AKIA…` and `x-ghp_…` are not matches) and end at the
//!   end of the text or before such a character (so an over-long `AKIA…` is not one either).
//!   Multi-byte characters are outside the class, so an accented letter next to a key is a
//!   boundary.
//! - **A label and a value that fits it**: after `key`, `token`, `secret`, `api_key`,
//!   `client_secret`, `auth`… (`label: value`, `label=value`, `"label": "value"`,
//!   `LABEL=value`), a value that *looks random* (`looks_random`: at least 80 bits if random,
//!   letters and digits, Shannon entropy, class changes, not a run, not a word sequence); after
//!   `password`, `passwd`, `pwd`, a value mixing letters with digits or symbols. Placeholders
//!   (`<your-key>`, `${TOKEN}`, `YOUR_API_KEY`, `****`, `sk-...`, `changeme`), paths and URLs
//!   are not values. A hash is not reported because its label (`commit`, `sha256`, `checksum`)
//!   is not a secret's.
//!
//! The text is cut into words in one pass, each word is classified once, and each `:` or `=` is
//! looked at once, with its label read back at most `MAX_LABEL` bytes and its value read
//! forward only past what earlier values covered: the scan is linear in the input.

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
    /// A redacted preview: the first 4 characters, `…`, and the length. A labelled value's
    /// match starts at its label, so the preview shows the label, never the value.
    pub preview: String,
}

/// What a match is: its stable code and its name for people.
type Rule = (&'static str, &'static str);

const AWS: Rule = ("aws_access_key_id", "AWS access key ID");
const GITHUB: Rule = ("github_token", "GitHub token");
const GITLAB: Rule = ("gitlab_token", "GitLab token");
const ANTHROPIC: Rule = ("anthropic_api_key", "Anthropic API key");
const OPENAI: Rule = ("openai_api_key", "OpenAI API key");
const SLACK: Rule = ("slack_token", "Slack token");
const SLACK_WEBHOOK: Rule = ("slack_webhook", "Slack webhook URL");
const STRIPE: Rule = ("stripe_secret_key", "Stripe secret key");
const STRIPE_WEBHOOK: Rule = ("stripe_webhook_secret", "Stripe webhook secret");
const GOOGLE: Rule = ("google_api_key", "Google API key");
const GOOGLE_OAUTH: Rule = ("google_oauth_client_secret", "Google OAuth client secret");
const NPM: Rule = ("npm_token", "npm token");
const PYPI: Rule = ("pypi_token", "PyPI token");
const HUGGING_FACE: Rule = ("huggingface_token", "Hugging Face token");
const DIGITALOCEAN: Rule = ("digitalocean_token", "DigitalOcean token");
const SHOPIFY: Rule = ("shopify_token", "Shopify access token");
const NOTION: Rule = ("notion_token", "Notion integration token");
const LINEAR: Rule = ("linear_api_key", "Linear API key");
const PIT: Rule = ("private_integration_token", "private integration token");
const TELEGRAM: Rule = ("telegram_bot_token", "Telegram bot token");
const SENDGRID: Rule = ("sendgrid_api_key", "SendGrid API key");
const DISCORD: Rule = ("discord_bot_token", "Discord bot token");
const DOPPLER: Rule = ("doppler_token", "Doppler token");
const PRIVATE_KEY: Rule = ("private_key", "private key");
const JWT: Rule = ("jwt", "JSON Web Token");
const URL_PASSWORD: Rule = ("url_password", "password in a URL");
const LABELLED: Rule = ("labelled_secret", "labelled key, token or secret");
const PASSWORD: Rule = ("password", "password");
const AWS_SECRET: Rule = ("aws_secret_access_key", "AWS secret access key");
const TWILIO: Rule = ("twilio_api_key", "Twilio API key");

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

/// A match: where it starts, its length in bytes, what it is, and for a match that stands on
/// its context (a label's value, a URL's password) the span that no vendor token may overlap.
struct Hit {
    pos: usize,
    len: usize,
    rule: Rule,
    context: Option<(usize, usize)>,
}

fn hit(pos: usize, len: usize, rule: Rule) -> Hit {
    Hit {
        pos,
        len,
        rule,
        context: None,
    }
}

/// Every credential in `text`, in order of appearance.
pub fn find_secrets(text: &str) -> Vec<SecretFinding> {
    let bytes = text.as_bytes();
    let mut hits: Vec<Hit> = Vec::new();

    // the two words before the current one, for tokens made of several words
    let mut before: [(usize, usize); 2] = [(usize::MAX, usize::MAX); 2];
    let mut word_start: Option<usize> = None;
    for i in 0..=bytes.len() {
        if bytes.get(i).is_some_and(|&b| is_word_byte(b)) {
            word_start.get_or_insert(i);
        } else if let Some(start) = word_start.take() {
            on_word(bytes, before, (start, i), &mut hits);
            let [_, last] = before;
            before = [last, (start, i)];
        }
    }

    for (pos, _) in text.match_indices(PEM_BEGIN) {
        if let Some(len) = bytes.get(pos..).and_then(private_key_marker) {
            hits.push(hit(pos, len, PRIVATE_KEY));
        }
    }
    for (pos, _) in text.match_indices(JWT_START) {
        let boundary = pos == 0
            || bytes
                .get(pos - 1)
                .is_some_and(|&b| !is_word_byte(b) && b != b'.');
        if let Some(len) = bytes.get(pos..).filter(|_| boundary).and_then(jwt_len) {
            hits.push(hit(pos, len, JWT));
        }
    }
    for (pos, _) in text.match_indices(SLACK_HOOKS) {
        if let Some((start, len)) = slack_webhook(bytes, pos) {
            hits.push(hit(start, len, SLACK_WEBHOOK));
        }
    }
    for (pos, _) in text.match_indices("://") {
        if let Some((start, len)) = url_password(text, pos) {
            hits.push(Hit {
                context: Some((start, start + len)),
                ..hit(start, len, URL_PASSWORD)
            });
        }
    }
    labelled_values(text, &mut hits);

    crate::sort::sort_by_key(&mut hits, |h| h.pos);
    // a label's value or a URL's password that is itself a vendor token is reported as that
    // token, once; of overlapping context matches the first stays
    let tokens: Vec<(usize, usize)> = hits
        .iter()
        .filter(|h| h.context.is_none())
        .map(|h| (h.pos, h.pos + h.len))
        .collect();
    let reach: Vec<usize> = tokens
        .iter()
        .scan(0, |end, &(_, e)| {
            *end = e.max(*end);
            Some(*end)
        })
        .collect();
    let mut kept_to = 0;
    hits.retain(|h| {
        let Some((a, b)) = h.context else {
            return true;
        };
        let k = tokens.partition_point(|&(s, _)| s < b);
        let on_token = k > 0 && reach.get(k - 1).is_some_and(|&e| e > a);
        let keep = !on_token && h.pos >= kept_to;
        if keep {
            kept_to = h.pos + h.len;
        }
        keep
    });

    let mut line: usize = 1;
    let mut counted_to = 0;
    hits.into_iter()
        .map(|Hit { pos, len, rule, .. }| {
            line += bytes
                .get(counted_to..pos)
                .map_or(0, |s| s.iter().filter(|&&b| b == b'\n').count());
            counted_to = pos;
            let head = text.get(pos..pos + 4).unwrap_or("");
            let chars = text.get(pos..pos + len).map_or(len, |s| s.chars().count());
            SecretFinding {
                code: rule.0,
                kind: rule.1,
                line: u32::try_from(line).unwrap_or(u32::MAX),
                preview: format!("{head}… ({chars} chars)"),
            }
        })
        .collect()
}

/// ASCII letters, digits, `_` and `-`: the characters a token is made of, and the ones that
/// must not touch it on either side.
fn is_word_byte(b: u8) -> bool {
    b.is_ascii_alphanumeric() || b == b'_' || b == b'-'
}

/// Classifies the word `w` (byte range), alone and with the two words before it.
fn on_word(bytes: &[u8], [w0, w1]: [(usize, usize); 2], w: (usize, usize), hits: &mut Vec<Hit>) {
    let word = |(a, b): (usize, usize)| bytes.get(a..b).unwrap_or_default();
    if let Some(rule) = classify(word(w)) {
        hits.push(hit(w.0, w.1 - w.0, rule));
    }
    // `w1` + one byte + `w`
    let joined = |x: (usize, usize), y: (usize, usize), sep: u8| {
        x.1.checked_add(1) == Some(y.0) && bytes.get(x.1) == Some(&sep)
    };
    // Telegram: <bot id, 8 to 10 digits>:<35 characters>, in a URL after `bot`
    let id = word(w1);
    let id = id.strip_prefix(b"bot").unwrap_or(id);
    if joined(w1, w, b':')
        && (8..=10).contains(&id.len())
        && id.iter().all(u8::is_ascii_digit)
        && word(w).len() == 35
        && mixed(word(w))
    {
        hits.push(hit(w1.0, w.1 - w1.0, TELEGRAM));
    }
    // three dotted parts, not inside a longer dotted chain (a sentence's full stop may follow)
    let alone = w0
        .0
        .checked_sub(1)
        .is_none_or(|p| bytes.get(p) != Some(&b'.'))
        && !(bytes.get(w.1) == Some(&b'.') && bytes.get(w.1 + 1).is_some_and(|&b| is_word_byte(b)));
    if joined(w0, w1, b'.') && joined(w1, w, b'.') && alone {
        if let Some(rule) = dotted(word(w0), word(w1), word(w)) {
            hits.push(hit(w0.0, w.1 - w0.0, rule));
        }
    }
}

/// At least two of lower case, upper case and digits.
fn mixed(s: &[u8]) -> bool {
    let has = |f: fn(&u8) -> bool| usize::from(s.iter().any(f));
    has(u8::is_ascii_lowercase) + has(u8::is_ascii_uppercase) + has(u8::is_ascii_digit) >= 2
}

fn alnum(s: &[u8]) -> bool {
    s.iter().all(u8::is_ascii_alphanumeric)
}

/// `a.b.c` where each part is a whole word: SendGrid, Doppler and Discord bot tokens.
fn dotted(a: &[u8], b: &[u8], c: &[u8]) -> Option<Rule> {
    if a == b"SG" {
        return (b.len() == 22 && c.len() == 43).then_some(SENDGRID);
    }
    if a == b"dp" {
        let scope = [&b"pt"[..], b"st", b"ct", b"sa", b"scim", b"audit"].contains(&b);
        return (scope && c.len() >= 40 && alnum(c)).then_some(DOPPLER);
    }
    // base64 of the bot's id, a timestamp, an HMAC
    let discord = matches!(a.first(), Some(b'M' | b'N' | b'O'))
        && (24..=26).contains(&a.len())
        && alnum(a)
        && a.iter().any(u8::is_ascii_digit)
        && b.len() == 6
        && mixed(b)
        && (27..=38).contains(&c.len())
        && mixed(c);
    discord.then_some(DISCORD)
}

/// What follows a vendor's prefix.
#[derive(Clone, Copy)]
enum Body {
    /// Any of `[A-Za-z0-9_-]`, what a word is made of.
    Word,
    NoUnderscore,
    NoDash,
    Alnum,
    UpperDigit,
    /// Hex digits of either case.
    Hex,
    LowerHex,
    /// Letters and digits, with both cases.
    BothCases,
    /// 8-4-4-4-12 hex digits.
    Uuid,
}

/// No longest length.
const ANY: u8 = u8::MAX;

/// A vendor's word: its prefix, the shortest and longest rest (`ANY`), what the rest is made
/// of. The first prefix that fits decides (`sk-ant-` before `sk-`).
#[rustfmt::skip]
const WORDS: &[(&str, u8, u8, Body, Rule)] = &[
    // AWS access key ID: AKIA/ASIA/ABIA/ACCA + 16 of [A-Z0-9]
    ("AKIA", 16, 16, Body::UpperDigit, AWS), ("ASIA", 16, 16, Body::UpperDigit, AWS),
    ("ABIA", 16, 16, Body::UpperDigit, AWS), ("ACCA", 16, 16, Body::UpperDigit, AWS),
    // GitHub: classic tokens (36 alnum) and fine-grained PATs (82 of [A-Za-z0-9_])
    ("ghp_", 36, 36, Body::Alnum, GITHUB), ("gho_", 36, 36, Body::Alnum, GITHUB),
    ("ghu_", 36, 36, Body::Alnum, GITHUB), ("ghs_", 36, 36, Body::Alnum, GITHUB),
    ("ghr_", 36, 36, Body::Alnum, GITHUB), ("github_pat_", 82, 82, Body::NoDash, GITHUB),
    // GitLab: personal, deploy, runner and pipeline-trigger tokens
    ("glpat-", 20, ANY, Body::Word, GITLAB), ("gldt-", 20, ANY, Body::Word, GITLAB),
    ("glrt-", 20, ANY, Body::Word, GITLAB), ("glptt-", 20, ANY, Body::Word, GITLAB),
    // Anthropic, then OpenAI's project, service-account and admin keys, then sk- + 40
    ("sk-ant-", 32, ANY, Body::Word, ANTHROPIC),
    ("sk-proj-", 32, ANY, Body::Word, OPENAI), ("sk-svcacct-", 32, ANY, Body::Word, OPENAI),
    ("sk-admin-", 32, ANY, Body::Word, OPENAI), ("sk-", 40, ANY, Body::Word, OPENAI),
    // Slack: xox[bparsoe]- + 10 of [A-Za-z0-9-]; app-level tokens
    ("xoxb-", 10, ANY, Body::NoUnderscore, SLACK), ("xoxp-", 10, ANY, Body::NoUnderscore, SLACK),
    ("xoxa-", 10, ANY, Body::NoUnderscore, SLACK), ("xoxr-", 10, ANY, Body::NoUnderscore, SLACK),
    ("xoxs-", 10, ANY, Body::NoUnderscore, SLACK), ("xoxo-", 10, ANY, Body::NoUnderscore, SLACK),
    ("xoxe-", 10, ANY, Body::NoUnderscore, SLACK), ("xapp-", 20, ANY, Body::NoUnderscore, SLACK),
    // Stripe live secret and restricted keys, webhook secrets
    ("sk_live_", 24, ANY, Body::Alnum, STRIPE), ("rk_live_", 24, ANY, Body::Alnum, STRIPE),
    ("whsec_", 32, ANY, Body::Alnum, STRIPE_WEBHOOK),
    // Google API key, OAuth client secret
    ("AIza", 35, 35, Body::Word, GOOGLE), ("GOCSPX-", 28, 28, Body::Word, GOOGLE_OAUTH),
    ("npm_", 36, 36, Body::Alnum, NPM),
    // PyPI: a macaroon, whose base64 starts `AgE`
    ("pypi-AgE", 50, ANY, Body::Word, PYPI),
    ("hf_", 34, 34, Body::BothCases, HUGGING_FACE),
    ("dop_v1_", 64, 64, Body::LowerHex, DIGITALOCEAN), ("doo_v1_", 64, 64, Body::LowerHex, DIGITALOCEAN),
    ("dor_v1_", 64, 64, Body::LowerHex, DIGITALOCEAN),
    ("shpat_", 32, 32, Body::Hex, SHOPIFY), ("shpca_", 32, 32, Body::Hex, SHOPIFY),
    ("shppa_", 32, 32, Body::Hex, SHOPIFY), ("shpss_", 32, 32, Body::Hex, SHOPIFY),
    // Notion: ntn_, or the older secret_ + 43
    ("ntn_", 40, ANY, Body::Alnum, NOTION), ("secret_", 43, 43, Body::Alnum, NOTION),
    ("lin_api_", 40, 40, Body::Alnum, LINEAR),
    // a private integration token: pit- + a UUID
    ("pit-", 36, 36, Body::Uuid, PIT),
];

/// The credential a whole word is, if any. `word` is made of [`is_word_byte`] bytes only.
fn classify(word: &[u8]) -> Option<Rule> {
    let &(prefix, min, max, body, rule) =
        WORDS.iter().find(|w| word.starts_with(w.0.as_bytes()))?;
    let rest = word.get(prefix.len()..)?;
    let all = |f: fn(&u8) -> bool| rest.iter().all(f);
    let fits = match body {
        Body::Word => true,
        Body::NoUnderscore => all(|&b| b != b'_'),
        Body::NoDash => all(|&b| b != b'-'),
        Body::Alnum => alnum(rest),
        Body::UpperDigit => all(|b| b.is_ascii_uppercase() || b.is_ascii_digit()),
        Body::Hex => all(u8::is_ascii_hexdigit),
        Body::LowerHex => all(|b| b.is_ascii_digit() || (b'a'..=b'f').contains(b)),
        Body::BothCases => {
            alnum(rest)
                && rest.iter().any(u8::is_ascii_lowercase)
                && rest.iter().any(u8::is_ascii_uppercase)
        }
        Body::Uuid => is_uuid(rest),
    };
    let long_enough =
        rest.len() >= usize::from(min) && (max == ANY || rest.len() <= usize::from(max));
    (fits && long_enough).then_some(rule)
}

/// 8-4-4-4-12 hex digits.
fn is_uuid(s: &[u8]) -> bool {
    s.len() == 36
        && s.iter().enumerate().all(|(i, &b)| {
            if matches!(i, 8 | 13 | 18 | 23) {
                b == b'-'
            } else {
                b.is_ascii_hexdigit()
            }
        })
}

const SLACK_HOOKS: &str = "hooks.slack.com/";

/// `[https://]hooks.slack.com/{services,workflows,triggers}/` + at least 20 of
/// `[A-Za-z0-9_/-]`, at `pos` (the `hooks`): its start and length.
fn slack_webhook(bytes: &[u8], pos: usize) -> Option<(usize, usize)> {
    let before = pos.checked_sub(1).and_then(|p| bytes.get(p));
    if before.is_some_and(|&b| is_word_byte(b) || b == b'.') {
        return None;
    }
    let rest = bytes.get(pos + SLACK_HOOKS.len()..)?;
    let kind = ["services/", "workflows/", "triggers/"]
        .iter()
        .find(|k| rest.starts_with(k.as_bytes()))?;
    let path = rest
        .get(kind.len()..)?
        .iter()
        .take_while(|&&b| is_word_byte(b) || b == b'/')
        .count();
    let start = pos
        .checked_sub(8)
        .filter(|&s| bytes.get(s..pos) == Some(b"https://"))
        .unwrap_or(pos);
    (path >= 20).then_some((start, pos + SLACK_HOOKS.len() + kind.len() + path - start))
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

/// `scheme://user:password@host` with a password that is not a placeholder, at `colon_slash`
/// (the `://`): the start of the scheme and the length up to the `@`.
fn url_password(text: &str, colon_slash: usize) -> Option<(usize, usize)> {
    let bytes = text.as_bytes();
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
        matches!(b, b'@' | b'/' | b'?' | b'#' | b'"' | b'\'' | b'\\') || b.is_ascii_whitespace()
    })?;
    if rest.get(end) != Some(&b'@') {
        return None;
    }
    let userinfo = text.get(after..after + end)?;
    let (_, password) = userinfo.split_once(':')?;
    let host = rest.get(end + 1)?;
    (!placeholder(password) && (host.is_ascii_alphanumeric() || *host == b'['))
        .then_some((scheme_start, after + end + 1 - scheme_start))
}

/// How far before a `:` or `=` its label is read.
const MAX_LABEL: usize = 64;
/// A longer value is data (a blob), not a credential.
const MAX_VALUE: usize = 1024;

/// What a label says its value is.
#[derive(Debug, Clone, Copy, PartialEq)]
enum Label {
    Secret,
    Password,
}

/// The word before a key that makes it not a secret (`public key`, `sort key`, `next page
/// token`).
const NOT_SECRET: &[&str] = &[
    "public",
    "publishable",
    "primary",
    "foreign",
    "sort",
    "partition",
    "cache",
    "idempotency",
    "hash",
    "lookup",
    "routing",
    "row",
    "composite",
    "unique",
    "next",
    "page",
    "pagination",
    "continuation",
    "cursor",
    "sync",
    "ssh",
    "gpg",
    "pgp",
    "host",
    "dedup",
    "map",
    "index",
    "object",
    "registry",
];
/// `<word>key` written as one word that names a secret key (`apikey`, `secretkey`).
const KEY_HEADS: &[&str] = &[
    "api",
    "secret",
    "access",
    "private",
    "auth",
    "client",
    "signing",
    "master",
    "encryption",
    "app",
    "license",
    "service",
];

/// Every `label: value` / `label=value` whose value fits its label, into `hits`.
fn labelled_values(text: &str, hits: &mut Vec<Hit>) {
    let bytes = text.as_bytes();
    let mut read_to = 0;
    for (sep, &b) in bytes.iter().enumerate() {
        if sep < read_to || !matches!(b, b':' | b'=') {
            continue;
        }
        let next = bytes.get(sep + 1..).unwrap_or_default();
        if next.first() == Some(&b) || (b == b':' && next.starts_with(b"//")) {
            continue; // `==`, `::`, `://`
        }
        let Some((start, label, aws)) = label_before(bytes, sep) else {
            continue;
        };
        let (value, end) = value_after(bytes, sep + 1);
        read_to = end;
        let Some((value, v)) = value.and_then(|(a, b)| Some(((a, b), text.get(a..b)?))) else {
            continue;
        };
        if v.is_empty() || v.chars().count() > MAX_VALUE || placeholder(v) {
            continue;
        }
        let rule = match label {
            Label::Secret if v.bytes().all(is_token_byte) && looks_random(v) => {
                if v.len() == 34
                    && v.starts_with("SK")
                    && v.bytes().skip(2).all(|c| c.is_ascii_hexdigit())
                {
                    TWILIO
                } else if aws
                    && v.len() == 40
                    && v.bytes()
                        .all(|c| c.is_ascii_alphanumeric() || c == b'/' || c == b'+')
                {
                    AWS_SECRET
                } else {
                    LABELLED
                }
            }
            Label::Password
                if !v.contains([' ', '\t'])
                    && !reference(v)
                    && (looks_random(v) || password_like(v)) =>
            {
                PASSWORD
            }
            _ => continue,
        };
        hits.push(Hit {
            pos: start,
            len: value.1 - start,
            rule,
            context: Some(value),
        });
    }
}

/// The label that ends at the `:` or `=` at `sep`: where its last word starts (the match's
/// start), what it names, and whether it names AWS's secret access key.
fn label_before(bytes: &[u8], sep: usize) -> Option<(usize, Label, bool)> {
    let back = |mut j: usize, max: usize, f: fn(u8) -> bool| {
        let stop = j.saturating_sub(max);
        while j > stop
            && j.checked_sub(1)
                .and_then(|p| bytes.get(p))
                .is_some_and(|&b| f(b))
        {
            j -= 1;
        }
        j
    };
    let j = back(sep, 2, |b| b == b' ' || b == b'\t');
    let end = back(j, 3, |b| matches!(b, b'"' | b'\'' | b'`' | b'*'));
    let start = back(end, MAX_LABEL, |b| {
        b.is_ascii_alphanumeric() || matches!(b, b'_' | b'.' | b'-' | b' ')
    });
    let label = bytes.get(start..end)?;
    let label =
        label.get(..label.len() - label.iter().rev().take_while(|&&b| b == b' ').count())?;
    let (kind, aws) = label_kind(label)?;
    // the match starts at the label's last word, without leading `-`, `.`, `_`
    let last = label.iter().rposition(|&b| b == b' ').map_or(0, |i| i + 1);
    let lead = label
        .get(last..)?
        .iter()
        .take_while(|&&b| matches!(b, b'-' | b'.' | b'_'))
        .count();
    Some((start + last + lead, kind, aws))
}

/// What a label names. Its words are split at anything but letters and digits and at
/// camelCase (`apiKey`, `APIKey`, `client_secret`); numbers are not words (`API_KEY_2`). The
/// last word names the value, unless the word before it says the key is not a secret
/// (`sort key`); the second answer is whether the label names AWS's secret access key.
fn label_kind(label: &[u8]) -> Option<(Label, bool)> {
    let is = same_word;
    let (mut last, mut before): (&[u8], &[u8]) = (&[], &[]);
    let (mut aws, mut secret, mut access) = (false, false, false);
    let mut start = None;
    for i in 0..=label.len() {
        let at = |k: usize| label.get(k).copied();
        let c = at(i).filter(u8::is_ascii_alphanumeric);
        let prev = i.checked_sub(1).and_then(at);
        let camel = c.is_some_and(|c| c.is_ascii_uppercase())
            && prev.is_some_and(|p| {
                p.is_ascii_lowercase()
                    || p.is_ascii_digit()
                    || (p.is_ascii_uppercase() && at(i + 1).is_some_and(|n| n.is_ascii_lowercase()))
            });
        if c.is_none() || camel {
            if let Some(word) = start.take().and_then(|s| label.get(s..i)) {
                if !word.iter().all(u8::is_ascii_digit) {
                    (before, last) = (last, word);
                    aws |= is(word, "aws");
                    secret |= is(word, "secret");
                    access |= is(word, "access");
                }
            }
        }
        if c.is_some() {
            start.get_or_insert(i);
        }
    }
    let ends = |s: &str| {
        last.len() >= s.len() && is(last.get(last.len() - s.len()..).unwrap_or_default(), s)
    };
    let kind = if ["password", "passwd", "passphrase"].iter().any(|s| ends(s)) || is(last, "pwd") {
        Label::Password
    } else if ["secret", "token", "apikey"].iter().any(|s| ends(s))
        || [
            "key",
            "auth",
            "pat",
            "credential",
            "credentials",
            "authorization",
        ]
        .iter()
        .any(|s| is(last, s))
        || (ends("key")
            && last
                .get(..last.len() - 3)
                .is_some_and(|h| KEY_HEADS.iter().any(|k| is(h, k))))
    {
        Label::Secret
    } else {
        return None;
    };
    let not_secret = NOT_SECRET.iter().any(|n| is(before, n));
    (!not_secret).then_some((kind, aws || (secret && access)))
}

/// `w` is `s`, whatever the case. Not inlined: called with many constants, it would be
/// unrolled for each.
#[inline(never)]
fn same_word(w: &[u8], s: &str) -> bool {
    w.eq_ignore_ascii_case(s.as_bytes())
}

/// The value after a separator at `from`, as a byte range (`None` when it is code: a call or
/// an index, `getpass()`, `os.environ["X"]`), and where reading stopped: past `=`/`>` (`:=`,
/// `=>`), spaces, Markdown's `**`, an opening quote and an auth scheme (`Bearer`), up to the
/// closing quote or, unquoted, to a space or punctuation that ends a value; a trailing `.` or
/// `:` is the sentence's.
fn value_after(bytes: &[u8], from: usize) -> (Option<(usize, usize)>, usize) {
    let fwd = |mut p: usize, max: usize, f: fn(u8) -> bool| {
        let stop = p.saturating_add(max);
        while p < stop && bytes.get(p).is_some_and(|&b| f(b)) {
            p += 1;
        }
        p
    };
    let blank = |b: u8| b == b' ' || b == b'\t';
    let mut p = fwd(from, 1, |b| b == b'=' || b == b'>');
    p = fwd(p, 8, blank);
    p = fwd(p, 3, |b| b == b'*');
    p = fwd(p, 8, blank);
    let quote = bytes
        .get(p)
        .copied()
        .filter(|b| matches!(b, b'"' | b'\'' | b'`'));
    p += usize::from(quote.is_some());
    for scheme in [&b"bearer "[..], b"basic ", b"token "] {
        if bytes
            .get(p..p + scheme.len())
            .is_some_and(|s| s.eq_ignore_ascii_case(scheme))
        {
            p = fwd(p + scheme.len(), usize::MAX, |b| b == b' ');
            break;
        }
    }
    let rest = bytes.get(p..).unwrap_or_default();
    let len = rest
        .iter()
        .position(|&b| match quote {
            Some(q) => b == q || b == b'\n',
            None => b" \t\n\r\x0c\"'`,;&|<>()[]{}".contains(&b),
        })
        .unwrap_or(rest.len());
    let value = rest.get(..len).unwrap_or_default();
    let kept = value.len()
        - value
            .iter()
            .rev()
            .take_while(|&&b| b == b'.' || b == b':')
            .count();
    let code = quote.is_none() && matches!(rest.get(len), Some(b'(' | b'['));
    ((!code).then_some((p, p + kept)), p + len)
}

/// What a key or token is written with: base64, base64url, hex, and `.`/`~`.
fn is_token_byte(b: u8) -> bool {
    b.is_ascii_alphanumeric() || b"_+/=.~-".contains(&b)
}

/// Placeholders, masks and names that say where a real value would go.
const PLACEHOLDER_PARTS: &[&str] = &[
    "...",
    "…",
    "***",
    "xxxx",
    "•",
    "your",
    "example",
    "placeholder",
    "redacted",
    "changeme",
    "dummy",
    "sample",
];
const PLACEHOLDERS: &[&str] = &[
    "password",
    "pass",
    "passwd",
    "pwd",
    "secret",
    "token",
    "hidden",
    "none",
    "null",
    "1password",
];

/// A value that is not one: a template or reference (`${X}`, `<key>`, `{{token}}`, `%s`,
/// `[see vault]`, a YAML tag or anchor), an ellipsis or mask, an ALL_CAPS name (`YOUR_KEY`,
/// `PAT`), or a word that says so.
fn placeholder(v: &str) -> bool {
    let lower = v.to_ascii_lowercase();
    let b = v.as_bytes();
    b.first().is_none_or(|c| b"$<{%[(!&*#".contains(c))
        || PLACEHOLDER_PARTS.iter().any(|p| lower.contains(p))
        || PLACEHOLDERS.contains(&lower.as_str())
        || b.iter().all(|c| b"*xX.#-_".contains(c))
        || b.iter().all(|&c| c.is_ascii_uppercase() || c == b'_')
}

/// A path or URL: where a secret lives, not the secret (`pwd: /home/a`).
fn reference(v: &str) -> bool {
    let b = v.as_bytes();
    v.starts_with(['/', '~'])
        || v.starts_with("./")
        || v.starts_with("../")
        || v.contains("://")
        || (b.first().is_some_and(u8::is_ascii_alphabetic) && b.get(1..3) == Some(b":\\"))
}

/// What a person would type as a password: six characters or more, letters with digits or
/// symbols (`hunter2`, `P@ss!word`), where a plain word (`admin`, `see`) is not one.
fn password_like(v: &str) -> bool {
    let b = v.as_bytes();
    v.chars().count() >= 6
        && b.iter().any(u8::is_ascii_alphabetic)
        && b.iter()
            .any(|&c| c.is_ascii_digit() || (c.is_ascii_punctuation() && !b"_-.".contains(&c)))
}

/// Whether `v` reads as randomly drawn, not written: every test is a property of random
/// strings that words, identifiers and hashes of names lack.
///
/// - at least 80 bits if its characters were random: 20 hex digits, 16 of one case and
///   digits, 14 of mixed case;
/// - letters and digits (a value of letters alone is a word or a name);
/// - Shannon entropy of at least 3 bits a character;
/// - the character class (lower, upper, digit) changes between at least 15% of neighbours
///   (upper to lower does not count: a capitalised word);
/// - fewer than half the neighbours are consecutive (`abcdef`, `123456`);
/// - under 60% of it is word-like runs of letters (3 or more, a fifth to three quarters
///   vowels, no four consonants in a row), so `Curve25519SeedBin` is a name.
fn looks_random(v: &str) -> bool {
    if !v.is_ascii() {
        return false;
    }
    let b = v.as_bytes();
    let al: Vec<u8> = b
        .iter()
        .copied()
        .filter(u8::is_ascii_alphanumeric)
        .collect();
    let any = |f: fn(&u8) -> bool| al.iter().any(f);
    let (lower, upper) = (any(u8::is_ascii_lowercase), any(u8::is_ascii_uppercase));
    if !any(u8::is_ascii_digit) || !(lower || upper) {
        return false;
    }
    let hex_one_case = al.iter().all(u8::is_ascii_hexdigit)
        && !(any(|c| (b'a'..=b'f').contains(c)) && any(|c| (b'A'..=b'F').contains(c)));
    let min = if hex_one_case {
        20
    } else if lower && upper {
        14
    } else {
        16
    };
    if al.len() < min || entropy_bits(b) < 3.0 {
        return false;
    }
    let class = |c: u8| (c.is_ascii_lowercase(), c.is_ascii_uppercase());
    let (mut pairs, mut changes, mut steps) = (0usize, 0usize, 0usize);
    for w in b.windows(2) {
        if let [x, y] = *w {
            if x.is_ascii_alphanumeric() && y.is_ascii_alphanumeric() {
                pairs += 1;
                if class(x) != class(y) && !(x.is_ascii_uppercase() && y.is_ascii_lowercase()) {
                    changes += 1;
                }
                steps += usize::from(x.abs_diff(y) == 1);
            }
        }
    }
    changes * 20 >= pairs * 3 && steps * 2 < pairs && word_letters(b) * 5 < al.len() * 3
}

/// Shannon entropy of the bytes of `b`, in bits a byte.
fn entropy_bits(b: &[u8]) -> f64 {
    let mut counts = [0u32; 256];
    for &c in b {
        if let Some(n) = counts.get_mut(usize::from(c)) {
            *n += 1;
        }
    }
    #[allow(clippy::cast_precision_loss)]
    let n = b.len() as f64;
    let nats: f64 = counts
        .iter()
        .filter(|&&c| c > 0)
        .map(|&c| {
            let p = f64::from(c) / n;
            -p * p.ln()
        })
        .sum();
    nats / std::f64::consts::LN_2
}

/// How many letters of `b` are in word-like runs: a run is `[A-Z]?[a-z]+`, `[A-Z]+` (an
/// upper-case run before a capitalised word ends before its last letter), cut at digits and
/// other characters.
fn word_letters(b: &[u8]) -> usize {
    let vowel = |c: u8| b"aeiouy".contains(&c.to_ascii_lowercase());
    let wordlike = |run: &[u8]| {
        let vowels = run.iter().filter(|&&c| vowel(c)).count();
        let mut consonants = 0;
        let cluster = run.iter().any(|&c| {
            consonants = if vowel(c) { 0 } else { consonants + 1 };
            consonants >= 4
        });
        run.len() >= 3 && vowels * 5 >= run.len() && vowels * 4 <= run.len() * 3 && !cluster
    };
    let mut total = 0;
    let mut start = 0;
    for i in 0..=b.len() {
        let at = |k: usize| b.get(k).copied();
        let c = at(i);
        let prev = i.checked_sub(1).and_then(at);
        let cut = match (prev, c) {
            (Some(p), Some(c)) if p.is_ascii_alphabetic() && c.is_ascii_alphabetic() => {
                (p.is_ascii_lowercase() && c.is_ascii_uppercase())
                    || (p.is_ascii_uppercase()
                        && c.is_ascii_uppercase()
                        && at(i + 1).is_some_and(|n| n.is_ascii_lowercase()))
            }
            _ => true,
        };
        if cut {
            if let Some(run) = b.get(start..i) {
                if run.iter().all(u8::is_ascii_alphabetic) && wordlike(run) {
                    total += run.len();
                }
            }
            start = i;
        }
    }
    total
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

    // ---- issue 21: the shapes that passed, vendor formats, labelled values, near misses ----

    /// A fake 32-hex key (built, so no complete key is written here).
    fn hex32() -> String {
        "9f3b".to_owned() + &"a17c5e02d84b".repeat(2) + "6d2c"
    }

    fn telegram() -> String {
        format!("{}:AAH{}", "7123456789", "k9Qz_T4-vWx2Lp8".repeat(2) + "Rm")
    }

    #[test]
    fn the_shapes_of_issue_21() {
        let tg = telegram();
        assert_eq!(tg.len(), 46);
        let found = find_secrets(&format!("bot: {tg}\n"));
        assert_eq!(found.len(), 1);
        assert_eq!(found[0].code, "telegram_bot_token");
        assert_eq!(found[0].preview, "7123… (46 chars)");
        assert_eq!(
            codes(&format!("https://api.telegram.org/bot{tg}/sendMessage")),
            ["telegram_bot_token"]
        );
        let key = hex32();
        for text in [
            format!("Key: {key}"),
            format!("- Token: {key}"),
            format!("Secret: {key}"),
            format!("API key: {key}"),
            format!("api_key={key}"),
            format!("apiKey: '{key}'"),
            format!("{{\"api_key\": \"{key}\"}}"),
            format!("export SERVICE_API_KEY={key}"),
            format!("**Access token:** `{key}`"),
            format!("client_secret = \"{key}\""),
            format!("Authorization: Bearer {key}"),
        ] {
            assert_eq!(codes(&text), ["labelled_secret"], "{text}");
        }
        let found = find_secrets(&format!("notes\nAPI key: {key}"));
        assert_eq!(found[0].line, 2);
        assert_eq!(
            found[0].preview, "key:… (37 chars)",
            "the label, never the value"
        );
        assert_eq!(
            codes("pit-3f9c2a1e-7b4d-4e8a-9c61-2d5f0b7e8a14"),
            ["private_integration_token"]
        );
        for text in [
            "password: hunter2",
            "passwd=Tr0ub4dor&3",
            "pwd: s3cr3t!x",
            "DB_PASSWORD=\"p@ss w0rd\"", // quoted with a space: prose, not a password
        ] {
            let want: &[&str] = if text.contains(' ') && text.contains('"') {
                &[]
            } else {
                &["password"]
            };
            assert_eq!(codes(text), want, "{text}");
        }
        let found = find_secrets("login: admin\npassword: hunter2");
        assert_eq!(
            (found[0].line, found[0].preview.as_str()),
            (2, "pass… (17 chars)")
        );
    }

    #[test]
    fn more_vendor_formats() {
        let x = |s: &str, n: usize| s.repeat(n);
        let cases = [
            (format!("glpat-{}", x("aB3_", 5)), "gitlab_token"),
            (format!("xoxe-1-{}", x("Ab3", 5)), "slack_token"),
            (format!("xapp-1-A0{}", x("B1c", 7)), "slack_token"),
            (format!("whsec_{}", x("aB3d", 8)), "stripe_webhook_secret"),
            (
                format!("GOCSPX-{}", x("aB3_", 7)),
                "google_oauth_client_secret",
            ),
            (
                format!("pypi-AgEIcHlwaS5vcmc{}", x("aB3-", 13)),
                "pypi_token",
            ),
            (format!("hf_{}", x("aBcD", 8) + "eF"), "huggingface_token"),
            (format!("dop_v1_{}", x("0a1b", 16)), "digitalocean_token"),
            (format!("shpat_{}", x("0a1B", 8)), "shopify_token"),
            (format!("ntn_{}", x("a1B2", 11)), "notion_token"),
            (format!("secret_{}", x("a1B", 14) + "c"), "notion_token"),
            (format!("lin_api_{}", x("a1B2", 10)), "linear_api_key"),
            (
                format!("SG.{}.{}", x("aB3_", 5) + "cd", x("xY7-", 10) + "abc"),
                "sendgrid_api_key",
            ),
            (format!("dp.pt.{}", x("aB3d", 11)), "doppler_token"),
            (
                format!("MTk4NjIyNDgzNDcxOTI1MjQ4.Gh1jK2.{}", x("aB3-x", 7)),
                "discord_bot_token",
            ),
            (
                format!(
                    "https://hooks.slack.com/services/T0ABC1234/B0DEF5678/{}",
                    x("aB3", 8)
                ),
                "slack_webhook",
            ),
        ];
        for (text, code) in cases {
            assert_eq!(codes(&text), [code], "{text}");
            // and within a sentence ending in a full stop
            assert_eq!(codes(&format!("use {text}.")), [code], "{text}.");
        }
        let hook = find_secrets(&format!(
            "https://hooks.slack.com/services/T0/B0/{}",
            x("aB3", 7)
        ));
        assert_eq!(hook[0].preview, "http… (60 chars)");
        // a Twilio key and an AWS secret key after their labels
        let twilio = format!("TWILIO_API_KEY=SK{}", hex32());
        assert_eq!(codes(&twilio), ["twilio_api_key"]);
        let aws = format!("aws_secret_access_key = {}", x("wJal7rXU+tnFEMI/K7MD", 2));
        assert_eq!(codes(&aws), ["aws_secret_access_key"]);
    }

    #[test]
    fn vendor_near_misses() {
        let x = |s: &str, n: usize| s.repeat(n);
        for text in [
            format!("glpat-{}", x("a", 19)),
            format!("hf_{}", x("abcd", 8) + "ef"), // one case: a name
            format!("dop_v1_{}", x("0A1B", 16)),
            format!("shpat_{}", x("0g1h", 8)),
            format!("lin_api_{}", x("a", 39)),
            "pit-stop and pit-3f9c2a1e-7b4d".to_owned(),
            format!("SG.{}.{}", x("a", 21), x("b", 43)),
            format!("a.SG.{}.{}", x("a", 22), x("b", 43)),
            format!("SG.{}.{}.more", x("a", 22), x("b", 43)),
            format!("dp.xx.{}", x("aB3d", 11)),
            format!("{}:{}", "1234567", x("aB", 17) + "c"), // 7 digits
            format!("{}:{}", "12345678", x("ab-", 11) + "cd"), // one class: a name
            format!("{}:{}", "12345678", x("aB", 18)),      // 36 characters
            format!("Microsoft.Extensions.{}", x("Abc", 10)),
            format!("https://hooks.slack.com/services/{}", x("a", 19)),
            format!("evilhooks.slack.com/services/{}", x("a", 30)),
        ] {
            assert!(codes(&text).is_empty(), "{text}");
        }
    }

    #[test]
    fn placeholders_hashes_ids_and_prose_pass() {
        let key = hex32();
        for text in [
            "api_key: <your-api-key>",
            "API_KEY=YOUR_API_KEY",
            "token: xxxxxxxxxxxxxxxxxxxxxxxx",
            "secret: ****************",
            "password: changeme",
            "key: ${API_KEY}",
            "TOKEN=$TOKEN",
            "token: {{token}}",
            "OPENAI_API_KEY=sk-...",
            "api_key: sk-proj-abc…",
            "password: REDACTED",
            "commit: 1770a92e0b5f7f0c7a1de0b1e8d9b8d4f1f3a2c1",
            "sha: 1770a92e0b5f7f0c7a1de0b1e8d9b8d4f1f3a2c1",
            "sha256:9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08",
            "image: app@sha256:9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08",
            "checksum: 5d41402abc4b2a76b9719d911017c592",
            "md5 hash: 5d41402abc4b2a76b9719d911017c592",
            "123e4567-e89b-12d3-a456-426614174000",
            "request id: 123e4567-e89b-12d3-a456-426614174000",
            "git clone https://x-access-token:PAT@github.com/o/r.git",
            "password: see 1Password",
            "password: 1Password",
            "password: stored in the vault",
            "token: the JWT from login",
            "key: value",
            "The secret is to cache the index.",
            "the secret: cache the index",
            "pwd: /home/alice/project",
            "password = os.environ[\"DB_PASSWORD\"]",
            "password: process.env.DB_PASSWORD",
            "let password = url::quirks::password(&url);",
            "password = getpass()",
            "password: !vault |",
            "password: ENC[AES256_GCM,data:abc]",
            "public key: MFkwEwYHKoZIzj0CAQYIKoZIzj0DAQcDQgAE",
            "cache key: 5d41402abc4b2a76b9719d911017c592",
            "Idempotency-Key: 5d41402abc4b2a76b9719d911017c592",
            "next_page_token: CiAKGjBpNDd2Nmp2Zml2cXRwYjBpOXA2",
            "key_id: 5d41402abc4b2a76",
            "max_tokens: 4096",
            "key: PrivateSec1KeyDer",
            "token: claude-sonnet-4-20250514",
            "key: 0123456789abcdef0123456789abcdef",
            "if token == \"abc123def456ghi789\"",
        ] {
            assert!(codes(text).is_empty(), "{text}: {:?}", find_secrets(text));
        }
        // a hash under a secret's label is reported: the label says what it is
        assert_eq!(codes(&format!("key: {key}")), ["labelled_secret"]);
    }

    #[test]
    fn a_labelled_vendor_token_is_reported_once_as_the_token() {
        let ghp = ghp();
        for text in [
            format!("token: {ghp}"),
            format!("GITHUB_TOKEN={ghp}"),
            format!("password: {ghp}"),
            format!("TELEGRAM_BOT_TOKEN={}", telegram()),
            format!("https://x-access-token:{ghp}@github.com/o/r"),
        ] {
            let found = codes(&text);
            assert_eq!(found.len(), 1, "{text}: {found:?}");
            assert_ne!(found[0], "labelled_secret");
        }
    }

    #[test]
    fn randomness_is_principled() {
        // 80 bits: 20 hex digits, 16 of one case and digits, 14 of mixed case
        assert!(looks_random("9f3ba17c5e02d84b6d2c"));
        assert!(!looks_random("9f3ba17c5e02d84b6d2"));
        assert!(looks_random("k3x9q2m7w4z8p1r5"));
        assert!(!looks_random("k3x9q2m7w4z8p1r"));
        assert!(looks_random("aB3xK9qZ2mW7pL"));
        assert!(!looks_random("aB3xK9qZ2mW7p"));
        // letters alone, runs, low entropy, word sequences
        assert!(!looks_random("qZxWvKjPmBnRtYhG"));
        assert!(!looks_random("abcdefghijklmnop1234"));
        assert!(!looks_random("a1a1a1a1a1a1a1a1a1a1"));
        assert!(!looks_random("Curve25519SeedBin"));
        assert!(!looks_random("release-2024-build-7"));
        assert!(!looks_random("é3ba17c5e02d84b6d2c9f"));
        assert!(looks_random(
            "NUXOmHqWNVTapJkJJHw8BfD155AuqhH_qju_5fNmQ4ZHV7u8"
        ));
        assert!(looks_random("123e4567-e89b-12d3-a456-426614174000"));
    }

    #[test]
    fn labels_are_read_as_people_write_them() {
        let kind = |s: &str| label_kind(s.as_bytes());
        let secret = Some((Label::Secret, false));
        for label in [
            "apiKey",
            "APIKey",
            "x-api-key",
            "API_KEY_2",
            "oauth2Token",
            "secretKey",
            "Telegram bot token",
            "client_secret",
        ] {
            assert_eq!(kind(label), secret, "{label}");
        }
        assert_eq!(kind("AWS_SECRET_ACCESS_KEY"), Some((Label::Secret, true)));
        assert_eq!(kind("SecretAccessKey"), Some((Label::Secret, true)));
        assert_eq!(kind("PGPASSWORD"), Some((Label::Password, false)));
        assert_eq!(kind("ssh_key_passphrase"), Some((Label::Password, false)));
        for label in [
            "max_tokens",
            "sort key",
            "sort_2_key",
            "monkey",
            "key_id",
            "token_count",
            "publicKey",
            "",
        ] {
            assert_eq!(kind(label), None, "{label}");
        }
    }

    #[test]
    fn labelled_scan_stays_linear() {
        // each value is read once: separators inside a value already read are not labels
        // again, and a label is read back at most MAX_LABEL bytes (quadratic would not finish)
        let _ = find_secrets(&"key=".repeat(250_000));
        let _ = find_secrets(&"password: x".repeat(100_000));
        let _ = find_secrets(&format!("token: \"{}", "a".repeat(1_000_000)));
        let _ = find_secrets(&format!("{}:", "k ".repeat(500_000)));
        let _ = find_secrets(&"a:".repeat(500_000));
        let _ = find_secrets(&"key: Bearer ".repeat(100_000));
        let _ = find_secrets(&"hooks.slack.com/services/".repeat(40_000));
        let _ = find_secrets(&"SG.a.".repeat(200_000));
        let many = format!("api_key: {} ", hex32()).repeat(20_000);
        assert_eq!(find_secrets(&many).len(), 20_000);
        let tokens = format!("token: {} ", ghp()).repeat(20_000);
        let found = find_secrets(&tokens);
        assert_eq!(found.len(), 20_000);
        assert!(found.iter().all(|f| f.code == "github_token"));
    }
}
