//! `provider::decode_provider_response`: any status, any body, any provider; `text` is set
//! exactly when `failure` is not.
#![no_main]

use arbitrary::{Arbitrary, Unstructured};
use libfuzzer_sys::fuzz_target;
use memdir::provider::{decode_provider_response, Provider, ProviderResponseInput};
use memdir_fuzz::{arg, json_args, FuzzText};

fn check(input: &ProviderResponseInput) {
    memdir_fuzz::debug(&(input,));
    let answer = decode_provider_response(input);
    assert_eq!(
        answer.text.is_some(),
        answer.failure.is_none(),
        "{answer:?}"
    );
    if !(200..300).contains(&input.status) {
        assert!(
            answer.failure.is_some(),
            "a {} decoded as an answer",
            input.status
        );
    }
}

/// A body shaped like one of the providers' responses, with fuzzed values in it.
fn shaped(u: &mut Unstructured<'_>, provider: Provider) -> arbitrary::Result<String> {
    let text = FuzzText::arbitrary(u)?.0;
    let stop = *u.choose(&[
        "end_turn",
        "max_tokens",
        "refusal",
        "stop",
        "length",
        "content_filter",
        "x",
    ])?;
    let n: u64 = u.arbitrary()?;
    let body = match provider {
        Provider::Anthropic => serde_json::json!({
            "model": "m",
            "content": [{"type": "thinking", "thinking": text}, {"type": "text", "text": text}],
            "stop_reason": stop,
            "usage": {"input_tokens": n, "output_tokens": 1, "cache_creation": {"ephemeral_1h_input_tokens": n}},
        }),
        Provider::Openai => serde_json::json!({
            "choices": [{"message": {"content": text, "refusal": if u.ratio(1u8, 4u8)? { Some(&text) } else { None }}, "finish_reason": stop}],
            "usage": {"prompt_tokens": n, "completion_tokens": 2, "prompt_tokens_details": {"cached_tokens": u.arbitrary::<u64>()?}},
        }),
        Provider::Ollama => serde_json::json!({
            "message": {"role": "assistant", "content": text, "thinking": text},
            "done": true, "done_reason": stop, "prompt_eval_count": n, "eval_count": 3,
        }),
    };
    let mut body = body.to_string();
    if u.ratio(1u8, 4u8)? {
        // streamed: several NDJSON lines
        body = format!("{body}\n{body}\n{}", FuzzText::arbitrary(u)?.0);
    }
    Ok(body)
}

fuzz_target!(|data: &[u8]| {
    if let Some(args) = json_args(data) {
        if let Some(input) = arg::<ProviderResponseInput>(&args, 0) {
            check(&input);
        }
        return;
    }
    let mut u = Unstructured::new(data);
    let run = |u: &mut Unstructured<'_>| -> arbitrary::Result<()> {
        let provider = *u.choose(&[Provider::Anthropic, Provider::Openai, Provider::Ollama])?;
        let status = match u.int_in_range(0..=3u8)? {
            0 => u.arbitrary()?,
            1 => *u.choose(&[400u16, 401, 404, 429, 500, 529])?,
            _ => 200,
        };
        let body = if u.ratio(2u8, 3u8)? {
            shaped(u, provider)?
        } else {
            FuzzText::arbitrary(u)?.0
        };
        check(&ProviderResponseInput {
            provider,
            status,
            body,
        });
        Ok(())
    };
    let _ = run(&mut u);
});
