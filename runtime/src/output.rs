//! Where a program's `print` output goes: the process's standard output
//! (buffered, flushed before error messages and at exit), an in-memory
//! buffer (for `run_source`, tests and embedders), or any writer.

use std::fmt;
use std::io::{self, IsTerminal, Write};
use std::panic::{catch_unwind, AssertUnwindSafe};

/// Output destination chosen by the embedder.
pub enum OutputSink {
    /// The process's standard output, buffered.
    Stdout,
    /// An in-memory buffer; read it with [`crate::Engine::take_output`].
    Capture,
    /// Any writer (a file, a socket, a shared buffer), buffered.
    Writer(Box<dyn Write + Send>),
}

impl fmt::Debug for OutputSink {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            OutputSink::Stdout => f.write_str("Stdout"),
            OutputSink::Capture => f.write_str("Capture"),
            OutputSink::Writer(_) => f.write_str("Writer(..)"),
        }
    }
}

/// Bytes above which buffered output is written through.
const FLUSH_AT: usize = 64 << 10;

/// A program's output stream.
pub struct Output {
    sink: OutputSink,
    buf: Vec<u8>,
    /// Set once a write failed (e.g. a closed pipe): later output is dropped.
    broken: bool,
    /// Flush after every write (standard output on a terminal).
    line_buffered: bool,
}

impl Output {
    /// An output stream writing to `sink`.
    pub fn new(sink: OutputSink) -> Output {
        let line_buffered = matches!(sink, OutputSink::Stdout) && io::stdout().is_terminal();
        Output {
            sink,
            buf: Vec::new(),
            broken: false,
            line_buffered,
        }
    }

    /// Appends bytes.
    pub fn write(&mut self, bytes: &[u8]) {
        self.buf.extend_from_slice(bytes);
        self.written();
    }

    /// The buffer to append formatted text to directly; call
    /// [`Output::written`] afterwards.
    pub fn buffer(&mut self) -> &mut Vec<u8> {
        &mut self.buf
    }

    /// Writes through if the buffer has grown large.
    pub fn written(&mut self) {
        if self.line_buffered || self.buf.len() >= FLUSH_AT {
            self.flush();
        }
    }

    /// Writes buffered bytes to the sink (no-op for [`OutputSink::Capture`]).
    ///
    /// A writer that panics is treated like one that fails: the panic is
    /// caught here (it never reaches Waddle code, the embedder's call or a
    /// `Drop`) and later output is dropped.
    pub fn flush(&mut self) {
        if self.broken {
            self.buf.clear();
            return;
        }
        if self.buf.is_empty() || matches!(self.sink, OutputSink::Capture) {
            return;
        }
        let (sink, buf) = (&mut self.sink, &self.buf);
        let result = catch_unwind(AssertUnwindSafe(|| match sink {
            OutputSink::Capture => Ok(()),
            OutputSink::Stdout => {
                let mut out = io::stdout().lock();
                out.write_all(buf).and_then(|()| out.flush())
            }
            OutputSink::Writer(w) => w.write_all(buf).and_then(|()| w.flush()),
        }));
        if !matches!(result, Ok(Ok(()))) {
            self.broken = true;
        }
        self.buf.clear();
    }

    /// Takes the captured bytes (everything written so far for
    /// [`OutputSink::Capture`], the unflushed rest otherwise).
    pub fn take(&mut self) -> Vec<u8> {
        std::mem::take(&mut self.buf)
    }

    /// Whether a write to the sink has failed.
    pub fn is_broken(&self) -> bool {
        self.broken
    }
}

impl Drop for Output {
    fn drop(&mut self) {
        self.flush();
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::{Arc, Mutex};

    struct Failing(Arc<Mutex<usize>>);

    impl Write for Failing {
        fn write(&mut self, _: &[u8]) -> io::Result<usize> {
            *self.0.lock().unwrap() += 1;
            Err(io::Error::new(io::ErrorKind::BrokenPipe, "closed"))
        }
        fn flush(&mut self) -> io::Result<()> {
            Ok(())
        }
    }

    #[test]
    fn capture_keeps_everything_until_taken() {
        let mut out = Output::new(OutputSink::Capture);
        out.write(b"a\n");
        out.buffer().extend_from_slice(&vec![b'x'; FLUSH_AT * 2]);
        out.written();
        out.flush();
        assert_eq!(out.take().len(), 2 + FLUSH_AT * 2);
        assert!(out.take().is_empty());
    }

    #[test]
    fn a_failing_writer_is_not_retried() {
        let calls = Arc::new(Mutex::new(0));
        let mut out = Output::new(OutputSink::Writer(Box::new(Failing(calls.clone()))));
        out.write(b"1\n");
        out.flush();
        assert!(out.is_broken());
        out.write(b"2\n");
        out.flush();
        assert_eq!(*calls.lock().unwrap(), 1);
    }
}
