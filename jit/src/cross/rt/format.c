/* Part 3 of the AArch64 runtime (see common.h): `str(x)` and `print`. */

/* The text of `str(x)`: measured first (`count_only`: only `len` grows),
 * then written into the string object's own bytes (`fixed`: `p` has room
 * for exactly the measured length), so it never exists in a temporary. */
typedef struct {
    uint8_t *p;
    size_t len, cap;
    int failed, count_only, fixed;
} Buf;

static void buf_put(Buf *b, const void *src, size_t n) {
    if (b->failed) return;
    if (b->count_only) {
        b->len += n;
        return;
    }
    if (b->fixed && b->len + n > b->cap) {
        b->failed = 1;
        return;
    }
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
            format_value(b, elem, arr_get(a, i), 1);
        }
        buf_str(b, "]");
        break;
    }
    default: break;
    }
}

static Word h_to_str(VmCtx *ctx, uint32_t t, Word value) {
    FROM_CODE(ctx);
    if ((t & 0xff) == T_STR) return value;
    Buf count = {0};
    count.count_only = 1;
    format_value(&count, t, value, 0);
    Word roots[1] = {value};
    if (!reserve(ctx, str_size(count.len), roots, 1)) return 0;
    StrObj *s = raw_alloc(ctx, sizeof(StrObj) + count.len);
    if (!s) return 0;
    Buf b = {0};
    b.p = (uint8_t *)(s + 1);
    b.cap = count.len;
    b.fixed = 1;
    format_value(&b, t, value, 0);
    memset(&s->h, 0, sizeof s->h);
    s->h.kind = KIND_STR;
    s->len = b.len;
    s->ptr = (const uint8_t *)(s + 1);
    if (b.failed || !track(ctx, s, str_size(count.len))) {
        free(s);
        ctx->trap_code = TRAP_OUT_OF_MEMORY;
        return 0;
    }
    return (Word)(uintptr_t)s;
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
        for (uint64_t i = 0; i < a->len; i++) write_value(elem, arr_get(a, i));
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
    if (flush_each_print) out_flush();
}
