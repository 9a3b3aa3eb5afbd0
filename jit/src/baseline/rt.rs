//! Runtime helpers of the baseline tier that [`crate::helpers`] does not
//! provide: `floor`/`ceil` for x86-64 machines without SSE4.1.

extern "C" fn floor(x: f64) -> f64 {
    x.floor()
}

extern "C" fn ceil(x: f64) -> f64 {
    x.ceil()
}

/// Address of an `extern "C" fn(f64) -> f64` computing `floor`.
pub(crate) fn floor_addr() -> usize {
    floor as extern "C" fn(f64) -> f64 as usize
}

/// Address of an `extern "C" fn(f64) -> f64` computing `ceil`.
pub(crate) fn ceil_addr() -> usize {
    ceil as extern "C" fn(f64) -> f64 as usize
}
