//! The baseline tier's AArch64 output as a cross-execution [`CodeImage`].
//!
//! The baseline generator lays out the whole program in one
//! position-independent code block ([`crate::baseline::BaselineImage`]),
//! following the code convention of [`super`]; this adapter copies that
//! block into an image unchanged and records every function's entry.

use waddle_opt::ir::{FuncId, Program};

use super::image::{Arch, CodeImage, ImageBuilder};
use crate::baseline::compile_aarch64_image;
use crate::{CompileError, JitOptions};

/// Compiles every function of `program` with the baseline tier's AArch64
/// back end into a code image.
pub fn compile_baseline_aarch64(
    program: &Program,
    opts: &JitOptions,
) -> Result<CodeImage, CompileError> {
    super::image::check_host_calls(program)?;
    let image = compile_aarch64_image(program, opts)?;
    let entries: Vec<(FuncId, u64)> = image
        .funcs
        .iter()
        .enumerate()
        .filter_map(|(i, f)| Some((FuncId::from_u32(i as u32), f.offset? as u64)))
        .collect();
    let image_err = |e: super::image::ImageError| CompileError::Codegen {
        func: "<image>".to_string(),
        message: e.to_string(),
    };
    let mut builder = ImageBuilder::new(Arch::Aarch64, program, image.strings, opts.fuel);
    builder.counters(opts.tier_counters);
    builder
        .add_code_block(&image.code, &entries, 16)
        .map_err(image_err)?;
    builder.finish().map_err(image_err)
}
