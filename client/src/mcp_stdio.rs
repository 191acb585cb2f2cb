//! stdin and stdout for `cairn mcp`, kept open until every request read has its answer: a client
//! that writes its requests and closes stdin (a script, a pipe) gets every answer, however long
//! the daemon takes (the SDK gives answers still in flight at end of input five seconds). The
//! input's end reaches the server once as many answers were written as requests were read, or
//! after [`LONGEST_WAIT`].

use std::pin::Pin;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;
use std::task::{Context, Poll};
use std::time::Duration;

use tokio::io::{AsyncRead, AsyncWrite, ReadBuf};

/// The longest the end of input waits for answers: past it the server stops and says on stderr
/// how many requests went unanswered.
const LONGEST_WAIT: Duration = Duration::from_secs(120);

/// Requests read and answers written.
#[derive(Default)]
struct Ledger {
    asked: AtomicU64,
    answered: AtomicU64,
    changed: tokio::sync::Notify,
}

impl Ledger {
    fn owed(&self) -> u64 {
        self.asked.load(Ordering::Acquire).saturating_sub(self.answered.load(Ordering::Acquire))
    }

    /// Until every request read is answered, or [`LONGEST_WAIT`].
    async fn settled(self: Arc<Self>) {
        let all = async {
            loop {
                // Registered before the count is read, so that an answer written in between
                // wakes it.
                let changed = self.changed.notified();
                tokio::pin!(changed);
                changed.as_mut().enable();
                if self.owed() == 0 {
                    return;
                }
                changed.await;
            }
        };
        if tokio::time::timeout(LONGEST_WAIT, all).await.is_err() {
            eprintln!("cairn mcp: input ended; {} request(s) still unanswered after {}s, stopping", self.owed(), LONGEST_WAIT.as_secs());
        }
    }
}

/// Complete lines out of a byte stream, each given to `each`.
fn lines(pending: &mut Vec<u8>, bytes: &[u8], mut each: impl FnMut(&[u8])) {
    for &b in bytes {
        if b == b'\n' {
            each(pending);
            pending.clear();
        } else if pending.len() < 1 << 20 {
            // A line past 1 MiB is no message we count; its bytes still pass through.
            pending.push(b);
        }
    }
}

/// What a JSON-RPC line is: a request (`method` and `id`), an answer (`id` with `result` or
/// `error`), or neither.
fn kind(line: &[u8]) -> Option<bool> {
    let v: serde_json::Value = serde_json::from_slice(line).ok()?;
    let id = v.get("id").is_some_and(|id| !id.is_null());
    if id && v.get("method").is_some() {
        Some(true)
    } else if id && (v.get("result").is_some() || v.get("error").is_some()) {
        Some(false)
    } else {
        None
    }
}

pub struct Input<R> {
    inner: R,
    ledger: Arc<Ledger>,
    line: Vec<u8>,
    ending: Option<Pin<Box<dyn std::future::Future<Output = ()> + Send>>>,
}

pub struct Output<W> {
    inner: W,
    ledger: Arc<Ledger>,
    line: Vec<u8>,
}

/// stdin and stdout, counted.
pub fn stdio() -> (Input<tokio::io::Stdin>, Output<tokio::io::Stdout>) {
    let ledger = Arc::new(Ledger::default());
    (Input { inner: tokio::io::stdin(), ledger: ledger.clone(), line: Vec::new(), ending: None }, Output { inner: tokio::io::stdout(), ledger, line: Vec::new() })
}

impl<R: AsyncRead + Unpin> AsyncRead for Input<R> {
    fn poll_read(self: Pin<&mut Self>, cx: &mut Context<'_>, buf: &mut ReadBuf<'_>) -> Poll<std::io::Result<()>> {
        let this = self.get_mut();
        if this.ending.is_none() {
            let before = buf.filled().len();
            match Pin::new(&mut this.inner).poll_read(cx, buf) {
                Poll::Ready(Ok(())) if buf.filled().len() > before => {
                    let ledger = &this.ledger;
                    lines(&mut this.line, &buf.filled()[before..], |l| {
                        if kind(l) == Some(true) {
                            ledger.asked.fetch_add(1, Ordering::AcqRel);
                        }
                    });
                    return Poll::Ready(Ok(()));
                }
                Poll::Ready(Ok(())) => {
                    // The end of input: a last line without its newline counts too.
                    if !this.line.is_empty() && kind(&this.line) == Some(true) {
                        this.ledger.asked.fetch_add(1, Ordering::AcqRel);
                    }
                    this.line.clear();
                    this.ending = Some(Box::pin(this.ledger.clone().settled()));
                }
                other => return other,
            }
        }
        match this.ending.as_mut().map(|f| f.as_mut().poll(cx)) {
            Some(Poll::Pending) => Poll::Pending,
            _ => Poll::Ready(Ok(())),
        }
    }
}

impl<W: AsyncWrite + Unpin> AsyncWrite for Output<W> {
    fn poll_write(self: Pin<&mut Self>, cx: &mut Context<'_>, buf: &[u8]) -> Poll<std::io::Result<usize>> {
        let this = self.get_mut();
        let n = std::task::ready!(Pin::new(&mut this.inner).poll_write(cx, buf))?;
        let mut answered = 0;
        lines(&mut this.line, &buf[..n], |l| {
            if kind(l) == Some(false) {
                answered += 1;
            }
        });
        if answered > 0 {
            this.ledger.answered.fetch_add(answered, Ordering::AcqRel);
            this.ledger.changed.notify_waiters();
        }
        Poll::Ready(Ok(n))
    }

    fn poll_flush(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<std::io::Result<()>> {
        Pin::new(&mut self.get_mut().inner).poll_flush(cx)
    }

    fn poll_shutdown(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<std::io::Result<()>> {
        Pin::new(&mut self.get_mut().inner).poll_shutdown(cx)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn requests_and_answers_are_told_apart() {
        assert_eq!(kind(br#"{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{}}"#), Some(true));
        assert_eq!(kind(br#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#), None);
        assert_eq!(kind(br#"{"jsonrpc":"2.0","id":1,"result":{}}"#), Some(false));
        assert_eq!(kind(br#"{"jsonrpc":"2.0","id":"a","error":{"code":-32601,"message":"x"}}"#), Some(false));
        assert_eq!(kind(b"not json"), None);
        let mut pending = Vec::new();
        let mut seen = Vec::new();
        lines(&mut pending, b"ab\ncd", |l| seen.push(l.to_vec()));
        lines(&mut pending, b"e\n", |l| seen.push(l.to_vec()));
        assert_eq!(seen, vec![b"ab".to_vec(), b"cde".to_vec()]);
    }

    #[tokio::test]
    async fn the_end_of_input_waits_for_every_answer() {
        let ledger = Arc::new(Ledger::default());
        ledger.asked.store(2, Ordering::Release);
        let waiting = tokio::spawn(ledger.clone().settled());
        tokio::task::yield_now().await;
        assert!(!waiting.is_finished());
        ledger.answered.store(2, Ordering::Release);
        ledger.changed.notify_waiters();
        tokio::time::timeout(Duration::from_secs(5), waiting).await.expect("settled once answered").unwrap();
    }
}
