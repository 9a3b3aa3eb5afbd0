//! `difftest`: generates programs ([`waddle_lang_tests::gen`]), runs each
//! on every tier (and AArch64 under qemu with `--aarch64`), compares stdout,
//! stderr and exit status with the interpreter, and writes a minimized
//! reproducer for every mismatch.
//!
//! ```text
//! cargo run --release -p waddle-lang-tests --bin difftest -- --count 1000 --seed 1
//! cargo run --release -p waddle-lang-tests --bin difftest -- --print 1234   # show a program
//! ```
//!
//! Programs run in worker processes (this binary with `--worker`), so a
//! crash or hang of generated code is caught and reported as a mismatch of
//! its own (`crash`, `timeout`) instead of ending the run.

use std::io::{BufRead, BufReader, Read, Write};
use std::path::PathBuf;
use std::process::{Child, ChildStdin, Command, Stdio};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::mpsc::{self, Receiver, RecvTimeoutError};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use clap::Parser;
use waddle_lang_tests::difftest::{
    self, aarch64_configs, host_configs, same_problem, signature, Config, Limits,
};
use waddle_lang_tests::gen::{generate, GenConfig};
use waddle_lang_tests::validate_gen::{validate_generated, ValidatedPipeline};

/// Differential testing of every tier against the interpreter.
#[derive(Parser, Debug, Clone)]
#[command(name = "difftest")]
struct Args {
    /// Number of programs.
    #[arg(long, default_value_t = 100)]
    count: u64,
    /// Seed of the first program (program k uses seed + k).
    #[arg(long, default_value_t = 1)]
    seed: u64,
    /// Worker processes (default: the number of CPUs).
    #[arg(long)]
    jobs: Option<usize>,
    /// Directory for reproducers of mismatches.
    #[arg(long, default_value = "difftest-out")]
    out: PathBuf,
    /// Also run on AArch64 under qemu-aarch64.
    #[arg(long)]
    aarch64: bool,
    /// Run only the AArch64 configurations (plus the reference).
    #[arg(long)]
    aarch64_only: bool,
    /// Only these configurations (comma separated names, e.g. `opt-O2`).
    #[arg(long, value_delimiter = ',')]
    configs: Option<Vec<String>>,
    /// Run every configuration with this fuel budget.
    #[arg(long)]
    fuel: Option<u64>,
    /// Run every configuration with this heap limit in bytes.
    #[arg(long)]
    memory_limit: Option<usize>,
    /// Seconds one program may take on all configurations together.
    #[arg(long, default_value_t = 120)]
    timeout: u64,
    /// Do not minimize mismatching programs.
    #[arg(long)]
    no_minimize: bool,
    /// Statements of top-level code per program.
    #[arg(long)]
    statements: Option<usize>,
    /// Generate the smaller programs the CI test uses.
    #[arg(long)]
    small: bool,
    /// Print the program of this seed and exit.
    #[arg(long)]
    print: Option<u64>,
    /// Instead of running the tiers, validate the `-O2` optimization of
    /// every function of the programs (translation validation, issue 14)
    /// and print the validated % and every function that does not
    /// validate.
    #[arg(long)]
    validate: bool,
    /// With `--validate`: the pipeline of this tier (`opt`: `-O2`; `full`:
    /// `-O2`, the VSDG round trip and its cleanup).
    #[arg(long, requires = "validate", value_parser = ["opt", "full"], default_value = "opt")]
    validate_tier: String,
    /// Internal: serve requests from the parent on stdin.
    #[arg(long, hide = true)]
    worker: bool,
}

impl Args {
    fn gen_config(&self) -> GenConfig {
        let mut c = if self.small {
            GenConfig::small()
        } else {
            GenConfig::default()
        };
        if let Some(n) = self.statements {
            c.statements = n;
        }
        c
    }

    fn limits(&self) -> Limits {
        Limits {
            fuel: self.fuel,
            memory_limit: self.memory_limit,
        }
    }

    fn configs(&self) -> Vec<Config> {
        let mut all = if self.aarch64_only {
            vec![Config::host(waddle::Tier::Interp, 0)]
        } else {
            host_configs()
        };
        if self.aarch64 || self.aarch64_only {
            all.extend(aarch64_configs());
        }
        if let Some(names) = &self.configs {
            all.retain(|c| names.iter().any(|n| n == &c.name));
        }
        if self.fuel.is_some() {
            // Fuel counts the code of the `-O` pipeline; `--tier full`
            // optimizes that code further (the VSDG round trip), so its
            // count is its own. `auto` promotes to T3 without the round
            // trip under a budget and stays comparable.
            all.retain(|c| c.tier != waddle::Tier::Full);
        }
        all
    }

    /// The arguments a worker needs to run programs the same way.
    fn worker_args(&self) -> Vec<String> {
        let mut a = vec!["--worker".to_string()];
        if self.aarch64 {
            a.push("--aarch64".into());
        }
        if self.aarch64_only {
            a.push("--aarch64-only".into());
        }
        if let Some(c) = &self.configs {
            a.push(format!("--configs={}", c.join(",")));
        }
        if let Some(f) = self.fuel {
            a.push(format!("--fuel={f}"));
        }
        if let Some(m) = self.memory_limit {
            a.push(format!("--memory-limit={m}"));
        }
        if let Some(s) = self.statements {
            a.push(format!("--statements={s}"));
        }
        if self.small {
            a.push("--small".into());
        }
        a
    }
}

fn main() {
    let args = Args::parse();
    if let Some(seed) = args.print {
        print!("{}", generate(seed, &args.gen_config()));
        return;
    }
    if args.worker {
        worker(&args);
        return;
    }
    if args.validate {
        std::process::exit(validate(&args));
    }
    std::process::exit(parent(&args));
}

/// `--validate`: the validated % of the programs' functions.
fn validate(args: &Args) -> i32 {
    let which = if args.validate_tier == "full" {
        ValidatedPipeline::Full
    } else {
        ValidatedPipeline::O2
    };
    let v = match validate_generated(args.seed, args.count, &args.gen_config(), which) {
        Ok(v) => v,
        Err(e) => {
            eprintln!("error: {e}");
            return 1;
        }
    };
    for f in &v.failures {
        println!("  gen-{}: {}: {}", f.seed, f.func, f.message);
    }
    let pct = 100.0 * f64::from(v.validated) / f64::from(v.funcs.max(1));
    println!(
        "validated {} of {} functions ({pct:.1}%; {} by per-pass chain) of {} programs (seeds {}..{}, {} pipeline)",
        v.validated,
        v.funcs,
        v.chained,
        v.programs,
        args.seed,
        args.seed + args.count,
        args.validate_tier
    );
    println!(
        "time: passes {:.3} s, validate {:.3} s (validate/passes {:.2})",
        v.passes.as_secs_f64(),
        v.validate.as_secs_f64(),
        v.validate.as_secs_f64() / v.passes.as_secs_f64().max(1e-9)
    );
    0
}

/// Worker: `run SEED` checks the generated program; `check LEN CONFIGS`
/// followed by LEN bytes of source checks that source on the named
/// configurations (`*` for all). Each request is answered by one line
/// `result SIGNATURE` (`ok` when there is no mismatch).
fn worker(args: &Args) {
    std::panic::set_hook(Box::new(|_| {}));
    let configs = args.configs();
    let limits = args.limits();
    let gen = args.gen_config();
    let stdin = std::io::stdin();
    let mut input = stdin.lock();
    let mut out = std::io::stdout();
    let mut line = String::new();
    loop {
        line.clear();
        if input.read_line(&mut line).unwrap_or(0) == 0 {
            return;
        }
        let words: Vec<&str> = line.split_whitespace().collect();
        let (name, source, subset) = match words.as_slice() {
            ["run", seed] => {
                let Ok(seed) = seed.parse::<u64>() else {
                    return;
                };
                (format!("gen-{seed}.wdl"), generate(seed, &gen), None)
            }
            ["check", len, which] => {
                let Ok(len) = len.parse::<usize>() else {
                    return;
                };
                let mut buf = vec![0; len];
                if input.read_exact(&mut buf).is_err() {
                    return;
                }
                let subset = (*which != "*").then(|| which.to_string());
                (
                    "min.wdl".to_string(),
                    String::from_utf8_lossy(&buf).into_owned(),
                    subset,
                )
            }
            _ => return,
        };
        let chosen: Vec<Config> = match &subset {
            None => configs.clone(),
            Some(names) => configs
                .iter()
                .filter(|c| names.split(',').any(|n| n == c.name))
                .cloned()
                .collect(),
        };
        let (mismatches, reference) =
            difftest::check_with_reference(&name, &source, &chosen, limits);
        let sig = signature(&mismatches);
        let sig = if sig.is_empty() {
            "ok".to_string()
        } else {
            sig
        };
        let _ = writeln!(out, "result {sig}");
        if let Some(r) = &reference {
            let _ = writeln!(out, "ending {}", difftest::ending_kind(r));
        }
        for m in &mismatches {
            for l in m.report().lines() {
                let _ = writeln!(out, "| {l}");
            }
        }
        let _ = writeln!(out, "end");
        let _ = out.flush();
    }
}

/// A worker process and the channel its answers arrive on.
struct Worker {
    child: Child,
    stdin: ChildStdin,
    answers: Receiver<Option<String>>,
}

/// What a worker said about one request.
struct Answer {
    /// `ok`, a mismatch signature, `crash` or `timeout`.
    signature: String,
    /// How the reference run ended (see [`difftest::ending_kind`]).
    ending: String,
    /// The mismatch reports.
    report: String,
}

impl Worker {
    fn spawn(args: &[String]) -> std::io::Result<Worker> {
        let exe = std::env::current_exe()?;
        let mut child = Command::new(exe)
            .args(args)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()?;
        let stdin = child.stdin.take().expect("piped stdin");
        let stdout = child.stdout.take().expect("piped stdout");
        let (tx, answers) = mpsc::channel();
        std::thread::spawn(move || {
            for line in BufReader::new(stdout).lines() {
                let Ok(line) = line else { break };
                if tx.send(Some(line)).is_err() {
                    return;
                }
            }
            let _ = tx.send(None);
        });
        Ok(Worker {
            child,
            stdin,
            answers,
        })
    }

    /// Sends `request` and waits for the answer; `None` (after killing the
    /// worker) on a crash or timeout, with the reason.
    fn ask(&mut self, request: &[u8], timeout: Duration) -> Result<Answer, &'static str> {
        if self
            .stdin
            .write_all(request)
            .and_then(|()| self.stdin.flush())
            .is_err()
        {
            return Err("crash");
        }
        let deadline = Instant::now() + timeout;
        let mut signature = None;
        let mut ending = String::new();
        let mut report = String::new();
        loop {
            let left = deadline.saturating_duration_since(Instant::now());
            match self.answers.recv_timeout(left) {
                Ok(Some(line)) => {
                    if let Some(sig) = line.strip_prefix("result ") {
                        signature = Some(sig.to_string());
                    } else if let Some(e) = line.strip_prefix("ending ") {
                        ending = e.to_string();
                    } else if let Some(r) = line.strip_prefix("| ") {
                        report.push_str(r);
                        report.push('\n');
                    } else if line == "end" {
                        if let Some(signature) = signature {
                            return Ok(Answer {
                                signature,
                                ending,
                                report,
                            });
                        }
                    }
                }
                Ok(None) | Err(RecvTimeoutError::Disconnected) => return Err("crash"),
                Err(RecvTimeoutError::Timeout) => {
                    let _ = self.child.kill();
                    return Err("timeout");
                }
            }
        }
    }
}

impl Drop for Worker {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// Asks a (re)spawned worker; a crash or timeout becomes that signature
/// and the worker is replaced.
fn ask(slot: &mut Option<Worker>, args: &[String], request: &[u8], timeout: Duration) -> Answer {
    if slot.is_none() {
        match Worker::spawn(args) {
            Ok(w) => *slot = Some(w),
            Err(e) => {
                return Answer {
                    signature: "crash".into(),
                    ending: String::new(),
                    report: format!("cannot start a worker: {e}\n"),
                }
            }
        }
    }
    let worker = slot.as_mut().expect("a worker");
    match worker.ask(request, timeout) {
        Ok(a) => a,
        Err(why) => {
            *slot = None;
            Answer {
                signature: why.to_string(),
                ending: why.to_string(),
                report: format!("the worker process ended with a {why}\n"),
            }
        }
    }
}

/// A program that mismatched.
struct Found {
    seed: u64,
    answer: Answer,
}

fn parent(args: &Args) -> i32 {
    let configs = args.configs();
    if configs.len() < 2 {
        eprintln!("difftest: fewer than two configurations selected");
        return 1;
    }
    if (args.aarch64 || args.aarch64_only) && waddle::cross::tools_available().is_err() {
        eprintln!(
            "difftest: --aarch64 needs qemu-aarch64 and aarch64-linux-gnu-gcc: {}",
            waddle::cross::tools_available().unwrap_err()
        );
        return 1;
    }
    let jobs = args
        .jobs
        .unwrap_or_else(|| std::thread::available_parallelism().map_or(2, |n| n.get()));
    let names: Vec<&str> = configs.iter().map(|c| c.name.as_str()).collect();
    eprintln!(
        "difftest: {} programs from seed {}, {} configurations ({}), {} workers",
        args.count,
        args.seed,
        configs.len(),
        names.join(" "),
        jobs
    );
    let start = Instant::now();
    let next = Arc::new(AtomicU64::new(0));
    let done = Arc::new(AtomicU64::new(0));
    let found: Arc<Mutex<Vec<Found>>> = Arc::new(Mutex::new(Vec::new()));
    let endings: Mutex<std::collections::BTreeMap<String, u64>> = Mutex::default();
    let wargs = args.worker_args();
    let timeout = Duration::from_secs(args.timeout);
    std::thread::scope(|scope| {
        for _ in 0..jobs.max(1) {
            let (next, done, found, wargs, endings) = (&next, &done, &found, &wargs, &endings);
            scope.spawn(move || {
                let mut slot = None;
                loop {
                    let k = next.fetch_add(1, Ordering::Relaxed);
                    if k >= args.count {
                        break;
                    }
                    let seed = args.seed + k;
                    let answer = ask(
                        &mut slot,
                        wargs,
                        format!("run {seed}\n").as_bytes(),
                        timeout,
                    );
                    *endings
                        .lock()
                        .unwrap()
                        .entry(answer.ending.clone())
                        .or_default() += 1;
                    if answer.signature != "ok" {
                        eprintln!("seed {seed}: MISMATCH {}", answer.signature);
                        found.lock().unwrap().push(Found { seed, answer });
                    }
                    let n = done.fetch_add(1, Ordering::Relaxed) + 1;
                    if n % 100 == 0 {
                        eprintln!(
                            "difftest: {n}/{} programs, {} mismatching, {:.0}s",
                            args.count,
                            found.lock().unwrap().len(),
                            start.elapsed().as_secs_f64()
                        );
                    }
                }
            });
        }
    });
    let mut found = Arc::try_unwrap(found)
        .map(|m| m.into_inner().unwrap())
        .unwrap_or_default();
    found.sort_by_key(|f| f.seed);
    let elapsed = start.elapsed();
    println!(
        "difftest: {} programs × {} configurations in {:.1}s: {} mismatching",
        args.count,
        configs.len(),
        elapsed.as_secs_f64(),
        found.len()
    );
    let endings = endings.into_inner().unwrap();
    let endings: Vec<String> = endings.iter().map(|(k, n)| format!("{k}: {n}")).collect();
    println!("difftest: reference outcomes: {}", endings.join(", "));
    if found.is_empty() {
        return 0;
    }
    if let Err(e) = std::fs::create_dir_all(&args.out) {
        eprintln!("difftest: cannot create {}: {e}", args.out.display());
        return 1;
    }
    for f in &found {
        let path = write_reproducer(args, &wargs, f, timeout);
        println!(
            "seed {}: {} -> {}",
            f.seed,
            f.answer.signature,
            path.display()
        );
    }
    1
}

/// Writes the (minimized) reproducer of `f`; returns its path.
fn write_reproducer(args: &Args, wargs: &[String], f: &Found, timeout: Duration) -> PathBuf {
    let original = generate(f.seed, &args.gen_config());
    let orig_path = args.out.join(format!("seed-{}.orig.wdl", f.seed));
    let _ = std::fs::write(&orig_path, &original);
    let sig = f.answer.signature.clone();
    // Only the configurations that mismatched (and their references) run
    // while minimizing.
    let subset: Vec<String> = sig
        .split_whitespace()
        .filter_map(|m| m.split_once(':').map(|(c, _)| c.to_string()))
        .collect();
    let which = if subset.is_empty() {
        "*".to_string()
    } else {
        subset.join(",")
    };
    let minimized = if args.no_minimize {
        original.clone()
    } else {
        let mut slot = None;
        let mut tries = 0;
        difftest::minimize(&original, |candidate| {
            tries += 1;
            let mut request = format!("check {} {which}\n", candidate.len()).into_bytes();
            request.extend_from_slice(candidate.as_bytes());
            let a = ask(&mut slot, wargs, &request, timeout);
            same_problem(&sig, &a.signature)
        })
    };
    // The final report of the minimized program.
    let mut slot = None;
    let mut request = format!("check {} {which}\n", minimized.len()).into_bytes();
    request.extend_from_slice(minimized.as_bytes());
    let answer = ask(&mut slot, wargs, &request, timeout);
    let mut text = format!(
        "// difftest mismatch: seed {} ({}), original in {}\n",
        f.seed,
        sig,
        orig_path.display()
    );
    text.push_str(&format!(
        "// reproduce: cargo run -p waddle-lang-tests --bin difftest -- --seed {} --count 1{}\n",
        f.seed,
        wargs
            .iter()
            .skip(1)
            .map(|a| format!(" {a}"))
            .collect::<String>()
    ));
    for l in answer.report.lines() {
        text.push_str("// ");
        text.push_str(l);
        text.push('\n');
    }
    text.push_str(&minimized);
    let path = args.out.join(format!("seed-{}.wdl", f.seed));
    let _ = std::fs::write(&path, text);
    path
}
