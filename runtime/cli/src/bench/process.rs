//! Running one measured child process: its output, exit status, wall time,
//! CPU time and peak resident memory.
//!
//! On 64-bit Linux the child is reaped with `wait4`, whose `rusage` is that
//! one child's own (unlike `getrusage(RUSAGE_CHILDREN)`, which is a maximum
//! over every child waited for so far). Elsewhere the process is reaped by
//! `std` and the memory and CPU figures are unknown.

use std::io::Read;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

/// What a finished child did.
#[derive(Clone, Debug)]
pub struct ChildRun {
    /// Standard output.
    pub stdout: Vec<u8>,
    /// Standard error, lossily decoded.
    pub stderr: String,
    /// Exit status, or `None` when killed by a signal.
    pub exit_code: Option<i32>,
    /// The signal that ended it, if any.
    pub signal: Option<i32>,
    /// From spawn to reaped.
    pub wall: Duration,
    /// User plus system CPU time (when known).
    pub cpu: Option<Duration>,
    /// Peak resident set size in KiB (when known).
    pub peak_rss_kib: Option<u64>,
}

impl ChildRun {
    /// Whether it exited with status 0.
    pub fn success(&self) -> bool {
        self.exit_code == Some(0)
    }

    /// A one-line description of an unsuccessful end.
    pub fn failure(&self) -> String {
        let how = match (self.exit_code, self.signal) {
            (Some(c), _) => format!("exit status {c}"),
            (None, Some(s)) => format!("killed by signal {s}"),
            (None, None) => "unknown end".to_string(),
        };
        let first = self.stderr.lines().next().unwrap_or("").trim();
        if first.is_empty() {
            how
        } else {
            format!("{how}: {first}")
        }
    }
}

/// Runs `cmd` to completion with stdin closed and both outputs captured.
pub fn run(cmd: Command) -> Result<ChildRun, String> {
    run_limited(cmd, None)
}

/// [`run`], killing the child (`SIGKILL`) once it has used `limit` of CPU
/// time, or run for [`WALL_FACTOR`] times `limit` of wall time (where the
/// child's CPU time is unknown: once it has run for `limit`). On a machine
/// shared with other work a wall-clock limit measured the load: a child
/// that needed 60 s of CPU was killed at 120 s of wall time.
pub fn run_limited(mut cmd: Command, limit: Option<Duration>) -> Result<ChildRun, String> {
    cmd.stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    let program = cmd.get_program().to_string_lossy().into_owned();
    let start = Instant::now();
    let mut child = cmd
        .spawn()
        .map_err(|e| format!("cannot start `{program}`: {e}"))?;
    let watchdog = limit.map(|limit| Watchdog::start(child.id(), limit));
    let mut out = child.stdout.take();
    let mut err = child.stderr.take();
    let err_reader = std::thread::spawn(move || {
        let mut buf = Vec::new();
        if let Some(e) = err.as_mut() {
            let _ = e.read_to_end(&mut buf);
        }
        buf
    });
    let mut stdout = Vec::new();
    if let Some(o) = out.as_mut() {
        let _ = o.read_to_end(&mut stdout);
    }
    let stderr = err_reader.join().unwrap_or_default();
    let status = reap(&mut child)?;
    let wall = start.elapsed();
    drop(watchdog);
    Ok(ChildRun {
        stdout,
        stderr: String::from_utf8_lossy(&stderr).into_owned(),
        exit_code: status.exit_code,
        signal: status.signal,
        wall,
        cpu: status.cpu,
        peak_rss_kib: status.peak_rss_kib,
    })
}

/// Kills a child process that runs past its time limit, unless dropped
/// first (which must happen before the child is reaped, so the pid cannot
/// have been reused).
struct Watchdog {
    done: Option<std::sync::mpsc::Sender<()>>,
    thread: Option<std::thread::JoinHandle<()>>,
}

/// How many times its CPU-time limit a child may run in wall time.
pub const WALL_FACTOR: u32 = 4;

/// How often the watchdog reads the child's CPU time.
const POLL: Duration = Duration::from_millis(100);

impl Watchdog {
    fn start(pid: u32, limit: Duration) -> Watchdog {
        let (done, wait) = std::sync::mpsc::channel::<()>();
        let thread = std::thread::spawn(move || {
            let start = Instant::now();
            while let Err(std::sync::mpsc::RecvTimeoutError::Timeout) = wait.recv_timeout(POLL) {
                let wall = start.elapsed();
                let over = match child_cpu_time(pid) {
                    Some(cpu) => cpu >= limit || wall >= limit * WALL_FACTOR,
                    None => wall >= limit,
                };
                if over {
                    kill(pid);
                    return;
                }
            }
        });
        Watchdog {
            done: Some(done),
            thread: Some(thread),
        }
    }
}

impl Drop for Watchdog {
    fn drop(&mut self) {
        // Dropping the sender wakes the thread without a kill.
        drop(self.done.take());
        if let Some(t) = self.thread.take() {
            let _ = t.join();
        }
    }
}

/// User + system CPU time of the running process `pid` (from
/// `/proc/PID/stat`), where the system reports it.
#[cfg(all(target_os = "linux", target_pointer_width = "64"))]
fn child_cpu_time(pid: u32) -> Option<Duration> {
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).ok()?;
    // The fields after the command name (in parentheses, which may hold
    // spaces): state is field 3, utime 14 and stime 15.
    let rest = &stat[stat.rfind(')')? + 1..];
    let fields: Vec<&str> = rest.split_whitespace().collect();
    let ticks: u64 = fields.get(11)?.parse::<u64>().ok()? + fields.get(12)?.parse::<u64>().ok()?;
    // SAFETY: `sysconf` only reads a configuration value.
    let hz = unsafe { sys::sysconf(sys::SC_CLK_TCK) };
    (hz > 0).then(|| Duration::from_secs_f64(ticks as f64 / hz as f64))
}

/// The CPU time of a running child is not known here.
#[cfg(not(all(target_os = "linux", target_pointer_width = "64")))]
fn child_cpu_time(_pid: u32) -> Option<Duration> {
    None
}

/// Sends `SIGKILL` to `pid`.
#[cfg(unix)]
fn kill(pid: u32) {
    extern "C" {
        fn kill(pid: i32, sig: i32) -> i32;
    }
    // SAFETY: plain system call; `pid` is our unreaped child (see
    // `Watchdog`), so it names no other process.
    unsafe {
        kill(pid as i32, 9);
    }
}

/// No way to kill a process by id here: the limit is not enforced.
#[cfg(not(unix))]
fn kill(_pid: u32) {}

/// How a reaped child ended and what it used.
struct Reaped {
    exit_code: Option<i32>,
    signal: Option<i32>,
    cpu: Option<Duration>,
    peak_rss_kib: Option<u64>,
}

#[cfg(all(target_os = "linux", target_pointer_width = "64"))]
mod sys {
    use std::os::raw::{c_int, c_long};

    /// `struct timeval` on 64-bit Linux.
    #[repr(C)]
    #[derive(Default, Clone, Copy)]
    pub struct Timeval {
        pub tv_sec: c_long,
        pub tv_usec: c_long,
    }

    /// `struct rusage` on 64-bit Linux (`ru_maxrss` is in KiB).
    #[repr(C)]
    #[derive(Default, Clone, Copy)]
    pub struct Rusage {
        pub ru_utime: Timeval,
        pub ru_stime: Timeval,
        pub ru_maxrss: c_long,
        pub rest: [c_long; 13],
    }

    extern "C" {
        pub fn wait4(pid: c_int, status: *mut c_int, options: c_int, rusage: *mut Rusage) -> c_int;
    }

    /// `struct timespec` on 64-bit Linux.
    #[repr(C)]
    #[derive(Default, Clone, Copy)]
    pub struct Timespec {
        pub tv_sec: c_long,
        pub tv_nsec: c_long,
    }

    extern "C" {
        pub fn clock_gettime(clock: c_int, tp: *mut Timespec) -> c_int;
    }

    /// `CLOCK_PROCESS_CPUTIME_ID`.
    pub const CLOCK_PROCESS_CPUTIME_ID: c_int = 2;

    extern "C" {
        pub fn sysconf(name: c_int) -> c_long;
    }

    extern "C" {
        pub fn getrusage(who: c_int, usage: *mut Rusage) -> c_int;
    }

    /// `RUSAGE_SELF`.
    pub const RUSAGE_SELF: c_int = 0;

    /// Index of `ru_minflt` in [`Rusage::rest`] (after `ru_ixrss`,
    /// `ru_idrss`, `ru_isrss`).
    pub const MINFLT: usize = 3;

    /// `_SC_PAGESIZE` on Linux.
    pub const SC_PAGESIZE: c_int = 30;

    /// `_SC_CLK_TCK` (the unit of `/proc/PID/stat`'s CPU times) on Linux.
    pub const SC_CLK_TCK: c_int = 2;

    /// `errno` value of an interrupted call.
    pub const EINTR: i32 = 4;
}

#[cfg(all(target_os = "linux", target_pointer_width = "64"))]
fn reap(child: &mut std::process::Child) -> Result<Reaped, String> {
    let pid = child.id() as i32;
    let mut status: i32 = 0;
    let mut usage = sys::Rusage::default();
    loop {
        // SAFETY: `pid` is our own unreaped child (std has not waited for
        // it), and both out-pointers are valid for writes of their types.
        let r = unsafe { sys::wait4(pid, &mut status, 0, &mut usage) };
        if r == pid {
            break;
        }
        let err = std::io::Error::last_os_error();
        if err.raw_os_error() != Some(sys::EINTR) {
            return Err(format!("wait4 failed: {err}"));
        }
    }
    let tv = |t: sys::Timeval| {
        Duration::from_secs(t.tv_sec.max(0) as u64) + Duration::from_micros(t.tv_usec.max(0) as u64)
    };
    let (exit_code, signal) = if status & 0x7f == 0 {
        (Some((status >> 8) & 0xff), None)
    } else {
        (None, Some(status & 0x7f))
    };
    Ok(Reaped {
        exit_code,
        signal,
        cpu: Some(tv(usage.ru_utime) + tv(usage.ru_stime)),
        peak_rss_kib: Some(usage.ru_maxrss.max(0) as u64),
    })
}

#[cfg(not(all(target_os = "linux", target_pointer_width = "64")))]
fn reap(child: &mut std::process::Child) -> Result<Reaped, String> {
    let status = child.wait().map_err(|e| format!("wait failed: {e}"))?;
    Ok(Reaped {
        exit_code: status.code(),
        signal: None,
        cpu: None,
        peak_rss_kib: None,
    })
}

/// CPU time used so far by this process (all threads), where known.
#[cfg(all(target_os = "linux", target_pointer_width = "64"))]
pub fn process_cpu_time() -> Option<Duration> {
    let mut ts = sys::Timespec::default();
    // SAFETY: `ts` is valid for writes of a `timespec`.
    let r = unsafe { sys::clock_gettime(sys::CLOCK_PROCESS_CPUTIME_ID, &mut ts) };
    (r == 0).then(|| {
        Duration::new(
            ts.tv_sec.max(0) as u64,
            ts.tv_nsec.clamp(0, 999_999_999) as u32,
        )
    })
}

/// CPU time used so far by this process (all threads), where known.
#[cfg(not(all(target_os = "linux", target_pointer_width = "64")))]
pub fn process_cpu_time() -> Option<Duration> {
    None
}

/// What this process has used so far of what a compile's memory traffic
/// costs: system CPU time (mostly page faults) and the memory faulted in
/// (minor faults, each a fresh page).
#[derive(Copy, Clone, Debug, Default, PartialEq)]
pub struct MemoryUsage {
    /// System CPU time of the process (all threads).
    pub sys: Duration,
    /// Bytes of minor page faults (faults times the page size).
    pub faulted_bytes: u64,
}

/// [`MemoryUsage`] of this process so far, where known.
#[cfg(all(target_os = "linux", target_pointer_width = "64"))]
pub fn own_memory_usage() -> Option<MemoryUsage> {
    let mut usage = sys::Rusage::default();
    // SAFETY: `usage` is valid for writes of a `struct rusage`.
    let r = unsafe { sys::getrusage(sys::RUSAGE_SELF, &mut usage) };
    // SAFETY: `sysconf` only reads its argument.
    let page = unsafe { sys::sysconf(sys::SC_PAGESIZE) };
    (r == 0 && page > 0).then(|| MemoryUsage {
        sys: Duration::new(
            usage.ru_stime.tv_sec.max(0) as u64,
            (usage.ru_stime.tv_usec.clamp(0, 999_999) * 1000) as u32,
        ),
        faulted_bytes: usage.rest[sys::MINFLT].max(0) as u64 * page as u64,
    })
}

/// [`MemoryUsage`] of this process so far, where known.
#[cfg(not(all(target_os = "linux", target_pointer_width = "64")))]
pub fn own_memory_usage() -> Option<MemoryUsage> {
    None
}

/// The marker of the launcher's report line (see `launch.c`).
pub const LAUNCHER_MARKER: &str = "waddle-bench-rusage";

/// Runs `argv` through the launcher (`launch.c`, compiled), which reports
/// the program's own peak memory and CPU time; the report line is removed
/// from standard error.
pub fn run_launched(
    launcher: &std::path::Path,
    argv: &[std::path::PathBuf],
) -> Result<ChildRun, String> {
    let mut cmd = Command::new(launcher);
    cmd.args(argv);
    let mut run = run(cmd)?;
    let Some(pos) = run.stderr.rfind(LAUNCHER_MARKER) else {
        return Err(format!("the launcher did not report ({})", run.failure()));
    };
    let fields: Vec<u64> = run.stderr[pos + LAUNCHER_MARKER.len()..]
        .split_whitespace()
        .filter_map(|f| f.parse().ok())
        .collect();
    let [maxrss, utime, stime] = fields[..] else {
        return Err("malformed launcher report".to_string());
    };
    run.peak_rss_kib = Some(maxrss);
    run.cpu = Some(Duration::from_micros(utime + stime));
    let mut rest = run.stderr[..pos].to_string();
    if rest.ends_with('\n') {
        rest.pop();
    }
    run.stderr = rest;
    if let Some(code) = run.exit_code.filter(|&c| c > 128) {
        run.exit_code = None;
        run.signal = Some(code - 128);
    }
    Ok(run)
}

/// This process's peak resident set size in KiB (`VmHWM` of
/// `/proc/self/status`), where the system reports it.
pub fn own_peak_rss_kib() -> Option<u64> {
    let status = std::fs::read_to_string("/proc/self/status").ok()?;
    let line = status.lines().find(|l| l.starts_with("VmHWM:"))?;
    line.split_whitespace().nth(1)?.parse().ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[cfg(all(target_os = "linux", target_pointer_width = "64"))]
    #[test]
    fn touching_fresh_memory_counts_as_faulted_in() {
        let before = own_memory_usage().expect("getrusage works on Linux");
        // 64 MiB: a fresh mapping of its own, every page written once.
        let mut block = vec![0u8; 64 << 20];
        for i in (0..block.len()).step_by(4096) {
            block[i] = 1;
        }
        std::hint::black_box(&block);
        let after = own_memory_usage().expect("getrusage works on Linux");
        let faulted = after.faulted_bytes - before.faulted_bytes;
        assert!(faulted >= 32 << 20, "faulted {faulted} bytes");
        assert!(after.sys >= before.sys);
    }

    #[cfg(all(target_os = "linux", target_pointer_width = "64"))]
    #[test]
    fn the_limit_counts_cpu_time_not_waiting() {
        // A child that waits uses no CPU: it outlives a limit shorter than
        // its wait (up to `WALL_FACTOR` times the limit in wall time).
        let mut cmd = Command::new("sh");
        cmd.args(["-c", "sleep 1; echo done"]);
        let run = run_limited(cmd, Some(Duration::from_millis(500))).unwrap();
        assert_eq!(run.signal, None, "{}", run.failure());
        assert_eq!(run.stdout, b"done\n");
        // A busy child is stopped once its CPU time reaches the limit.
        let mut cmd = Command::new("sh");
        cmd.args(["-c", "while :; do :; done"]);
        let run = run_limited(cmd, Some(Duration::from_millis(300))).unwrap();
        assert_eq!(run.signal, Some(9));
        assert!(run.cpu.is_some_and(|c| c >= Duration::from_millis(300)));
    }

    #[test]
    fn captures_output_and_status() {
        let mut cmd = Command::new("sh");
        cmd.args(["-c", "echo out; echo err >&2; exit 3"]);
        let run = run(cmd).unwrap();
        assert_eq!(run.stdout, b"out\n");
        assert_eq!(run.stderr, "err\n");
        assert_eq!(run.exit_code, Some(3));
        assert!(!run.success());
        assert_eq!(run.failure(), "exit status 3: err");
        if cfg!(target_os = "linux") {
            assert!(run.peak_rss_kib.unwrap() > 0);
        }
    }

    #[test]
    fn the_launcher_report_is_parsed_and_removed() {
        let script =
            std::env::temp_dir().join(format!("waddle-bench-fake-launcher-{}", std::process::id()));
        std::fs::write(
            &script,
            "#!/bin/sh\necho hi\necho warn >&2\nprintf '\\nwaddle-bench-rusage 1234 1000 500\\n' >&2\nexit 0\n",
        )
        .unwrap();
        let _ = Command::new("chmod").arg("+x").arg(&script).status();
        let run = run_launched(&script, &[]).unwrap();
        let _ = std::fs::remove_file(&script);
        assert_eq!(run.stdout, b"hi\n");
        assert_eq!(run.stderr, "warn\n");
        assert_eq!(run.peak_rss_kib, Some(1234));
        assert_eq!(run.cpu, Some(Duration::from_micros(1500)));
    }

    #[test]
    fn cpu_time_advances() {
        if let Some(a) = process_cpu_time() {
            let mut x = 0u64;
            for i in 0..2_000_000u64 {
                x = std::hint::black_box(x.wrapping_mul(31).wrapping_add(i));
            }
            assert!(process_cpu_time().unwrap() > a, "{x}");
        }
    }

    #[test]
    fn a_missing_program_is_an_error() {
        assert!(run(Command::new("/nonexistent/waddle-bench-test")).is_err());
    }
}
