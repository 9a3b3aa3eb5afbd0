//! Calls that pause when their fuel runs out instead of failing, and
//! resume when refueled ([`TypedFunc::call_resumable`]).
//!
//! A resumable call runs on a thread of its own that owns the [`Store`]
//! for the duration of the call (a `Store` is `Send`). When the call needs
//! fuel the store does not have, the runtime (in [`Runtime`]'s fuel
//! charge, reached from every tier at function entries and loop back
//! edges) reports [`CallState::Paused`] to the embedder and blocks until it
//! is resumed with more fuel or cancelled; no tier needs to unwind or
//! capture its frames. Fuel is charged in batches of
//! [`FUEL_BATCH`] units, so a call pauses when the fuel left cannot
//! pay the next batch; the units are the same on every tier.
//!
//! [`Runtime`]: crate::host::Runtime

use std::sync::mpsc::{channel, Receiver, Sender};
use std::thread::JoinHandle;

use super::func::{TypedFunc, TypedParams, TypedResult};
use super::store::Store;
use crate::engine::panic_error;
use crate::error::Error;

/// Units of fuel the compiled tiers and the interpreter pay at once.
pub const FUEL_BATCH: u64 = waddle_opt::abi::FUEL_BATCH as u64;

/// What the running call tells the embedder.
enum Event {
    /// Out of fuel; waiting for [`Command`].
    Paused,
}

/// What the embedder tells a paused call.
enum Command {
    /// Add this much fuel and go on.
    Refuel(u64),
}

/// The running call's end of the channels, kept in the store's runtime
/// while a resumable call runs.
pub(crate) struct FuelYield {
    events: Sender<Event>,
    commands: Receiver<Command>,
}

impl FuelYield {
    /// Blocks until the embedder resumes the call: `Some(fuel)` to add, or
    /// `None` when the call is cancelled (the caller then fails with `out
    /// of fuel`).
    pub(crate) fn pause(&self) -> Option<u64> {
        self.events.send(Event::Paused).ok()?;
        match self.commands.recv() {
            Ok(Command::Refuel(n)) => Some(n),
            Err(_) => None,
        }
    }
}

/// A resumable call that has not finished ([`CallState::Paused`]).
/// Dropping it cancels the call; the store is then dropped with the
/// call's thread (use [`PausedCall::cancel`] to get it back).
pub struct PausedCall<R> {
    events: Receiver<Event>,
    commands: Sender<Command>,
    thread: Worker<R>,
}

/// The thread running a resumable call; `None` only if it never got the
/// store.
type Worker<R> = JoinHandle<Option<(Store, Result<R, Error>)>>;

impl<R> std::fmt::Debug for PausedCall<R> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("PausedCall").finish_non_exhaustive()
    }
}

/// Where a resumable call stands.
// The store is handed back by value, once per call: boxing it would only
// add an allocation.
#[allow(clippy::large_enum_variant)]
#[derive(Debug)]
pub enum CallState<R> {
    /// The call returned or failed; the store is handed back.
    Done(Store, Result<R, Error>),
    /// The call ran out of fuel and waits to be resumed or cancelled.
    Paused(PausedCall<R>),
}

impl<R> CallState<R> {
    /// The result and store of a finished call (`None` while paused).
    pub fn done(self) -> Option<(Store, Result<R, Error>)> {
        match self {
            CallState::Done(s, r) => Some((s, r)),
            CallState::Paused(_) => None,
        }
    }
}

impl<R: Send + 'static> PausedCall<R> {
    /// Adds `fuel` to the store and lets the call run on until it
    /// finishes or pauses again.
    pub fn resume(self, fuel: u64) -> CallState<R> {
        let _ = self.commands.send(Command::Refuel(fuel));
        wait(self.events, self.commands, self.thread)
    }

    /// Stops the call: it fails with [`crate::TrapCode::OutOfFuel`] where it
    /// paused, and the store is handed back (usable, like after any
    /// runtime error).
    pub fn cancel(self) -> (Store, Error) {
        let PausedCall {
            commands, thread, ..
        } = self;
        // Dropping the command sender wakes the call with `None`.
        drop(commands);
        match join(thread) {
            (store, Err(e)) => (store, e),
            (store, Ok(_)) => (
                store,
                Error::Internal("a cancelled call returned normally".to_string()),
            ),
        }
    }
}

fn join<R>(thread: Worker<R>) -> (Store, Result<R, Error>) {
    match thread.join() {
        Ok(Some(done)) => done,
        // The thread got the store before `wait` was reached, and the call
        // catches every panic of scripts, hosts and sinks itself; only a
        // bug in Waddle gets here, and the store is lost with the thread.
        Ok(None) => std::panic::panic_any(Error::Internal(
            "a resumable call lost its store".to_string(),
        )),
        Err(p) => std::panic::resume_unwind(p),
    }
}

/// Waits for the call on `thread` to pause or finish.
fn wait<R: Send + 'static>(
    events: Receiver<Event>,
    commands: Sender<Command>,
    thread: Worker<R>,
) -> CallState<R> {
    match events.recv() {
        Ok(Event::Paused) => CallState::Paused(PausedCall {
            events,
            commands,
            thread,
        }),
        // The call finished (its sender is gone with the store's yield
        // state).
        Err(_) => {
            let (store, result) = join(thread);
            CallState::Done(store, result)
        }
    }
}

impl<P, R> TypedFunc<P, R>
where
    P: TypedParams + Send + 'static,
    R: TypedResult + Send + 'static,
{
    /// Calls the function like [`TypedFunc::call`], but pauses instead of
    /// failing when the store's fuel runs out: the result is
    /// [`CallState::Paused`], and [`PausedCall::resume`] adds fuel and
    /// continues from where the call stopped, on any tier. The call runs on
    /// a thread of its own (with a stack of the store's stack limit plus
    /// 1 MiB), which owns `store` until the call is done.
    ///
    /// ```
    /// use waddle::{CallState, Engine, Module, Store};
    /// let engine = Engine::default();
    /// let module = Module::new(&engine, "m.wdl",
    ///     "fn sum(n: int) -> int { var s = 0; for i in 0..n { s += i; } return s; }")?;
    /// let mut store = Store::new(&engine);
    /// let instance = store.instantiate(&module)?;
    /// let sum = instance.typed_func::<(i64,), i64>(&store, "sum")?;
    /// store.set_fuel(Some(10_000))?;
    /// let mut state = sum.call_resumable(store, (1_000_000,));
    /// let mut pauses = 0;
    /// let (store, result) = loop {
    ///     match state {
    ///         CallState::Paused(call) => { pauses += 1; state = call.resume(100_000); }
    ///         CallState::Done(store, result) => break (store, result),
    ///     }
    /// };
    /// assert_eq!(result?, 499_999_500_000);   // as if never paused
    /// assert!(pauses >= 1);
    /// assert!(store.fuel().is_some());
    /// # Ok::<(), waddle::Error>(())
    /// ```
    pub fn call_resumable(&self, store: Store, params: P) -> CallState<R> {
        let (event_tx, event_rx) = channel();
        let (command_tx, command_rx) = channel();
        // The store goes to the thread once it exists, so a refused
        // thread leaves it with the caller.
        let (store_tx, store_rx) = channel::<Store>();
        let func = self.clone();
        let stack = store.stack_limit().saturating_add(1 << 20);
        let spawned = std::thread::Builder::new()
            .name("waddle-resumable".to_string())
            .stack_size(stack)
            .spawn(move || {
                let mut store = store_rx.recv().ok()?;
                store.runtime_mut().fuel_yield = Some(FuelYield {
                    events: event_tx,
                    commands: command_rx,
                });
                let result = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
                    func.call(&mut store, params)
                }))
                .unwrap_or_else(|p| Err(panic_error("a resumable call", p)));
                // Ends the event channel: the embedder sees the call done.
                store.runtime_mut().fuel_yield = None;
                Some((store, result))
            });
        match spawned {
            Ok(thread) => match store_tx.send(store) {
                Ok(()) => wait(event_rx, command_tx, thread),
                Err(back) => CallState::Done(
                    back.0,
                    Err(Error::Internal(
                        "the thread of a resumable call ended early".to_string(),
                    )),
                ),
            },
            Err(e) => CallState::Done(
                store,
                Err(Error::Internal(format!(
                    "cannot start the thread of a resumable call: {e}"
                ))),
            ),
        }
    }
}
