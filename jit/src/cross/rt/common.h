/*
 * Waddle cross-execution loader and runtime for AArch64 (see
 * jit/src/cross/mod.rs for the image format and the conventions).
 *
 * One translation unit in four parts, concatenated in this order by the
 * host before compiling: common.h (layouts, output), heap.c (collector and
 * allocating helpers), format.c (`str` and `print`), loader.c (the other
 * helpers, the image, main).
 *
 * Built by the host with `aarch64-linux-gnu-gcc -static -O2` and run under
 * qemu-aarch64 as `loader STACK_BUDGET MEMORY_LIMIT FUEL|- GC_STRESS FLUSH`
 * (the last two 0 or 1) with the code image on standard input (a u64
 * length, then the image; standard input then carries the replies to host
 * calls). It maps the code W^X (read-write while copying, then
 * read-execute), builds the VmCtx with the helper table, the interned
 * string constants and the zero-initialized globals, runs the program's
 * `main` on a thread with a stack of the budget plus a reserve, and writes
 * typed output records to standard output:
 *
 *   'P' u32 type-code value      print(value); the host formats it
 *   'F' u32 func u32 file u32 line u32 col
 *                                a frame a trap leaves (innermost first)
 *   'H' u32 id u32 n, n u64 words
 *                                a call of host function `id`; the loader
 *                                flushes and waits on standard input for
 *                                the reply `u32 trap (0: returned), u64 word`
 *   'T' u32 func u32 back_edge
 *                                a tiering counter of T1 code ran out
 *                                (images compiled with counters)
 *   'E' u32 trap u32 loc_set u32 file u32 line u32 col
 *                                end of the run (trap 0: success)
 *
 * where a value is a u64 word for int/float/bool, `u64 len, bytes` for a
 * string and `u64 len, values...` for an array (all little endian).
 * Problems of the loader itself (bad image, no memory for the image) go to
 * standard error with exit status 3.
 *
 * Memory: objects come from malloc and are reclaimed by a conservative,
 * non-moving mark-and-sweep collector (heap.c); the live total is
 * limited by MEMORY_LIMIT, beyond which an allocation is the runtime error
 * `out of memory`.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <inttypes.h>
#include <malloc.h>
#include <math.h>
#include <pthread.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

typedef uint64_t Word;

typedef struct {
    uint8_t kind, marked, elems_are_refs, pinned;
    uint8_t byte_elems; /* 1: one byte per element ([bool]), else a word */
    uint8_t reserved[3];
} ObjHeader;

typedef struct {
    ObjHeader h;
    uint64_t len;
    const uint8_t *ptr;
} StrObj;

typedef struct {
    ObjHeader h;
    uint64_t len, cap;
    uint8_t *data; /* cap elements of arr_esize(a) bytes (waddle_opt::abi::ElemLayout) */
} ArrayObj;

/* Bytes per element of array `a`. */
static uint64_t arr_esize(const ArrayObj *a) { return a->h.byte_elems ? 1 : 8; }
/* Element `i` of array `a` as a word (a bool as 0/1). */
static Word arr_get(const ArrayObj *a, uint64_t i) {
    return a->h.byte_elems ? (Word)a->data[i] : ((const Word *)a->data)[i];
}
/* Writes element `i` of array `a` (a bool keeps the low byte). */
static void arr_set(ArrayObj *a, uint64_t i, Word v) {
    if (a->h.byte_elems) a->data[i] = (uint8_t)v;
    else ((Word *)a->data)[i] = v;
}

typedef struct {
    Word *globals;
    const uintptr_t *entries;
    uintptr_t stack_limit, stack_base;
    int64_t fuel;
    uint32_t trap_code, trap_loc_set, trap_file, trap_line, trap_col, reserved;
    void *host;
    const uintptr_t *helpers;
    const Word *strings;
    int64_t depth_left;
    uintptr_t caller_sp;  /* the compiled caller's sp at a helper call (heap.c) */
    uintptr_t entry_code; /* the host tiers' entry; unused here */
    int64_t *tier_counters;
} VmCtx;

/* waddle_opt::abi::STACK_BYTES_PER_CALL: a stack budget of B bytes allows
 * B / STACK_BYTES_PER_CALL nested frames of recursive functions. */
#define STACK_BYTES_PER_CALL 1024
/* waddle_opt::abi::STACK_BYTES_FACTOR: the byte safety net allows this many
 * times the budget. */
#define STACK_BYTES_FACTOR 8

/* Must match waddle_opt::abi. */
_Static_assert(offsetof(VmCtx, depth_left) == 88, "VmCtx.depth_left");
_Static_assert(offsetof(StrObj, len) == 8, "StrObj.len");
_Static_assert(offsetof(StrObj, ptr) == 16, "StrObj.ptr");
_Static_assert(offsetof(ArrayObj, len) == 8, "ArrayObj.len");
_Static_assert(offsetof(ArrayObj, cap) == 16, "ArrayObj.cap");
_Static_assert(offsetof(ArrayObj, data) == 24, "ArrayObj.data");
_Static_assert(sizeof(ObjHeader) == 8, "ObjHeader size");
_Static_assert(offsetof(ObjHeader, byte_elems) == 4, "ObjHeader.byte_elems");
_Static_assert(offsetof(VmCtx, fuel) == 32, "VmCtx.fuel");
_Static_assert(offsetof(VmCtx, trap_code) == 40, "VmCtx.trap_code");
_Static_assert(offsetof(VmCtx, trap_col) == 56, "VmCtx.trap_col");
_Static_assert(offsetof(VmCtx, host) == 64, "VmCtx.host");
_Static_assert(offsetof(VmCtx, helpers) == 72, "VmCtx.helpers");
_Static_assert(offsetof(VmCtx, strings) == 80, "VmCtx.strings");
_Static_assert(offsetof(VmCtx, tier_counters) == 112, "VmCtx.tier_counters");

enum { KIND_STR = 1, KIND_ARRAY = 2 };
enum {
    TRAP_NEGATIVE_LENGTH = 3,
    TRAP_OUT_OF_FUEL = 7,
    TRAP_OUT_OF_MEMORY = 8,
};
/* Type codes (waddle_jit::abi::encode_type): kind in bits 0..8. */
enum { T_UNIT = 0, T_BOOL = 1, T_INT = 2, T_FLOAT = 3, T_STR = 4, T_ARRAY = 5 };
#define FUEL_BATCH 1024
#define IMAGE_MAGIC "WADLIMG2"
#define IMAGE_ARCH_AARCH64 1u
#define N_HELPERS 19u
/* waddle_jit's TIER_UP_CALLS_AGAIN / TIER_UP_EDGES_AGAIN: a counter that
 * ran out starts again at these. */
#define TIER_UP_CALLS_AGAIN 256
#define TIER_UP_EDGES_AGAIN 16384

/* ---------------------------------------------------------------- output */

static uint8_t out_buf[1 << 16];
static size_t out_len;
/* Write the output after every print (the host's stdout is a terminal). */
static int flush_each_print;

static void out_flush(void) {
    size_t off = 0;
    while (off < out_len) {
        ssize_t n = write(1, out_buf + off, out_len - off);
        if (n < 0 && errno == EINTR) continue;
        if (n <= 0) _exit(4);
        off += (size_t)n;
    }
    out_len = 0;
}

static void out_bytes(const void *p, size_t n) {
    const uint8_t *b = p;
    while (n > 0) {
        if (out_len == sizeof out_buf) out_flush();
        size_t k = sizeof out_buf - out_len;
        if (k > n) k = n;
        memcpy(out_buf + out_len, b, k);
        out_len += k;
        b += k;
        n -= k;
    }
}

static void out_u8(uint8_t v) { out_bytes(&v, 1); }
static void out_u32(uint32_t v) { out_bytes(&v, 4); }
static void out_u64(uint64_t v) { out_bytes(&v, 8); }

static void fatal(const char *msg) {
    out_flush();
    fprintf(stderr, "waddle-aarch64-loader: %s\n", msg);
    exit(3);
}

