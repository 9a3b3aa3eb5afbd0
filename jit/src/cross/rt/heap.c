/* Part 2 of the AArch64 runtime (see common.h): the heap. */

/* ------------------------------------------------------------------ heap */

/*
 * A non-moving mark-and-sweep collector, like the host runtime's: objects
 * come from malloc and are registered in a hash set; roots are the
 * globals, the operands of the running helper and, conservatively, every
 * word of the native stack from the compiled caller's stack pointer at
 * the call into the running helper (VmCtx.caller_sp, recorded by
 * FROM_CODE) up to VmCtx.stack_base (compiled code keeps every live
 * reference in its frame at calls, see waddle_jit::abi). The helpers' own
 * frames are not scanned: words earlier calls left there would keep
 * garbage alive, and the point where a memory limit is reached would then
 * differ from the host tiers', whose rooted helper entries scan from the
 * same place (waddle_jit::helpers). Each allocating helper first reserves all
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

/* Bytes accounted per object beyond its header and buffer: the same
 * constant as the host runtime's `heap::object::OBJECT_OVERHEAD`, so
 * every tier and both architectures decide `out of memory` alike. */
#define OBJ_OVERHEAD 64

/* Bytes accounted for an object (saturating: UINT64_MAX never fits). */
static uint64_t str_size(uint64_t len) {
    return len > UINT64_MAX - sizeof(StrObj) - OBJ_OVERHEAD ? UINT64_MAX
                                                            : sizeof(StrObj) + len + OBJ_OVERHEAD;
}
/* An array of `cap` elements of `esize` bytes (the host's array_bytes_for). */
static uint64_t array_size(uint64_t cap, uint64_t esize) {
    return cap > (UINT64_MAX - sizeof(ArrayObj) - OBJ_OVERHEAD) / esize
               ? UINT64_MAX
               : sizeof(ArrayObj) + cap * esize + OBJ_OVERHEAD;
}
/* Bytes per element of arrays whose elements have type `elem`. */
static uint64_t elem_size(uint32_t elem) { return (elem & 0xff) == T_BOOL ? 1 : 8; }
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
        for (uint64_t i = 0; i < a->len; i++) mark(arr_get(a, i));
    }
}

static uint64_t obj_size(ObjHeader *h) {
    if (h->kind == KIND_STR) return str_size(((StrObj *)h)->len);
    ArrayObj *a = (ArrayObj *)h;
    return array_size(a->cap, arr_esize(a));
}

/* Records, at the entry of a helper compiled code calls, the caller's
 * stack pointer at the call: the helper's canonical frame address. */
#define FROM_CODE(c) ((c)->caller_sp = (uintptr_t)__builtin_dwarf_cfa())

static __attribute__((noinline)) void collect_from_here(const Word *roots, size_t n,
                                                          size_t n_globals) {
    uintptr_t lo = (uintptr_t)__builtin_frame_address(0) & ~(uintptr_t)7;
    /* From the compiled caller's frame when the running helper recorded
     * it (the globals' initialization before the program runs did not). */
    uintptr_t sp = ctx.caller_sp;
    if (sp > lo && sp <= ctx.stack_base && (sp & 7) == 0) lo = sp;
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
    StrObj *s = raw_alloc(c, sizeof(StrObj) + len);
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
    uint8_t *data = NULL;
    uint64_t esize = elem_size(elem);
    if (cap && !(data = raw_alloc(c, cap * esize))) {
        free(a);
        return NULL;
    }
    memset(&a->h, 0, sizeof a->h);
    a->h.kind = KIND_ARRAY;
    a->h.elems_are_refs = (uint8_t)is_ref(elem);
    a->h.byte_elems = esize == 1;
    a->len = 0;
    a->cap = cap;
    a->data = data;
    if (!track(c, a, array_size(cap, esize))) {
        free(data);
        free(a);
        return NULL;
    }
    return a;
}

/* Bytes of a deep copy of array `w` of type `t`. */
static uint64_t deep_size(uint32_t t, Word w) {
    ArrayObj *a = (ArrayObj *)(uintptr_t)w;
    uint32_t elem = elem_type(t);
    uint64_t size = array_size(a->len, elem_size(elem));
    if ((elem & 0xff) == T_ARRAY)
        for (uint64_t i = 0; i < a->len; i++) size = add_size(size, deep_size(elem, arr_get(a, i)));
    return size;
}

/* A deep copy of array `w` of type `t` (reserved); 0 when out of memory. */
static Word deep_copy(VmCtx *c, uint32_t t, Word w) {
    ArrayObj *src = (ArrayObj *)(uintptr_t)w;
    uint32_t elem = elem_type(t);
    ArrayObj *a = new_array(c, elem, src->len);
    if (!a) return 0;
    for (uint64_t i = 0; i < src->len; i++) {
        Word e = arr_get(src, i);
        if ((elem & 0xff) == T_ARRAY) {
            e = deep_copy(c, elem, e);
            if (!e) return 0;
        }
        arr_set(a, a->len++, e);
    }
    return (Word)(uintptr_t)a;
}

/* --------------------------------------------------------------- helpers */

static Word h_array_new(VmCtx *c, uint32_t elem, const Word *elems, uint64_t n) {
    FROM_CODE(c);
    /* The elements are in the caller's frame, inside the scanned stack. */
    if (!reserve(c, array_size(n, elem_size(elem)), NULL, 0)) return 0;
    ArrayObj *a = new_array(c, elem, n);
    if (!a) return 0;
    for (uint64_t i = 0; i < n; i++) arr_set(a, i, elems[i]);
    a->len = n;
    return (Word)(uintptr_t)a;
}

static Word h_array_repeat(VmCtx *c, uint32_t elem, Word value, int64_t count) {
    FROM_CODE(c);
    if (count < 0) {
        c->trap_code = TRAP_NEGATIVE_LENGTH;
        return 0;
    }
    int copies = (elem & 0xff) == T_ARRAY;
    uint64_t total = array_size((uint64_t)count, elem_size(elem));
    if (copies) total = add_size(total, mul_size(deep_size(elem, value), (uint64_t)count));
    Word roots[1] = {value};
    if (!reserve(c, total, roots, 1)) return 0;
    ArrayObj *a = new_array(c, elem, (uint64_t)count);
    if (!a) return 0;
    if (!copies) {
        if (count && (value == 0 || a->h.byte_elems))
            memset(a->data, (int)(uint8_t)value, (size_t)count * arr_esize(a));
        else
            for (int64_t i = 0; i < count; i++) arr_set(a, (uint64_t)i, value);
        a->len = (uint64_t)count;
        return (Word)(uintptr_t)a;
    }
    for (int64_t i = 0; i < count; i++) {
        Word e = deep_copy(c, elem, value);
        if (!e) return 0;
        arr_set(a, a->len++, e);
    }
    return (Word)(uintptr_t)a;
}

static void h_array_push(VmCtx *c, Word array, Word value) {
    FROM_CODE(c);
    ArrayObj *a = (ArrayObj *)(uintptr_t)array;
    if (a->len == a->cap) {
        /* The host's growth rule (heap::grown_capacity): double, at least 4. */
        uint64_t cap = a->cap * 2 < 4 ? 4 : a->cap * 2;
        Word roots[2] = {array, value};
        /* The whole new buffer must fit: the old one is freed after the copy. */
        uint64_t esize = arr_esize(a);
        if (cap > UINT64_MAX / 16 || !reserve(c, cap * esize, roots, 2)) {
            c->trap_code = TRAP_OUT_OF_MEMORY;
            return;
        }
        uint8_t *data = raw_alloc(c, cap * esize);
        if (!data) return;
        if (a->len) memcpy(data, a->data, a->len * esize);
        free(a->data);
        mem_used += (cap - a->cap) * esize;
        a->data = data;
        a->cap = cap;
    }
    arr_set(a, a->len++, value);
}

static Word h_str_concat(VmCtx *c, Word a, Word b) {
    FROM_CODE(c);
    StrObj *x = (StrObj *)(uintptr_t)a, *y = (StrObj *)(uintptr_t)b;
    uint64_t len = add_size(x->len, y->len);
    Word roots[2] = {a, b};
    if (!reserve(c, str_size(len), roots, 2)) return 0;
    StrObj *s = raw_alloc(c, sizeof(StrObj) + len);
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

