//! Where REPL lines come from: rustyline on a terminal (line editing,
//! history in `$HOME/.waddle_history`), or a plain reader for pipes and
//! files that reads bytes itself, so a line of invalid UTF-8 is reported
//! and skipped instead of ending the session, and no line grows past
//! [`MAX_LINE_BYTES`].

use std::io::BufRead;

/// Longest input line accepted (the source size limit of a program file);
/// a longer line ends the session with an error.
pub const MAX_LINE_BYTES: usize = waddle_frontend::MAX_SOURCE_BYTES;

/// One step of input.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Line {
    /// A line, without its line terminator.
    Text(String),
    /// A line that could not be used (why); the session continues.
    Invalid(String),
    /// Ctrl-C at the terminal.
    Interrupted,
    /// End of input.
    End,
    /// Input cannot be read any further (why).
    Failed(String),
}

/// Lines from a terminal through rustyline.
pub struct EditorLines {
    editor: rustyline::DefaultEditor,
    history: Option<std::path::PathBuf>,
}

impl EditorLines {
    /// A line editor with the history file loaded.
    pub fn new() -> rustyline::Result<EditorLines> {
        let mut editor = rustyline::DefaultEditor::new()?;
        let history =
            std::env::var_os("HOME").map(|h| std::path::PathBuf::from(h).join(".waddle_history"));
        if let Some(h) = &history {
            let _ = editor.load_history(h);
        }
        Ok(EditorLines { editor, history })
    }

    fn next_line(&mut self, prompt: &str) -> Line {
        use rustyline::error::ReadlineError;
        match self.editor.readline(prompt) {
            Ok(line) => {
                if !line.trim().is_empty() {
                    let _ = self.editor.add_history_entry(line.as_str());
                }
                Line::Text(line)
            }
            Err(ReadlineError::Interrupted) => Line::Interrupted,
            Err(ReadlineError::Eof) => Line::End,
            Err(ReadlineError::Io(e)) if e.kind() == std::io::ErrorKind::InvalidData => {
                Line::Invalid(format!("input is not valid UTF-8 ({e})"))
            }
            Err(e) => Line::Failed(e.to_string()),
        }
    }
}

/// Lines from any reader, as bytes.
pub struct PipedLines<'a> {
    reader: Box<dyn BufRead + 'a>,
    number: usize,
}

impl<'a> PipedLines<'a> {
    /// Lines of `reader`.
    pub fn new(reader: impl BufRead + 'a) -> PipedLines<'a> {
        PipedLines {
            reader: Box::new(reader),
            number: 0,
        }
    }

    fn next_line(&mut self) -> Line {
        use std::io::Read as _;
        let mut bytes = Vec::new();
        let limit = MAX_LINE_BYTES as u64 + 1;
        match (&mut self.reader).take(limit).read_until(b'\n', &mut bytes) {
            Ok(0) => return Line::End,
            Ok(_) => {}
            Err(e) => return Line::Failed(format!("cannot read input: {e}")),
        }
        self.number += 1;
        if bytes.last() == Some(&b'\n') {
            bytes.pop();
            if bytes.last() == Some(&b'\r') {
                bytes.pop();
            }
        } else if bytes.len() > MAX_LINE_BYTES {
            return Line::Failed(format!(
                "input line {} is longer than {} MiB",
                self.number,
                MAX_LINE_BYTES >> 20
            ));
        }
        match String::from_utf8(bytes) {
            Ok(text) => Line::Text(text),
            Err(e) => Line::Invalid(format!(
                "input line {} is not valid UTF-8 (invalid byte at column {})",
                self.number,
                e.utf8_error().valid_up_to() + 1
            )),
        }
    }
}

/// A terminal or a reader.
pub enum LineSource<'a> {
    /// A terminal.
    Editor(Box<EditorLines>),
    /// A pipe, a file, or bytes in a test.
    Piped(PipedLines<'a>),
}

impl LineSource<'_> {
    /// The next line; `prompt` is shown on a terminal only.
    pub fn next_line(&mut self, prompt: &str) -> Line {
        match self {
            LineSource::Editor(e) => e.next_line(prompt),
            LineSource::Piped(p) => p.next_line(),
        }
    }

    /// Saves the terminal history.
    pub fn close(&mut self) {
        if let LineSource::Editor(e) = self {
            if let Some(h) = &e.history {
                let _ = e.editor.save_history(h);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn invalid_utf8_is_one_bad_line() {
        let input: &[u8] = b"print(1);\r\nbad \xff\xfe line\nlast";
        let mut p = PipedLines::new(input);
        assert_eq!(p.next_line(), Line::Text("print(1);".into()));
        match p.next_line() {
            Line::Invalid(why) => {
                assert!(why.contains("line 2") && why.contains("column 5"), "{why}")
            }
            other => panic!("{other:?}"),
        }
        assert_eq!(p.next_line(), Line::Text("last".into()));
        assert_eq!(p.next_line(), Line::End);
    }

    #[test]
    fn endless_line_fails_after_the_limit() {
        let mut p = PipedLines::new(std::io::BufReader::new(std::io::repeat(b'x')));
        match p.next_line() {
            Line::Failed(why) => assert!(why.contains("longer than 64 MiB"), "{why}"),
            other => panic!("{other:?}"),
        }
    }
}
