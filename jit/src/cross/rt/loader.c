/* Part 4 of the AArch64 runtime (see common.h): the remaining helpers,
 * the image, and main. */


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

/* A trap is leaving the frame of function `func`, stopped at
 * file:line:col: that is the trap's location unless one is set; the frame
 * goes to the host as an 'F' record (the stack trace, innermost first). */
static void h_trap_frame(VmCtx *ctx, uint32_t func, uint32_t file, uint32_t line, uint32_t col) {
    if (!ctx->trap_loc_set && line != 0) {
        ctx->trap_loc_set = 1;
        ctx->trap_file = file;
        ctx->trap_line = line;
        ctx->trap_col = col;
    }
    out_u8('F');
    out_u32(func);
    out_u32(file);
    out_u32(line);
    out_u32(col);
}

/* Reads exactly `n` bytes from standard input; 0 at its end. */
static int read_exact(void *p, size_t n) {
    uint8_t *b = p;
    while (n > 0) {
        ssize_t k = read(0, b, n);
        if (k < 0 && errno == EINTR) continue;
        if (k <= 0) return 0;
        b += k;
        n -= (size_t)k;
    }
    return 1;
}

/* A call of host function `id` with `n` argument words (int, float bits,
 * bool 0/1: host functions of images take and return only scalars). The
 * process that runs the loader calls the function and replies on standard
 * input with the trap code (0: it returned) and the result word. */
static Word h_host_call(VmCtx *ctx, uint32_t id, const Word *args, uint64_t n) {
    out_u8('H');
    out_u32(id);
    out_u32((uint32_t)n);
    for (uint64_t i = 0; i < n; i++) out_u64(args[i]);
    out_flush();
    uint8_t reply[12];
    if (!read_exact(reply, sizeof reply)) fatal("no reply to a host call");
    uint32_t trap;
    Word w;
    memcpy(&trap, reply, 4);
    memcpy(&w, reply + 4, 8);
    if (trap) {
        ctx->trap_code = trap;
        return 0;
    }
    return w;
}

/* A helper images never call (interpreter-entry stubs). */
static void h_unsupported(void) { fatal("the code called a helper images do not have"); }

/* A tiering counter of T1 code ran out: `cell` is its byte offset in
 * ctx->tier_counters (calls of function `func`, or its back edges). It
 * starts again, as waddle_jit's `tier_up` re-arms it, and the host hears
 * of it in a 'T' record (there is no higher tier to move to here). */
static void h_tier_up(VmCtx *ctx, uint32_t func, uint32_t back_edge, uint64_t cell) {
    if (!ctx->tier_counters || cell % 8 != 0) fatal("bad tiering counter");
    ctx->tier_counters[cell / 8] = back_edge ? TIER_UP_EDGES_AGAIN : TIER_UP_CALLS_AGAIN;
    out_u8('T');
    out_u32(func);
    out_u32(back_edge);
}

/* In waddle_jit's `Helper` enum order. */
static const uintptr_t helper_table[N_HELPERS] = {
    (uintptr_t)h_array_new, (uintptr_t)h_array_repeat, (uintptr_t)h_array_push,
    (uintptr_t)h_str_concat, (uintptr_t)h_to_str, (uintptr_t)h_print,
    (uintptr_t)h_clock, (uintptr_t)h_fuel, (uintptr_t)h_str_cmp,
    (uintptr_t)h_sin, (uintptr_t)h_cos, (uintptr_t)h_tan,
    (uintptr_t)h_exp, (uintptr_t)h_log, (uintptr_t)h_fmod,
    (uintptr_t)h_trap_frame, (uintptr_t)h_host_call,
    (uintptr_t)h_unsupported, (uintptr_t)h_tier_up,
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

/* The image: a u64 length, then that many bytes (standard input stays
 * open for the replies to host calls). */
static uint8_t *read_image(size_t *len) {
    uint64_t n;
    if (!read_exact(&n, 8)) fatal("cannot read the image length");
    if (n > ((uint64_t)1 << 40)) fatal("image too large");
    uint8_t *p = malloc(n ? (size_t)n : 1);
    if (!p) fatal("out of memory reading the image");
    if (!read_exact(p, (size_t)n)) fatal("cannot read the image");
    *len = (size_t)n;
    return p;
}

static uintptr_t main_code;
static uint64_t stack_budget;

static void *run_main(void *arg) {
    (void)arg;
    uintptr_t base = (uintptr_t)__builtin_frame_address(0);
    ctx.stack_base = base;
    uint64_t bytes = stack_budget * STACK_BYTES_FACTOR;
    ctx.stack_limit = base > bytes ? base - bytes : 0;
    ctx.depth_left = (int64_t)(stack_budget / STACK_BYTES_PER_CALL);
    ((void (*)(VmCtx *))main_code)(&ctx);
    return NULL;
}

int main(int argc, char **argv) {
    if (argc != 6) fatal("usage: loader STACK_BUDGET MEMORY_LIMIT FUEL|- GC_STRESS FLUSH < image");
    stack_budget = strtoull(argv[1], NULL, 10);
    mem_limit = strtoull(argv[2], NULL, 10);
    if (strcmp(argv[3], "-") != 0) fuel_left = strtoull(argv[3], NULL, 10);
    gc_stress = strcmp(argv[4], "1") == 0;
    flush_each_print = strcmp(argv[5], "1") == 0;
    clock_gettime(CLOCK_MONOTONIC, &start_time);
    /* Keep freed memory for reuse instead of unmapping it (every mmap and
     * munmap is a system call qemu has to emulate). */
    mallopt(M_MMAP_THRESHOLD, 1 << 30);
    mallopt(M_TRIM_THRESHOLD, 1 << 30);

    size_t len;
    uint8_t *image = read_image(&len);
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
    uint32_t counter_calls = take_u32(&r), counter_edges = take_u32(&r);
    if (main_func >= n_funcs) fatal("bad main function index");
    if (counter_calls || counter_edges) {
        /* Two cells per function (calls, back edges), as the code expects. */
        int64_t *cells = calloc(2 * (size_t)n_funcs + 1, 8);
        if (!cells) fatal("out of memory");
        for (uint32_t i = 0; i < n_funcs; i++) {
            cells[2 * i] = counter_calls;
            cells[2 * i + 1] = counter_edges;
        }
        ctx.tier_counters = cells;
    }

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
        if (!reserve(&ctx, array_size(0, 8), NULL, 0)) fatal("out of memory for globals");
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
    if (pthread_attr_setstacksize(&attr, (size_t)stack_budget * STACK_BYTES_FACTOR + (8u << 20)) != 0)
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
