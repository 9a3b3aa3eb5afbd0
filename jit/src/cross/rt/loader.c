/*
 * Waddle cross-execution loader and runtime for AArch64 (see
 * jit/src/cross/mod.rs for the image format and the conventions).
 *
 * Built by the host with `aarch64-linux-gnu-gcc -static -O2` and run under
 * qemu-aarch64 as `loader STACK_BUDGET MEMORY_LIMIT FUEL|- GC_STRESS(0|1)` with the code image
 * on standard input. It maps the code W^X (read-write while copying, then
 * read-execute), builds the VmCtx with the helper table, the interned
 * string constants and the zero-initialized globals, runs the program's
 * `main` on a thread with a stack of the budget plus a reserve, and writes
 * typed output records to standard output:
 *
 *   'P' u32 type-code value      print(value); the host formats it
 *   'E' u32 trap u32 loc_set u32 file u32 line u32 col
 *                                end of the run (trap 0: success)
 *
 * where a value is a u64 word for int/float/bool, `u64 len, bytes` for a
 * string and `u64 len, values...` for an array (all little endian).
 * Problems of the loader itself (bad image, no memory for the image) go to
 * standard error with exit status 3.
 *
 * Memory: objects come from malloc and are reclaimed by a conservative,
 * non-moving mark-and-sweep collector (see "heap" below); the live total is
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
    uint32_t reserved;
} ObjHeader;

typedef struct {
    ObjHeader h;
    uint64_t len;
    const uint8_t *ptr;
} StrObj;

typedef struct {
    ObjHeader h;
    uint64_t len, cap;
    Word *data;
} ArrayObj;

typedef struct {
    Word *globals;
    const uintptr_t *entries;
    uintptr_t stack_limit, stack_base;
    int64_t fuel;
    uint32_t trap_code, trap_loc_set, trap_file, trap_line, trap_col, reserved;
    void *host;
    const uintptr_t *helpers;
    const Word *strings;
} VmCtx;

/* Must match waddle_opt::abi. */
_Static_assert(offsetof(StrObj, len) == 8, "StrObj.len");
_Static_assert(offsetof(StrObj, ptr) == 16, "StrObj.ptr");
_Static_assert(offsetof(ArrayObj, len) == 8, "ArrayObj.len");
_Static_assert(offsetof(ArrayObj, cap) == 16, "ArrayObj.cap");
_Static_assert(offsetof(ArrayObj, data) == 24, "ArrayObj.data");
_Static_assert(offsetof(VmCtx, fuel) == 32, "VmCtx.fuel");
_Static_assert(offsetof(VmCtx, trap_code) == 40, "VmCtx.trap_code");
_Static_assert(offsetof(VmCtx, trap_col) == 56, "VmCtx.trap_col");
_Static_assert(offsetof(VmCtx, host) == 64, "VmCtx.host");
_Static_assert(offsetof(VmCtx, helpers) == 72, "VmCtx.helpers");
_Static_assert(offsetof(VmCtx, strings) == 80, "VmCtx.strings");

enum { KIND_STR = 1, KIND_ARRAY = 2 };
enum {
    TRAP_NEGATIVE_LENGTH = 3,
    TRAP_OUT_OF_FUEL = 7,
    TRAP_OUT_OF_MEMORY = 8,
};
/* Type codes (waddle_jit::abi::encode_type): kind in bits 0..8. */
enum { T_UNIT = 0, T_BOOL = 1, T_INT = 2, T_FLOAT = 3, T_STR = 4, T_ARRAY = 5 };
#define FUEL_BATCH 1024
#define IMAGE_MAGIC "WADLIMG1"
#define IMAGE_ARCH_AARCH64 1u
#define N_HELPERS 15u

/* ---------------------------------------------------------------- output */

static uint8_t out_buf[1 << 16];
static size_t out_len;

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

/* ------------------------------------------------------------------ heap */

/*
 * A non-moving mark-and-sweep collector, like the host runtime's: objects
 * come from malloc and are registered in a hash set; roots are the
 * globals, the operands of the running helper and, conservatively, every
 * word of the native stack from the collector's frame up to
 * VmCtx.stack_base (compiled code keeps every live reference in its frame
 * at calls, see waddle_jit::abi). Each allocating helper first reserves all
 * the bytes it needs (collecting if the threshold or the limit is reached)
 * and then allocates without collecting, so its intermediate objects need
 * no rooting. String constants are pinned and never freed.
 */

static uint64_t mem_used, mem_limit, next_gc = 8u << 20;
/* Collect before every allocation (testing the collector's roots). */
static int gc_stress;
#define MIN_GC_THRESHOLD (8u << 20)
#define TOMBSTONE ((uintptr_t)1)

static uintptr_t *objs;
static size_t objs_cap, objs_count, objs_tomb;
static VmCtx ctx;

static int is_ref(uint32_t t) { return (t & 0xff) == T_STR || (t & 0xff) == T_ARRAY; }

/* The element type code of array type `t`. */
static uint32_t elem_type(uint32_t t) {
    uint32_t depth = (t >> 16) & 0xff, scalar = (t >> 8) & 0xff;
    if (depth > 1) return T_ARRAY | (scalar << 8) | ((depth - 1) << 16);
    return scalar; /* scalar codes equal the kind codes of bool..str */
}

static size_t obj_slot(uintptr_t p, size_t cap) {
    return (size_t)(((uint64_t)p >> 4) * 0x9E3779B97F4A7C15ull >> 20) & (cap - 1);
}

static int obj_contains(uintptr_t p) {
    if (!objs_cap || p <= TOMBSTONE || (p & 7)) return 0;
    for (size_t i = obj_slot(p, objs_cap);; i = (i + 1) & (objs_cap - 1)) {
        if (objs[i] == p) return 1;
        if (objs[i] == 0) return 0;
    }
}

static void obj_put(uintptr_t *table, size_t cap, uintptr_t p) {
    size_t i = obj_slot(p, cap);
    while (table[i] > TOMBSTONE) i = (i + 1) & (cap - 1);
    table[i] = p;
}

/* Rebuilds the table with room for `want` objects; 0 when out of memory. */
static int obj_rehash(size_t want) {
    size_t cap = 1024;
    while (cap < want * 2) cap *= 2;
    uintptr_t *table = calloc(cap, sizeof *table);
    if (!table) return 0;
    for (size_t i = 0; i < objs_cap; i++)
        if (objs[i] > TOMBSTONE) obj_put(table, cap, objs[i]);
    free(objs);
    objs = table;
    objs_cap = cap;
    objs_tomb = 0;
    return 1;
}

static int obj_insert(uintptr_t p) {
    if ((objs_count + objs_tomb + 1) * 2 > objs_cap && !obj_rehash(objs_count + 1)) return 0;
    obj_put(objs, objs_cap, p);
    objs_count++;
    return 1;
}

/* Bytes an object occupies (saturating: UINT64_MAX never fits). */
static uint64_t str_size(uint64_t len) {
    return len > UINT64_MAX - sizeof(StrObj) ? UINT64_MAX : sizeof(StrObj) + len;
}
static uint64_t array_size(uint64_t cap) {
    return cap > (UINT64_MAX - sizeof(ArrayObj)) / 8 ? UINT64_MAX : sizeof(ArrayObj) + cap * 8;
}
static uint64_t add_size(uint64_t a, uint64_t b) { return a > UINT64_MAX - b ? UINT64_MAX : a + b; }
static uint64_t mul_size(uint64_t a, uint64_t b) {
    return b && a > UINT64_MAX / b ? UINT64_MAX : a * b;
}

static void mark(Word w) {
    if (!obj_contains((uintptr_t)w)) return;
    ObjHeader *h = (ObjHeader *)(uintptr_t)w;
    if (h->marked) return;
    h->marked = 1;
    if (h->kind == KIND_ARRAY && h->elems_are_refs) {
        /* Arrays cannot contain themselves (their element types are
         * shallower), so the recursion is as deep as the type. */
        ArrayObj *a = (ArrayObj *)h;
        for (uint64_t i = 0; i < a->len; i++) mark(a->data[i]);
    }
}

static uint64_t obj_size(ObjHeader *h) {
    return h->kind == KIND_STR ? str_size(((StrObj *)h)->len) : array_size(((ArrayObj *)h)->cap);
}

static __attribute__((noinline)) void collect_from_here(const Word *roots, size_t n,
                                                          size_t n_globals) {
    uintptr_t lo = (uintptr_t)__builtin_frame_address(0) & ~(uintptr_t)7;
    if (ctx.stack_base > lo)
        for (const Word *p = (const Word *)lo; (uintptr_t)p + 8 <= ctx.stack_base; p++) mark(*p);
    for (size_t i = 0; i < n; i++) mark(roots[i]);
    for (size_t i = 0; i < n_globals; i++) mark(ctx.globals[i]);
    for (size_t i = 0; i < objs_cap; i++) {
        uintptr_t p = objs[i];
        if (p <= TOMBSTONE) continue;
        ObjHeader *h = (ObjHeader *)p;
        if (h->marked || h->pinned) {
            h->marked = 0;
            continue;
        }
        mem_used -= obj_size(h);
        if (h->kind == KIND_ARRAY) free(((ArrayObj *)h)->data);
        free(h);
        objs[i] = TOMBSTONE;
        objs_count--;
        objs_tomb++;
    }
    if (objs_tomb > objs_cap / 4) obj_rehash(objs_count);
}

static size_t n_globals;

/* Collects garbage; the callee-saved registers of every frame below are
 * spilled into this frame first so the stack scan sees them. */
static __attribute__((noinline)) void collect(const Word *roots, size_t n) {
    __builtin_unwind_init();
    collect_from_here(roots, n, n_globals);
    next_gc = mem_used * 2 > MIN_GC_THRESHOLD ? mem_used * 2 : MIN_GC_THRESHOLD;
}

/* Makes sure `bytes` can be allocated, collecting first when the
 * threshold or the limit would be passed (with `roots`, the helper's
 * operands, kept alive); records `out of memory` and returns 0 otherwise. */
static int reserve(VmCtx *c, uint64_t bytes, const Word *roots, size_t n) {
    if (bytes > mem_limit) {
        c->trap_code = TRAP_OUT_OF_MEMORY;
        return 0;
    }
    if (gc_stress || mem_used + bytes > next_gc || mem_used + bytes > mem_limit)
        collect(roots, n);
    if (bytes > mem_limit - mem_used) {
        c->trap_code = TRAP_OUT_OF_MEMORY;
        return 0;
    }
    return 1;
}

/* malloc, counted; never collects (reserve first). */
static void *raw_alloc(VmCtx *c, uint64_t bytes) {
    void *p = malloc(bytes ? (size_t)bytes : 1);
    if (!p) c->trap_code = TRAP_OUT_OF_MEMORY;
    return p;
}

/* Registers a new object of `bytes` bytes. */
static int track(VmCtx *c, void *obj, uint64_t bytes) {
    if (!obj_insert((uintptr_t)obj)) {
        c->trap_code = TRAP_OUT_OF_MEMORY;
        return 0;
    }
    mem_used += bytes;
    return 1;
}

/* A string (reserved by the caller); 0 when out of memory. */
static Word new_str(VmCtx *c, const uint8_t *bytes, uint64_t len) {
    StrObj *s = raw_alloc(c, str_size(len));
    if (!s) return 0;
    memset(&s->h, 0, sizeof s->h);
    s->h.kind = KIND_STR;
    s->len = len;
    s->ptr = (const uint8_t *)(s + 1);
    if (len) memcpy(s + 1, bytes, len);
    if (!track(c, s, str_size(len))) {
        free(s);
        return 0;
    }
    return (Word)(uintptr_t)s;
}

/* An empty array with capacity `cap` (reserved by the caller). */
static ArrayObj *new_array(VmCtx *c, uint32_t elem, uint64_t cap) {
    ArrayObj *a = raw_alloc(c, sizeof(ArrayObj));
    if (!a) return NULL;
    Word *data = NULL;
    if (cap && !(data = raw_alloc(c, cap * 8))) {
        free(a);
        return NULL;
    }
    memset(&a->h, 0, sizeof a->h);
    a->h.kind = KIND_ARRAY;
    a->h.elems_are_refs = (uint8_t)is_ref(elem);
    a->len = 0;
    a->cap = cap;
    a->data = data;
    if (!track(c, a, array_size(cap))) {
        free(data);
        free(a);
        return NULL;
    }
    return a;
}

/* Bytes of a deep copy of array `w` of type `t`. */
static uint64_t deep_size(uint32_t t, Word w) {
    ArrayObj *a = (ArrayObj *)(uintptr_t)w;
    uint64_t size = array_size(a->len);
    uint32_t elem = elem_type(t);
    if ((elem & 0xff) == T_ARRAY)
        for (uint64_t i = 0; i < a->len; i++) size = add_size(size, deep_size(elem, a->data[i]));
    return size;
}

/* A deep copy of array `w` of type `t` (reserved); 0 when out of memory. */
static Word deep_copy(VmCtx *c, uint32_t t, Word w) {
    ArrayObj *src = (ArrayObj *)(uintptr_t)w;
    uint32_t elem = elem_type(t);
    ArrayObj *a = new_array(c, elem, src->len);
    if (!a) return 0;
    for (uint64_t i = 0; i < src->len; i++) {
        Word e = src->data[i];
        if ((elem & 0xff) == T_ARRAY) {
            e = deep_copy(c, elem, e);
            if (!e) return 0;
        }
        a->data[a->len++] = e;
    }
    return (Word)(uintptr_t)a;
}

/* --------------------------------------------------------------- helpers */

static Word h_array_new(VmCtx *c, uint32_t elem, const Word *elems, uint64_t n) {
    /* The elements are in the caller's frame, inside the scanned stack. */
    if (!reserve(c, array_size(n), NULL, 0)) return 0;
    ArrayObj *a = new_array(c, elem, n);
    if (!a) return 0;
    if (n) memcpy(a->data, elems, n * 8);
    a->len = n;
    return (Word)(uintptr_t)a;
}

static Word h_array_repeat(VmCtx *c, uint32_t elem, Word value, int64_t count) {
    if (count < 0) {
        c->trap_code = TRAP_NEGATIVE_LENGTH;
        return 0;
    }
    int copies = (elem & 0xff) == T_ARRAY;
    uint64_t total = array_size((uint64_t)count);
    if (copies) total = add_size(total, mul_size(deep_size(elem, value), (uint64_t)count));
    Word roots[1] = {value};
    if (!reserve(c, total, roots, 1)) return 0;
    ArrayObj *a = new_array(c, elem, (uint64_t)count);
    if (!a) return 0;
    if (!copies) {
        if (value == 0) memset(a->data, 0, (size_t)count * 8);
        else
            for (int64_t i = 0; i < count; i++) a->data[i] = value;
        a->len = (uint64_t)count;
        return (Word)(uintptr_t)a;
    }
    for (int64_t i = 0; i < count; i++) {
        Word e = deep_copy(c, elem, value);
        if (!e) return 0;
        a->data[a->len++] = e;
    }
    return (Word)(uintptr_t)a;
}

static void h_array_push(VmCtx *c, Word array, Word value) {
    ArrayObj *a = (ArrayObj *)(uintptr_t)array;
    if (a->len == a->cap) {
        uint64_t cap = a->cap < 4 ? 4 : a->cap * 2;
        Word roots[2] = {array, value};
        if (cap > UINT64_MAX / 16 || !reserve(c, cap * 8 - a->cap * 8, roots, 2)) {
            c->trap_code = TRAP_OUT_OF_MEMORY;
            return;
        }
        Word *data = raw_alloc(c, cap * 8);
        if (!data) return;
        if (a->len) memcpy(data, a->data, a->len * 8);
        free(a->data);
        mem_used += (cap - a->cap) * 8;
        a->data = data;
        a->cap = cap;
    }
    a->data[a->len++] = value;
}

static Word h_str_concat(VmCtx *c, Word a, Word b) {
    StrObj *x = (StrObj *)(uintptr_t)a, *y = (StrObj *)(uintptr_t)b;
    uint64_t len = add_size(x->len, y->len);
    Word roots[2] = {a, b};
    if (!reserve(c, str_size(len), roots, 2)) return 0;
    StrObj *s = raw_alloc(c, str_size(len));
    if (!s) return 0;
    memset(&s->h, 0, sizeof s->h);
    s->h.kind = KIND_STR;
    s->len = len;
    s->ptr = (const uint8_t *)(s + 1);
    if (x->len) memcpy(s + 1, x->ptr, x->len);
    if (y->len) memcpy((uint8_t *)(s + 1) + x->len, y->ptr, y->len);
    if (!track(c, s, str_size(len))) {
        free(s);
        return 0;
    }
    return (Word)(uintptr_t)s;
}

/* A growable byte buffer for `str(x)`. */
typedef struct {
    uint8_t *p;
    size_t len, cap;
    int failed;
} Buf;

static void buf_put(Buf *b, const void *src, size_t n) {
    if (b->failed) return;
    if (b->len + n > b->cap) {
        size_t cap = b->cap ? b->cap : 64;
        while (cap < b->len + n) cap *= 2;
        uint8_t *p = realloc(b->p, cap);
        if (!p) {
            b->failed = 1;
            return;
        }
        b->p = p;
        b->cap = cap;
    }
    memcpy(b->p + b->len, src, n);
    b->len += n;
}

static void buf_str(Buf *b, const char *s) { buf_put(b, s, strlen(s)); }

/* Adds one unit in the last place to digits[0..n] (exponent *exp). */
static void increment_digits(char *d, int n, int *exp) {
    int k = n - 1;
    while (k >= 0 && d[k] == '9') d[k--] = '0';
    if (k < 0) {
        d[0] = '1';
        (*exp)++;
    } else {
        d[k]++;
    }
}

/*
 * `digits` (n of them) are x rounded half-to-even by printf. When x lies
 * exactly halfway between two n-digit decimals and printf rounded down,
 * Rust's shortest formatting takes the upper one: switch to it when it
 * also reads back as x. Returns n.
 */
static int round_tie_up(double x, char *digits, int n, int *exp) {
    static char exact[1100];
    /* Every double's exact decimal expansion has fewer than 800 digits. */
    snprintf(exact, sizeof exact, "%.800e", x);
    /* exact = "d.ddd...e[+-]X": digit i (0-based) is exact[i ? i + 1 : 0]. */
    if (exact[n + 1] != '5') return n;
    for (const char *c = exact + n + 2; *c && *c != 'e'; c++)
        if (*c != '0') return n;
    char t[20];
    t[0] = exact[0];
    for (int i = 1; i < n; i++) t[i] = exact[i + 1];
    if (memcmp(t, digits, (size_t)n) != 0) return n; /* printf rounded up */
    int e = atoi(strchr(exact, 'e') + 1);
    increment_digits(t, n, &e);
    char cand[64];
    int m = 0;
    cand[m++] = t[0];
    cand[m++] = '.';
    for (int i = 1; i < n; i++) cand[m++] = t[i];
    snprintf(cand + m, sizeof cand - (size_t)m, "e%d", e);
    if (strtod(cand, NULL) == x) {
        memcpy(digits, t, (size_t)n);
        *exp = e;
    }
    return n;
}

/*
 * The shortest decimal digits that read back as x (finite, > 0), like
 * Rust's flt2dec shortest mode: for each length, the correctly rounded
 * candidate (glibc printf is exact) and its neighbour on the other side of
 * x; returns the digit count, `exp` the decimal exponent of the first digit.
 */
static int shortest_digits(double x, char *digits, int *exp) {
    char s[64], cand[80];
    for (int p = 1; p <= 17; p++) {
        snprintf(s, sizeof s, "%.*e", p - 1, x);
        int n = 0;
        const char *c = s;
        for (; *c && *c != 'e'; c++)
            if (*c >= '0' && *c <= '9') digits[n++] = *c;
        int e = atoi(c + 1);
        double r = strtod(s, NULL);
        if (r == x) {
            *exp = e;
            return round_tie_up(x, digits, n, exp);
        }
        /* The neighbour candidate one unit in the last place away. */
        char d[20];
        memcpy(d, digits, (size_t)n);
        int k = n - 1, ok = 1, ne = e;
        if (r > x) {
            while (k >= 0 && d[k] == '0') d[k--] = '9';
            if (k < 0) ok = 0;
            else d[k]--;
            if (ok && d[0] == '0') ok = 0; /* shorter: tried already */
        } else {
            increment_digits(d, n, &ne);
        }
        if (!ok) continue;
        int m = 0;
        cand[m++] = d[0];
        cand[m++] = '.';
        for (int i = 1; i < n; i++) cand[m++] = d[i];
        snprintf(cand + m, sizeof cand - (size_t)m, "e%d", ne);
        if (strtod(cand, NULL) == x) {
            memcpy(digits, d, (size_t)n);
            *exp = ne;
            return n;
        }
    }
    /* Not reached: 17 significant digits always round-trip. */
    snprintf(s, sizeof s, "%.16e", x);
    int n = 0;
    const char *c = s;
    for (; *c && *c != 'e'; c++)
        if (*c >= '0' && *c <= '9') digits[n++] = *c;
    *exp = atoi(c + 1);
    return n;
}

/* Rust's `{:?}` of f64. */
static void format_float(Buf *b, double x) {
    if (isnan(x)) {
        buf_str(b, "NaN");
        return;
    }
    if (signbit(x)) buf_str(b, "-");
    double a = fabs(x);
    if (isinf(a)) {
        buf_str(b, "inf");
        return;
    }
    if (a == 0.0) {
        buf_str(b, "0.0");
        return;
    }
    char d[20];
    int e;
    int n = shortest_digits(a, d, &e);
    char tmp[32];
    if (a < 1e-4 || a >= 1e16) {
        buf_put(b, d, 1);
        if (n > 1) {
            buf_str(b, ".");
            buf_put(b, d + 1, (size_t)n - 1);
        }
        snprintf(tmp, sizeof tmp, "e%d", e);
        buf_str(b, tmp);
    } else if (e < 0) {
        buf_str(b, "0.");
        for (int i = 0; i < -e - 1; i++) buf_str(b, "0");
        buf_put(b, d, (size_t)n);
    } else {
        int int_digits = e + 1;
        for (int i = 0; i < int_digits; i++) buf_put(b, i < n ? &d[i] : "0", 1);
        buf_str(b, ".");
        if (n > int_digits) buf_put(b, d + int_digits, (size_t)(n - int_digits));
        else buf_str(b, "0");
    }
}

/* `"bytes"` with LANGUAGE.md detail 11's escapes. */
static void format_escaped(Buf *b, const uint8_t *p, uint64_t n) {
    buf_str(b, "\"");
    for (uint64_t i = 0; i < n; i++) {
        uint8_t c = p[i];
        char tmp[16];
        switch (c) {
        case '"': buf_str(b, "\\\""); break;
        case '\\': buf_str(b, "\\\\"); break;
        case '\n': buf_str(b, "\\n"); break;
        case '\r': buf_str(b, "\\r"); break;
        case '\t': buf_str(b, "\\t"); break;
        case 0: buf_str(b, "\\0"); break;
        default:
            if (c < 0x20 || c == 0x7f) {
                snprintf(tmp, sizeof tmp, "\\u{%x}", c);
                buf_str(b, tmp);
            } else {
                buf_put(b, &c, 1);
            }
        }
    }
    buf_str(b, "\"");
}

static void format_value(Buf *b, uint32_t t, Word w, int quoted) {
    char tmp[32];
    switch (t & 0xff) {
    case T_INT:
        snprintf(tmp, sizeof tmp, "%" PRId64, (int64_t)w);
        buf_str(b, tmp);
        break;
    case T_FLOAT: {
        double x;
        memcpy(&x, &w, 8);
        format_float(b, x);
        break;
    }
    case T_BOOL: buf_str(b, w ? "true" : "false"); break;
    case T_STR: {
        StrObj *s = (StrObj *)(uintptr_t)w;
        if (quoted) format_escaped(b, s->ptr, s->len);
        else buf_put(b, s->ptr, s->len);
        break;
    }
    case T_ARRAY: {
        ArrayObj *a = (ArrayObj *)(uintptr_t)w;
        uint32_t elem = elem_type(t);
        buf_str(b, "[");
        for (uint64_t i = 0; i < a->len; i++) {
            if (i) buf_str(b, ", ");
            format_value(b, elem, a->data[i], 1);
        }
        buf_str(b, "]");
        break;
    }
    default: break;
    }
}

static Word h_to_str(VmCtx *ctx, uint32_t t, Word value) {
    if ((t & 0xff) == T_STR) return value;
    Buf b = {0};
    format_value(&b, t, value, 0);
    if (b.failed) {
        free(b.p);
        ctx->trap_code = TRAP_OUT_OF_MEMORY;
        return 0;
    }
    Word roots[1] = {value};
    Word s = reserve(ctx, str_size(b.len), roots, 1) ? new_str(ctx, b.p, b.len) : 0;
    free(b.p);
    return s;
}

/* The print record's value encoding. */
static void write_value(uint32_t t, Word w) {
    switch (t & 0xff) {
    case T_UNIT: break;
    case T_STR: {
        StrObj *s = (StrObj *)(uintptr_t)w;
        out_u64(s->len);
        out_bytes(s->ptr, s->len);
        break;
    }
    case T_ARRAY: {
        ArrayObj *a = (ArrayObj *)(uintptr_t)w;
        uint32_t elem = elem_type(t);
        out_u64(a->len);
        for (uint64_t i = 0; i < a->len; i++) write_value(elem, a->data[i]);
        break;
    }
    default: out_u64(w); break;
    }
}

static void h_print(VmCtx *ctx, uint32_t t, Word value) {
    (void)ctx;
    out_u8('P');
    out_u32(t);
    write_value(t, value);
}

static struct timespec start_time;

static double h_clock(VmCtx *ctx) {
    (void)ctx;
    struct timespec now;
    clock_gettime(CLOCK_MONOTONIC, &now);
    return (double)(now.tv_sec - start_time.tv_sec) +
           (double)(now.tv_nsec - start_time.tv_nsec) * 1e-9;
}

/* Remaining fuel budget; UINT64_MAX: unlimited. */
static uint64_t fuel_left = UINT64_MAX;

static int consume_fuel(uint64_t units) {
    if (fuel_left == UINT64_MAX) return 1;
    if (fuel_left >= units) {
        fuel_left -= units;
        return 1;
    }
    fuel_left = 0;
    return 0;
}

static void h_fuel(VmCtx *ctx) {
    ctx->fuel = FUEL_BATCH;
    if (!consume_fuel(FUEL_BATCH)) ctx->trap_code = TRAP_OUT_OF_FUEL;
}

static uint8_t h_str_cmp(Word a, Word b, uint32_t cc) {
    StrObj *x = (StrObj *)(uintptr_t)a, *y = (StrObj *)(uintptr_t)b;
    uint64_t n = x->len < y->len ? x->len : y->len;
    int c = n ? memcmp(x->ptr, y->ptr, n) : 0;
    if (c == 0) c = x->len < y->len ? -1 : x->len > y->len ? 1 : 0;
    switch (cc) {
    case 0: return c == 0;
    case 1: return c != 0;
    case 2: return c < 0;
    case 3: return c <= 0;
    case 4: return c > 0;
    default: return c >= 0;
    }
}

static double h_sin(double x) { return sin(x); }
static double h_cos(double x) { return cos(x); }
static double h_tan(double x) { return tan(x); }
static double h_exp(double x) { return exp(x); }
static double h_log(double x) { return log(x); }
static double h_fmod(double x, double y) { return fmod(x, y); }

/* In waddle_jit's `Helper` enum order. */
static const uintptr_t helper_table[N_HELPERS] = {
    (uintptr_t)h_array_new, (uintptr_t)h_array_repeat, (uintptr_t)h_array_push,
    (uintptr_t)h_str_concat, (uintptr_t)h_to_str, (uintptr_t)h_print,
    (uintptr_t)h_clock, (uintptr_t)h_fuel, (uintptr_t)h_str_cmp,
    (uintptr_t)h_sin, (uintptr_t)h_cos, (uintptr_t)h_tan,
    (uintptr_t)h_exp, (uintptr_t)h_log, (uintptr_t)h_fmod,
};

/* ----------------------------------------------------------------- image */

typedef struct {
    const uint8_t *p;
    size_t len, pos;
} Reader;

static const uint8_t *take(Reader *r, size_t n) {
    if (n > r->len - r->pos) fatal("truncated image");
    const uint8_t *p = r->p + r->pos;
    r->pos += n;
    return p;
}

static uint32_t take_u32(Reader *r) {
    uint32_t v;
    memcpy(&v, take(r, 4), 4);
    return v;
}

static uint64_t take_u64(Reader *r) {
    uint64_t v;
    memcpy(&v, take(r, 8), 8);
    return v;
}

static uint8_t *read_all(int fd, size_t *len) {
    size_t cap = 1 << 16, n = 0;
    uint8_t *p = malloc(cap);
    if (!p) fatal("out of memory reading the image");
    for (;;) {
        if (n == cap) {
            cap *= 2;
            p = realloc(p, cap);
            if (!p) fatal("out of memory reading the image");
        }
        ssize_t k = read(fd, p + n, cap - n);
        if (k < 0 && errno == EINTR) continue;
        if (k < 0) fatal("cannot read the image");
        if (k == 0) break;
        n += (size_t)k;
    }
    *len = n;
    return p;
}

static uintptr_t main_code;
static uint64_t stack_budget;

static void *run_main(void *arg) {
    (void)arg;
    uintptr_t base = (uintptr_t)__builtin_frame_address(0);
    ctx.stack_base = base;
    ctx.stack_limit = base > stack_budget ? base - stack_budget : 0;
    ((void (*)(VmCtx *))main_code)(&ctx);
    return NULL;
}

int main(int argc, char **argv) {
    if (argc != 5) fatal("usage: loader STACK_BUDGET MEMORY_LIMIT FUEL|- GC_STRESS < image");
    stack_budget = strtoull(argv[1], NULL, 10);
    mem_limit = strtoull(argv[2], NULL, 10);
    if (strcmp(argv[3], "-") != 0) fuel_left = strtoull(argv[3], NULL, 10);
    gc_stress = strcmp(argv[4], "1") == 0;
    clock_gettime(CLOCK_MONOTONIC, &start_time);
    /* Keep freed memory for reuse instead of unmapping it (every mmap and
     * munmap is a system call qemu has to emulate). */
    mallopt(M_MMAP_THRESHOLD, 1 << 30);
    mallopt(M_TRIM_THRESHOLD, 1 << 30);

    size_t len;
    uint8_t *image = read_all(0, &len);
    Reader r = {image, len, 0};
    if (memcmp(take(&r, 8), IMAGE_MAGIC, 8) != 0) fatal("not a Waddle code image");
    if (take_u32(&r) != IMAGE_ARCH_AARCH64) fatal("image is not for AArch64");
    uint32_t flags = take_u32(&r);
    uint32_t n_funcs = take_u32(&r), main_func = take_u32(&r);
    n_globals = take_u32(&r);
    uint32_t n_strings = take_u32(&r);
    if (take_u32(&r) != N_HELPERS) fatal("image expects a different helper table");
    take_u32(&r);
    uint64_t code_len = take_u64(&r);
    if (main_func >= n_funcs) fatal("bad main function index");

    uint64_t *offsets = calloc(n_funcs ? n_funcs : 1, 8);
    Word *globals = calloc(n_globals ? n_globals : 1, 8);
    Word *strings = calloc(n_strings ? n_strings : 1, 8);
    uintptr_t *entries = calloc(n_funcs ? n_funcs : 1, sizeof(uintptr_t));
    if (!offsets || !globals || !strings || !entries) fatal("out of memory");
    for (uint32_t i = 0; i < n_funcs; i++) offsets[i] = take_u64(&r);

    ctx.helpers = helper_table;
    ctx.strings = strings;
    ctx.globals = globals;
    ctx.fuel = FUEL_BATCH;
    (void)flags;

    for (uint32_t i = 0; i < n_globals; i++) {
        uint32_t t = take_u32(&r);
        if (!reserve(&ctx, array_size(0), NULL, 0)) fatal("out of memory for globals");
        if ((t & 0xff) == T_STR) globals[i] = new_str(&ctx, NULL, 0);
        else if ((t & 0xff) == T_ARRAY) globals[i] = (Word)(uintptr_t)new_array(&ctx, elem_type(t), 0);
        if (ctx.trap_code) fatal("out of memory for globals");
    }
    for (uint32_t i = 0; i < n_strings; i++) {
        uint32_t n = take_u32(&r);
        const uint8_t *bytes = take(&r, n);
        if (!reserve(&ctx, str_size(n), NULL, 0)) fatal("out of memory for string constants");
        strings[i] = new_str(&ctx, bytes, n);
        if (!strings[i]) fatal("out of memory for string constants");
        ((StrObj *)(uintptr_t)strings[i])->h.pinned = 1;
    }
    while (r.pos % 16) take(&r, 1);
    const uint8_t *code = take(&r, code_len);

    long page = sysconf(_SC_PAGESIZE);
    size_t map_len = ((size_t)code_len + (size_t)page - 1) / (size_t)page * (size_t)page;
    if (map_len == 0) map_len = (size_t)page;
    uint8_t *mem = mmap(NULL, map_len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (mem == MAP_FAILED) fatal("cannot map code memory");
    memcpy(mem, code, code_len);
    if (mprotect(mem, map_len, PROT_READ | PROT_EXEC) != 0) fatal("cannot make code executable");
    __builtin___clear_cache((char *)mem, (char *)mem + map_len);
    for (uint32_t i = 0; i < n_funcs; i++) {
        if (offsets[i] == UINT64_MAX) continue;
        if (offsets[i] >= code_len || offsets[i] % 4) fatal("bad function offset");
        entries[i] = (uintptr_t)mem + offsets[i];
    }
    ctx.entries = entries;
    if (!entries[main_func]) fatal("main has no code");
    main_code = entries[main_func];
    free(image);

    pthread_attr_t attr;
    pthread_t thread;
    pthread_attr_init(&attr);
    if (pthread_attr_setstacksize(&attr, (size_t)stack_budget + (8u << 20)) != 0)
        fatal("bad stack size");
    if (pthread_create(&thread, &attr, run_main, NULL) != 0) fatal("cannot start the program thread");
    pthread_join(thread, NULL);

    /* The fuel charged but not yet paid (like CompiledProgram::enter). */
    int64_t pending = FUEL_BATCH - ctx.fuel;
    if (pending > 0 && !consume_fuel((uint64_t)pending) && ctx.trap_code == 0)
        ctx.trap_code = TRAP_OUT_OF_FUEL;
    out_u8('E');
    out_u32(ctx.trap_code);
    out_u32(ctx.trap_loc_set);
    out_u32(ctx.trap_file);
    out_u32(ctx.trap_line);
    out_u32(ctx.trap_col);
    out_flush();
    return 0;
}
