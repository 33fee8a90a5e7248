//! The providers' stream decoders, fed recorded bytes in chunks split where
//! the input has a 0xFF byte (never valid UTF-8, so a free separator).
//! Invariant: no panic, whatever the bytes and wherever they are cut.
#![no_main]

use libfuzzer_sys::fuzz_target;
use quorum::agent::anthropic::AnthropicStream;
use quorum::agent::http::decode_recorded;
use quorum::agent::openai::OpenAiStream;

fuzz_target!(|data: &[u8]| {
    let chunks: Vec<bytes::Bytes> = data
        .split(|&byte| byte == 0xff)
        .map(|chunk| bytes::Bytes::copy_from_slice(chunk))
        .collect();
    let _ = decode_recorded(OpenAiStream::new(), chunks.clone());
    let _ = decode_recorded(AnthropicStream::new(), chunks);
});
