//! The interactive REPL (`waddle` with no arguments).
//!
//! [`Repl`] holds the state and handles one input line at a time, so it is
//! testable without a terminal; [`run_interactive`] drives it with
//! rustyline (line editing, history in `$HOME/.waddle_history`).
//!
//! Entries continue over several lines while a bracket, string or block
//! comment is open. A line that cannot continue the entry gives it up with
//! the compiler's diagnostic: a `:` command (outside a string or comment),
//! or a blank line while the innermost open bracket is `(` or `[`. An entry
//! still open at the end of input is reported the same way ([`Repl::finish`]).
//! Input that is not a terminal is read line by line here ([`lines`]): a
//! line of invalid UTF-8 is reported and skipped. Declarations persist; a
//! bare expression prints its value; redefining a function replaces it;
//! redeclaring a global keeps the one variable (same type only). Commands:
//!
//! | command | effect |
//! | --- | --- |
//! | `:help` | list the commands |
//! | `:quit` / `:q` (or Ctrl-D) | leave |
//! | `:ir NAME` | Waddle IR of a function as compiled |
//! | `:opt NAME` | its IR after optimization |
//! | `:vsdg NAME` | its VSDG in Graphviz DOT (tier T3's view) |
//! | `:asm NAME` | its machine code (none yet: everything is interpreted) |
//! | `:tier NAME` | the tier running a function |
//! | `:tier` | the engine's current tier |
//! | `:set-tier TIER` | switch the tier for later entries |
//! | `:funcs` | functions with signatures, then host functions |
//! | `:globals` | globals with types and values |
//! | `:heap` | heap statistics |

mod input;
pub mod lines;

pub use input::{entry_state, is_complete, EntryState};

use waddle::{Config, Engine, Error, OutputSink, Session, Tier};

/// What handling one line produced.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct ReplOutput {
    /// Program output and command results.
    pub stdout: String,
    /// Error messages.
    pub stderr: String,
    /// The entry is incomplete: more lines are expected.
    pub pending: bool,
    /// The user asked to leave.
    pub quit: bool,
}

/// Prompt for a new entry.
pub const PROMPT: &str = "waddle> ";
/// Prompt for a continuation line.
pub const CONTINUE_PROMPT: &str = "   ...> ";

const HELP: &str = "\
Enter Waddle items: functions, statements, or an expression to print its value.
An entry continues on the next line while a bracket, string or comment is open.
Commands:
  :help             this text
  :quit, :q         leave (Ctrl-D also works)
  :ir NAME          Waddle IR of function NAME as compiled
  :opt NAME         IR of NAME after optimization
  :vsdg NAME        VSDG of NAME (Graphviz DOT, regions as clusters)
  :asm NAME         machine code of NAME
  :tier NAME        the tier that runs NAME
  :tier             the current tier for new code
  :set-tier TIER    switch tier (interp, baseline, opt, full, auto)
  :funcs            list functions and host functions
  :globals          list globals and their values
  :heap             heap statistics
";

/// REPL state: a [`Session`] (over the library's [`Engine`] and a
/// [`waddle::Store`]) plus a partly entered entry.
pub struct Repl {
    session: Session,
    buffer: String,
    entries: usize,
}

impl Repl {
    /// A REPL over an engine built from `config`, printing program output
    /// to `sink` (use [`OutputSink::Capture`] to receive it in
    /// [`ReplOutput::stdout`]).
    pub fn new(config: Config, sink: OutputSink) -> Result<Repl, Error> {
        // Compiled loops check for interrupts (Ctrl-C stops the entry).
        let engine = Engine::new(&config.interruptible(true))?;
        Ok(Repl {
            session: Session::with_output(&engine, sink),
            buffer: String::new(),
            entries: 0,
        })
    }

    /// The engine entries are compiled with (host functions registered
    /// with it are visible from the next entry on).
    #[cfg(test)]
    pub fn engine(&self) -> &Engine {
        self.session.engine()
    }

    /// Whether an entry is being continued.
    pub fn is_pending(&self) -> bool {
        !self.buffer.is_empty()
    }

    /// The prompt to show for the next line.
    pub fn prompt(&self) -> &'static str {
        if self.is_pending() {
            CONTINUE_PROMPT
        } else {
            PROMPT
        }
    }

    /// Drops a partly entered entry (Ctrl-C).
    pub fn cancel(&mut self) {
        self.buffer.clear();
    }

    /// Handles one input line.
    pub fn handle_line(&mut self, line: &str) -> ReplOutput {
        let mut out = ReplOutput::default();
        if !self.buffer.is_empty() {
            let t = line.trim();
            let state = entry_state(&self.buffer);
            let in_text = matches!(state, EntryState::InString | EntryState::InComment);
            if t.starts_with(':') && !in_text {
                self.abandon(&mut out, "a `:` command");
                self.command(t, &mut out);
                return out;
            }
            if t.is_empty() && matches!(state, EntryState::Open('(' | '[')) {
                self.abandon(&mut out, "a blank line inside `(` or `[`");
                return out;
            }
        }
        if self.buffer.is_empty() {
            let t = line.trim();
            if t.is_empty() {
                return out;
            }
            if t.starts_with(':') {
                self.command(t, &mut out);
                return out;
            }
        }
        self.buffer.push_str(line);
        self.buffer.push('\n');
        if !is_complete(&self.buffer) {
            out.pending = true;
            return out;
        }
        let src = std::mem::take(&mut self.buffer);
        self.entries += 1;
        let name = format!("<repl:{}>", self.entries);
        let result = self.session.eval_named(&name, &src);
        out.stdout = String::from_utf8_lossy(&self.session.store_mut().take_output()).into_owned();
        if let Err(e) = result {
            out.stderr = e.render();
        }
        out
    }

    /// Ends input: an entry still open is reported with the compiler's
    /// diagnostic (nothing of it runs). `stderr` is empty when nothing was
    /// pending.
    pub fn finish(&mut self) -> ReplOutput {
        let mut out = ReplOutput::default();
        if self.is_pending() {
            self.abandon(&mut out, "the end of input");
        }
        out
    }

    /// Gives up the pending entry because of `why`: its compile error (an
    /// open bracket, string or comment never compiles, so nothing runs) and
    /// a note saying it was discarded.
    fn abandon(&mut self, out: &mut ReplOutput, why: &str) {
        let src = std::mem::take(&mut self.buffer);
        self.entries += 1;
        let name = format!("<repl:{}>", self.entries);
        if let Err(e) = self.session.eval_named(&name, &src) {
            out.stderr.push_str(&e.render());
        }
        out.stdout.push_str(&String::from_utf8_lossy(
            &self.session.store_mut().take_output(),
        ));
        out.stderr.push_str(&format!(
            "error: unfinished entry {name} discarded at {why}\n"
        ));
    }

    fn command(&mut self, cmd: &str, out: &mut ReplOutput) {
        let mut words = cmd.split_whitespace();
        let head = words.next().unwrap_or("");
        let arg = words.next();
        if words.next().is_some() {
            out.stderr.push_str(&format!(
                "error: too many arguments for `{head}` (see :help)\n"
            ));
            return;
        }
        let result: Result<String, Error> = match (head, arg) {
            (":help" | ":h", None) => Ok(HELP.to_string()),
            (":quit" | ":q" | ":exit", None) => {
                out.quit = true;
                Ok(String::new())
            }
            (":ir", Some(name)) => self.session.function_ir(name),
            (":opt", Some(name)) => self.session.function_opt_ir(name),
            (":vsdg", Some(name)) => self.session.function_vsdg(name),
            (":asm", Some(name)) => self.session.function_asm(name),
            (":tier", Some(name)) => self.session.function_tier(name).and_then(|tier| {
                let (calls, loops) = self.session.function_counters(name)?;
                let count = |n: i32| {
                    if n == i32::MAX {
                        "-".to_string()
                    } else {
                        n.max(0).to_string()
                    }
                };
                Ok(format!(
                    "{name} runs on tier {tier} (calls left before promotion: {}, loop back edges left: {})\n",
                    count(calls),
                    count(loops)
                ))
            }),
            (":tier", None) => Ok(format!("tier for new code: {}\n", self.session.tier())),
            (":set-tier", Some(t)) => t
                .parse::<Tier>()
                .map_err(Error::Passes)
                .and_then(|tier| self.session.set_tier(tier).map(|()| tier))
                .map(|tier| format!("tier set to {tier}\n")),
            (":funcs", None) => Ok(self.list_functions()),
            (":globals", None) => Ok(self.list_globals()),
            (":heap", None) => {
                let s = self.session.store().heap_stats();
                Ok(format!(
                    "{} objects, {} bytes in use (peak {}), {} collections\n",
                    s.objects, s.live_bytes, s.peak_bytes, s.collections
                ))
            }
            (":ir" | ":opt" | ":vsdg" | ":asm" | ":set-tier", None) => Err(Error::Passes(format!(
                "`{head}` needs an argument (see :help)"
            ))),
            _ => Err(Error::Passes(format!(
                "unknown command `{cmd}` (see :help)"
            ))),
        };
        match result {
            Ok(text) => out.stdout.push_str(&text),
            Err(e) => out.stderr.push_str(&e.render()),
        }
    }

    fn list_functions(&self) -> String {
        let mut s = String::new();
        for f in self.session.functions() {
            s.push_str(&format!("fn {}{}", f.name, f.sig));
            s.push_str(&format!("    [{}]\n", f.tier));
        }
        for f in self.session.host_functions() {
            s.push_str(&format!("fn {}{}", f.name, f.sig));
            s.push_str("    [host]\n");
        }
        if s.is_empty() {
            s.push_str("no functions\n");
        }
        s
    }

    fn list_globals(&self) -> String {
        let globals = self.session.globals();
        let mut s = String::new();
        for (i, g) in globals.iter().enumerate() {
            let shadowed = globals[i + 1..].iter().any(|h| h.name == g.name);
            if shadowed {
                continue;
            }
            let value = self.session.global(&g.name).map(|v| match v {
                waddle::Val::Str(text) => {
                    let mut q = Vec::new();
                    waddle::tooling::write_escaped(&mut q, text.as_bytes());
                    String::from_utf8_lossy(&q).into_owned()
                }
                v => v.to_string(),
            });
            s.push_str(&format!(
                "{}: {} = {}\n",
                g.name,
                g.ty,
                value.unwrap_or_default()
            ));
        }
        if s.is_empty() {
            s.push_str("no globals\n");
        }
        s
    }
}

/// Runs the REPL on standard input until `:quit` or the end of input
/// (rustyline on a terminal, [`lines::PipedLines`] otherwise). Returns the
/// process exit status: 1 when input ended inside an entry or could not be
/// read, else 0 (errors in entries do not change it).
pub fn run_interactive(config: Config) -> i32 {
    use std::io::IsTerminal as _;
    let mut repl = match Repl::new(config, OutputSink::Stdout) {
        Ok(r) => r,
        Err(e) => {
            eprint!("{}", e.render());
            return e.exit_code();
        }
    };
    interrupt::install(repl.session.store().interrupt_handle());
    let mut source = if std::io::stdin().is_terminal() {
        match lines::EditorLines::new() {
            Ok(ed) => lines::LineSource::Editor(Box::new(ed)),
            Err(e) => {
                eprintln!("error: cannot start the line editor: {e}");
                return 1;
            }
        }
    } else {
        lines::LineSource::Piped(lines::PipedLines::new(std::io::stdin().lock()))
    };
    println!(
        "Waddle {} REPL. Type :help for commands, :quit to leave.",
        env!("CARGO_PKG_VERSION")
    );
    let status = drive(&mut repl, &mut source);
    source.close();
    status
}

/// Feeds lines from `source` to `repl`, printing what it answers; the exit
/// status (see [`run_interactive`]).
pub fn drive(repl: &mut Repl, source: &mut lines::LineSource<'_>) -> i32 {
    use std::io::Write as _;
    let show = |out: &ReplOutput| {
        print!("{}", out.stdout);
        let _ = std::io::stdout().flush();
        eprint!("{}", out.stderr);
    };
    loop {
        match source.next_line(repl.prompt()) {
            lines::Line::Text(line) => {
                let out = repl.handle_line(&line);
                show(&out);
                if out.quit {
                    return 0;
                }
            }
            lines::Line::Invalid(why) => eprintln!("error: {why}; the line was skipped"),
            lines::Line::Interrupted => repl.cancel(),
            lines::Line::End => {
                let out = repl.finish();
                show(&out);
                return i32::from(!out.stderr.is_empty());
            }
            lines::Line::Failed(why) => {
                eprintln!("error: {why}");
                return 1;
            }
        }
    }
}

/// Ctrl-C while an entry runs: SIGINT interrupts the running code (it
/// stops with `interrupted` at its next function entry or loop back edge
/// and the session keeps its state) instead of killing the REPL. While a
/// line is read, the line editor's raw mode turns Ctrl-C into
/// `ReadlineError::Interrupted` instead of a signal.
mod interrupt {
    use std::sync::OnceLock;

    use waddle::InterruptHandle;

    /// The handle the signal handler uses (set once, before the handler).
    static HANDLE: OnceLock<InterruptHandle> = OnceLock::new();

    extern "C" fn on_sigint(_: libc::c_int) {
        // Async-signal-safe: an atomic load of the initialized cell and an
        // atomic store in the handle; no allocation, no lock.
        if let Some(h) = HANDLE.get() {
            h.interrupt();
        }
    }

    /// Routes SIGINT to `handle` for the rest of the process.
    pub(super) fn install(handle: InterruptHandle) {
        if HANDLE.set(handle).is_err() {
            return;
        }
        #[cfg(unix)]
        // SAFETY: `on_sigint` is async-signal-safe (see above) and has the
        // signature `signal` expects.
        unsafe {
            libc::signal(
                libc::SIGINT,
                on_sigint as extern "C" fn(libc::c_int) as libc::sighandler_t,
            );
        }
    }
}

#[cfg(test)]
mod tests;
