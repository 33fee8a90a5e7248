//! Auto-detection: which provider to use for role slots that nothing else
//! assigns — the first available of `ANTHROPIC_API_KEY`, `OPENAI_API_KEY`
//! (with `OPENAI_BASE_URL`) and an Ollama server answering on
//! 127.0.0.1:11434 (or where `OLLAMA_HOST` says).
//!
//! Responsible for looking (whether a variable is set, one short request to
//! Ollama's model list) and for nothing else: it never reads a key's value and
//! never starts an agent. The Ollama check is a blocking request with a
//! timeout of [`OLLAMA_PROBE_TIMEOUT_MS`], made once, at start-up, and only
//! when some role slot is still unassigned.

use std::io::{Read, Write};
use std::net::{TcpStream, ToSocketAddrs};
use std::time::{Duration, Instant};

/// Variable holding the Anthropic key.
pub const ANTHROPIC_KEY_VAR: &str = "ANTHROPIC_API_KEY";
/// Variable holding the OpenAI key.
pub const OPENAI_KEY_VAR: &str = "OPENAI_API_KEY";
/// Variable with another OpenAI-compatible base URL for the `openai` provider.
pub const OPENAI_BASE_URL_VAR: &str = "OPENAI_BASE_URL";
/// Variable with the Ollama server's address (`host`, `host:port` or a URL),
/// as the Ollama tools read it.
pub const OLLAMA_HOST_VAR: &str = "OLLAMA_HOST";
/// Where Ollama listens unless `OLLAMA_HOST` says otherwise.
pub const OLLAMA_DEFAULT_ADDRESS: &str = "127.0.0.1:11434";
/// The whole Ollama check — connect, ask, read — gets this long, in ms.
pub const OLLAMA_PROBE_TIMEOUT_MS: u64 = 300;
/// Largest model list read from Ollama, in bytes.
const OLLAMA_REPLY_MAX_BYTES: usize = 1024 * 1024;

/// Read access to environment variables, so tests need not change the
/// process environment.
pub trait Environment: Sync {
    fn var(&self, name: &str) -> Option<String>;

    /// Set and not empty.
    fn is_set(&self, name: &str) -> bool {
        self.var(name).is_some_and(|value| !value.is_empty())
    }
}

/// The process environment.
pub struct SystemEnvironment;

impl Environment for SystemEnvironment {
    fn var(&self, name: &str) -> Option<String> {
        std::env::var(name).ok()
    }
}

impl Environment for std::collections::BTreeMap<String, String> {
    fn var(&self, name: &str) -> Option<String> {
        self.get(name).cloned()
    }
}

/// What auto-detection found.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Detected {
    /// `ANTHROPIC_API_KEY` is set.
    Anthropic,
    /// `OPENAI_API_KEY` is set.
    OpenAi,
    /// An Ollama server answered with at least one model.
    Ollama { base_url: String, model: String },
}

impl Detected {
    /// Why it was chosen, for `quorum doctor` and error messages.
    pub fn reason(&self) -> String {
        match self {
            Detected::Anthropic => format!("{ANTHROPIC_KEY_VAR} is set"),
            Detected::OpenAi => format!("{OPENAI_KEY_VAR} is set"),
            Detected::Ollama { base_url, .. } => format!("an Ollama server answers at {base_url}"),
        }
    }
}

/// The first available provider, or `None`.
pub fn detect(env: &dyn Environment) -> Option<Detected> {
    if env.is_set(ANTHROPIC_KEY_VAR) {
        return Some(Detected::Anthropic);
    }
    if env.is_set(OPENAI_KEY_VAR) {
        return Some(Detected::OpenAi);
    }
    let address = ollama_address(env);
    let model = ollama_first_model(&address, Duration::from_millis(OLLAMA_PROBE_TIMEOUT_MS))?;
    Some(Detected::Ollama {
        base_url: format!("http://{address}/v1"),
        model,
    })
}

/// `host:port` of the Ollama server: `OLLAMA_HOST` (scheme and path
/// stripped, port 11434 when absent, 0.0.0.0 read as this machine) or the
/// default.
pub fn ollama_address(env: &dyn Environment) -> String {
    let Some(host) = env
        .var(OLLAMA_HOST_VAR)
        .filter(|host| !host.trim().is_empty())
    else {
        return OLLAMA_DEFAULT_ADDRESS.to_string();
    };
    let host = host.trim();
    let host = host
        .split_once("://")
        .map_or(host, |(_, rest)| rest)
        .split('/')
        .next()
        .unwrap_or_default();
    // `user:password@host`: credentials are neither used for the check nor
    // shown by `quorum doctor`.
    let host = host.rsplit_once('@').map_or(host, |(_, host)| host);
    let (name, port) = match host.rsplit_once(':') {
        Some((name, port)) if !name.is_empty() && port.parse::<u16>().is_ok() => (name, port),
        _ => (host, "11434"),
    };
    let name = if name == "0.0.0.0" { "127.0.0.1" } else { name };
    format!("{name}:{port}")
}

/// Asks Ollama at `address` for its models (`GET /api/tags`) and returns the
/// first one's name; `None` if nothing answers in time or it has no model.
pub fn ollama_first_model(address: &str, timeout: Duration) -> Option<String> {
    let body = http_get(address, "/api/tags", timeout)?;
    let tags: serde_json::Value = serde_json::from_slice(&body).ok()?;
    tags.get("models")?
        .as_array()?
        .iter()
        .find_map(|model| model.get("name")?.as_str().map(str::to_string))
        .filter(|name| !name.is_empty())
}

/// A minimal HTTP/1.1 GET over plain TCP, the whole exchange within
/// `timeout`; the body of a 200 answer, or `None`.
fn http_get(address: &str, path: &str, timeout: Duration) -> Option<Vec<u8>> {
    let deadline = Instant::now() + timeout;
    let socket = address.to_socket_addrs().ok()?.next()?;
    let mut stream = TcpStream::connect_timeout(&socket, timeout).ok()?;
    let remaining = || {
        deadline
            .checked_duration_since(Instant::now())
            .filter(|d| !d.is_zero())
    };
    stream.set_write_timeout(remaining()).ok()?;
    let request = format!(
        "GET {path} HTTP/1.1\r\nHost: {address}\r\nAccept: application/json\r\nConnection: close\r\n\r\n"
    );
    stream.write_all(request.as_bytes()).ok()?;
    let mut reply = Vec::new();
    let mut buffer = [0u8; 8192];
    loop {
        stream.set_read_timeout(Some(remaining()?)).ok()?;
        match stream.read(&mut buffer) {
            Ok(0) => break,
            Ok(read) => reply.extend_from_slice(&buffer[..read]),
            Err(error) if error.kind() == std::io::ErrorKind::Interrupted => continue,
            Err(_) => return None,
        }
        if reply.len() > OLLAMA_REPLY_MAX_BYTES {
            return None;
        }
    }
    let head_end = reply.windows(4).position(|window| window == b"\r\n\r\n")?;
    let head = std::str::from_utf8(&reply[..head_end])
        .ok()?
        .to_ascii_lowercase();
    let body = &reply[head_end + 4..];
    let status_ok = head
        .lines()
        .next()
        .is_some_and(|status| status.split_whitespace().nth(1) == Some("200"));
    if !status_ok {
        return None;
    }
    if head.contains("transfer-encoding: chunked") {
        dechunk(body)
    } else {
        Some(body.to_vec())
    }
}

/// The payload of a chunked HTTP/1.1 body.
fn dechunk(mut body: &[u8]) -> Option<Vec<u8>> {
    let mut out = Vec::new();
    loop {
        let line_end = body.windows(2).position(|window| window == b"\r\n")?;
        let size_text = std::str::from_utf8(&body[..line_end]).ok()?;
        let size = usize::from_str_radix(size_text.split(';').next()?.trim(), 16).ok()?;
        body = &body[line_end + 2..];
        if size == 0 {
            return Some(out);
        }
        out.extend_from_slice(body.get(..size)?);
        body = body.get(size + 2..)?;
    }
}

#[cfg(test)]
mod tests {
    use std::collections::BTreeMap;
    use std::net::TcpListener;

    use super::*;

    fn env(pairs: &[(&str, &str)]) -> BTreeMap<String, String> {
        pairs
            .iter()
            .map(|(name, value)| (name.to_string(), value.to_string()))
            .collect()
    }

    /// A one-shot server on 127.0.0.1 that answers the first request with
    /// `reply`; returns its address.
    fn serve_once(reply: &'static str) -> (String, std::thread::JoinHandle<()>) {
        let listener = TcpListener::bind("127.0.0.1:0").unwrap();
        let address = listener.local_addr().unwrap().to_string();
        let server = std::thread::spawn(move || {
            let (mut stream, _) = listener.accept().unwrap();
            let mut request = Vec::new();
            let mut buffer = [0u8; 1024];
            while !request.windows(4).any(|window| window == b"\r\n\r\n") {
                match stream.read(&mut buffer) {
                    Ok(0) | Err(_) => break,
                    Ok(read) => request.extend_from_slice(&buffer[..read]),
                }
            }
            stream.write_all(reply.as_bytes()).unwrap();
        });
        (address, server)
    }

    /// An address where nothing listens.
    fn closed_address() -> String {
        let listener = TcpListener::bind("127.0.0.1:0").unwrap();
        listener.local_addr().unwrap().to_string()
    }

    #[test]
    fn keys_come_first_in_order() {
        let both = env(&[(ANTHROPIC_KEY_VAR, "a"), (OPENAI_KEY_VAR, "o")]);
        assert_eq!(detect(&both), Some(Detected::Anthropic));
        let openai = env(&[(OPENAI_KEY_VAR, "o"), (ANTHROPIC_KEY_VAR, "")]);
        assert_eq!(detect(&openai), Some(Detected::OpenAi));
    }

    #[test]
    fn nothing_found_when_no_key_and_no_ollama() {
        let nothing = env(&[(OLLAMA_HOST_VAR, &closed_address())]);
        assert_eq!(detect(&nothing), None);
    }

    #[test]
    fn ollama_is_found_with_its_first_model() {
        let (address, server) = serve_once(
            "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: 71\r\n\r\n\
             {\"models\":[{\"name\":\"llama3.1:8b\"},{\"name\":\"qwen2.5:7b\"}],\"x\":\"pad-\"}",
        );
        let found = detect(&env(&[(OLLAMA_HOST_VAR, &address)]));
        server.join().unwrap();
        assert_eq!(
            found,
            Some(Detected::Ollama {
                base_url: format!("http://{address}/v1"),
                model: "llama3.1:8b".into()
            })
        );
    }

    #[test]
    fn a_chunked_model_list_is_read() {
        let (address, server) = serve_once(
            "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n\
             b\r\n{\"models\":[\r\n14\r\n{\"name\":\"mistral\"}]}\r\n0\r\n\r\n",
        );
        let model = ollama_first_model(&address, Duration::from_secs(5));
        server.join().unwrap();
        assert_eq!(model.as_deref(), Some("mistral"));
    }

    #[test]
    fn an_ollama_without_models_or_with_an_error_is_not_used() {
        let (address, server) =
            serve_once("HTTP/1.1 200 OK\r\nContent-Length: 13\r\n\r\n{\"models\":[]}");
        assert_eq!(ollama_first_model(&address, Duration::from_secs(5)), None);
        server.join().unwrap();
        let (address, server) =
            serve_once("HTTP/1.1 500 Internal Server Error\r\nContent-Length: 0\r\n\r\n");
        assert_eq!(ollama_first_model(&address, Duration::from_secs(5)), None);
        server.join().unwrap();
    }

    #[test]
    fn ollama_host_forms() {
        let address = |value: &str| ollama_address(&env(&[(OLLAMA_HOST_VAR, value)]));
        assert_eq!(ollama_address(&env(&[])), "127.0.0.1:11434");
        assert_eq!(address("0.0.0.0"), "127.0.0.1:11434");
        assert_eq!(address("0.0.0.0:9000"), "127.0.0.1:9000");
        assert_eq!(address("http://gpu-box:11434/"), "gpu-box:11434");
        assert_eq!(address("gpu-box"), "gpu-box:11434");
    }
}
