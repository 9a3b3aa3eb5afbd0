//! Stopping running code from outside: [`InterruptHandle`] and deadlines.
//!
//! Epoch-style, as wasmtime's epoch interruption (PR #3699): nothing is
//! signalled and no new check sites exist. Every tier already charges fuel
//! at function entries and loop back edges and pays the host in batches
//! (`waddle_opt::abi::FUEL_BATCH` units for compiled code); the host's
//! fuel hook ([`waddle_opt::interp::Host::consume_fuel`]) is where the
//! interrupt flag and the deadline are checked. So a `while true {}` stops
//! within one batch of loop iterations (microseconds) on every tier, and
//! code that never loops or calls finishes anyway.
//!
//! Following wasmtime #4342, the default is "never": a store without a
//! deadline and without an `interrupt()` call runs unbounded.

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::Instant;

use waddle_opt::abi::TrapCode;

/// Stops the code running in one [`crate::Store`] from any thread.
///
/// `Send + Sync + Clone` (a cheap `Arc` clone). [`InterruptHandle::interrupt`]
/// makes the store's running call return
/// [`crate::TrapCode::Interrupted`]; if nothing runs, the next call
/// does. The request is consumed by that trap, and the store stays usable.
///
/// ```
/// use std::time::Duration;
/// use waddle::{Engine, Module, Store, Error, TrapCode};
///
/// let engine = Engine::default();
/// let module = Module::new(&engine, "spin.wdl", "fn spin() { while true {} }").unwrap();
/// let mut store = Store::new(&engine);
/// let instance = store.instantiate(&module).unwrap();
/// let spin = instance.typed_func::<(), ()>(&store, "spin").unwrap();
/// let handle = store.interrupt_handle();
/// let t = std::thread::spawn(move || {
///     std::thread::sleep(Duration::from_millis(20));
///     handle.interrupt();
/// });
/// let err = spin.call(&mut store, ()).unwrap_err();
/// assert_eq!(err.trap_code(), Some(TrapCode::Interrupted));
/// t.join().unwrap();
/// ```
#[derive(Clone, Debug)]
pub struct InterruptHandle {
    flag: Arc<AtomicBool>,
}

impl InterruptHandle {
    /// Requests that the store's running call (or, if none runs, its next
    /// call) stop with [`crate::TrapCode::Interrupted`].
    pub fn interrupt(&self) {
        self.flag.store(true, Ordering::Release);
    }
}

/// A store's interrupt state: the flag its handles set and its deadline.
#[derive(Debug)]
pub(crate) struct Interrupts {
    flag: Arc<AtomicBool>,
    deadline: Option<Instant>,
}

impl Default for Interrupts {
    fn default() -> Self {
        Interrupts {
            flag: Arc::new(AtomicBool::new(false)),
            deadline: None,
        }
    }
}

impl Interrupts {
    /// A handle setting this state's flag.
    pub(crate) fn handle(&self) -> InterruptHandle {
        InterruptHandle {
            flag: self.flag.clone(),
        }
    }

    /// Sets (or with `None` clears) the instant after which code stops.
    pub(crate) fn set_deadline(&mut self, deadline: Option<Instant>) {
        self.deadline = deadline;
    }

    /// Drops a pending interrupt request.
    pub(crate) fn clear(&self) {
        self.flag.store(false, Ordering::Relaxed);
    }

    /// `Err(Interrupted)` when an interrupt was requested (consuming the
    /// request) or the deadline has passed.
    #[inline]
    pub(crate) fn check(&self) -> Result<(), TrapCode> {
        if self.flag.load(Ordering::Relaxed) && self.flag.swap(false, Ordering::Acquire) {
            return Err(TrapCode::Interrupted);
        }
        match self.deadline {
            Some(d) if Instant::now() >= d => Err(TrapCode::Interrupted),
            _ => Ok(()),
        }
    }
}
