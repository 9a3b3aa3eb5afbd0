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
    /// An in-memory buffer; read it with [`crate::Store::take_output`].
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
    #[inline]
    pub fn flush(&mut self) {
        // Every call from Rust ends here: the common case (nothing
        // buffered) must not cost a call.
        if !self.buf.is_empty() {
            self.flush_buffered();
        }
    }

    /// [`Output::flush`] when something is buffered.
    #[inline(never)]
    fn flush_buffered(&mut self) {
        if self.broken {
            self.buf.clear();
            return;
        }
        if self.buf.is_empty() || matches!(self.sink, OutputSink::Capture) {
            return;
        }
        let buf = std::mem::take(&mut self.buf);
        self.send(&buf);
        self.buf = buf;
        self.buf.clear();
    }

    /// Writes `bytes` to the sink (not [`OutputSink::Capture`]) at once,
    /// marking the stream broken when that fails or panics.
    fn send(&mut self, bytes: &[u8]) {
        let sink = &mut self.sink;
        let result = catch_unwind(AssertUnwindSafe(|| match sink {
            OutputSink::Capture => Ok(()),
            OutputSink::Stdout => {
                let mut out = io::stdout().lock();
                out.write_all(bytes).and_then(|()| out.flush())
            }
            OutputSink::Writer(w) => w.write_all(bytes).and_then(|()| w.flush()),
        }));
        if !matches!(result, Ok(Ok(()))) {
            self.broken = true;
        }
    }

    /// A writer appending to this stream that never holds more than
    /// `FLUSH_AT` (64 KiB) bytes in the buffer (except for
    /// [`OutputSink::Capture`], which keeps everything): long text such as
    /// a printed large array is written through in blocks instead of
    /// being built in memory first. Call [`Output::written`] afterwards.
    pub fn stream(&mut self) -> Stream<'_> {
        Stream(self)
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

/// The writer [`Output::stream`] returns.
pub struct Stream<'a>(&'a mut Output);

impl Write for Stream<'_> {
    fn write(&mut self, bytes: &[u8]) -> io::Result<usize> {
        let out = &mut *self.0;
        if out.broken {
            return Ok(bytes.len());
        }
        let capture = matches!(out.sink, OutputSink::Capture);
        if !capture && out.buf.len() + bytes.len() > FLUSH_AT {
            out.flush();
            if bytes.len() >= FLUSH_AT {
                out.send(bytes);
                return Ok(bytes.len());
            }
        }
        out.buf.extend_from_slice(bytes);
        Ok(bytes.len())
    }

    fn flush(&mut self) -> io::Result<()> {
        Ok(())
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

    /// A writer that records the largest single write and the total.
    struct Sizes(Arc<Mutex<(usize, usize)>>);

    impl Write for Sizes {
        fn write(&mut self, b: &[u8]) -> io::Result<usize> {
            let mut s = self.0.lock().unwrap();
            s.0 = s.0.max(b.len());
            s.1 += b.len();
            Ok(b.len())
        }
        fn flush(&mut self) -> io::Result<()> {
            Ok(())
        }
    }

    #[test]
    fn streaming_keeps_the_buffer_bounded() {
        let sizes = Arc::new(Mutex::new((0, 0)));
        let mut out = Output::new(OutputSink::Writer(Box::new(Sizes(sizes.clone()))));
        for _ in 0..100_000 {
            out.stream().write_all(b"12345, ").unwrap();
            assert!(out.buf.len() <= FLUSH_AT);
        }
        // One large piece goes straight through.
        out.stream().write_all(&vec![b'y'; FLUSH_AT * 3]).unwrap();
        assert!(out.buf.len() <= FLUSH_AT);
        out.flush();
        let (largest, total) = *sizes.lock().unwrap();
        assert_eq!(total, 700_000 + FLUSH_AT * 3);
        assert_eq!(largest, FLUSH_AT * 3);
        // Capture keeps everything.
        let mut cap = Output::new(OutputSink::Capture);
        cap.stream().write_all(&vec![b'z'; FLUSH_AT * 2]).unwrap();
        assert_eq!(cap.take().len(), FLUSH_AT * 2);
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
