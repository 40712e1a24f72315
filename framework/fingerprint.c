/* tempo_fingerprint_describe (tempo/determinism.h): the fingerprint as
 * words. Pure formatting: the probe itself is inline in the header so that
 * it runs with the game's flags, never with the library's. */
#include <stdarg.h>
#include <stdio.h>

#include "tempo/determinism.h"
#include "tempo_internal.h"

typedef struct text {
    char *buf;
    size_t size;
    int len; /* what the whole text needs */
} text;

static void add(text *t, const char *fmt, ...) TEMPO__PRINTF(2, 3);

static void add(text *t, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    size_t at = (size_t)t->len < t->size ? (size_t)t->len : t->size;
    int n = vsnprintf(t->buf != NULL ? t->buf + at : NULL, t->size - at, fmt, ap);
    va_end(ap);
    if (n > 0)
        t->len += n;
}

/* "float", "double" or "float and double" for a pair of bits. */
static const char *types(uint32_t fp, uint32_t float_bit, uint32_t double_bit)
{
    bool f = (fp & float_bit) != 0, d = (fp & double_bit) != 0;
    return f && d ? "float and double" : f ? "float" : "double";
}

int tempo_fingerprint_describe(uint32_t fp, char *buf, size_t size)
{
    if (buf == NULL && size > 0)
        return TEMPO_EINVAL;
    text t = {buf, size, 0};
    if (size > 0)
        buf[0] = '\0';
    if (fp == 0) {
        add(&t, "fingerprint unknown");
        return t.len;
    }
    add(&t, "fingerprint %08x: ", (unsigned)fp);
    unsigned version = fp >> TEMPO_FINGERPRINT_VERSION_SHIFT;
    int eval = (int8_t)(uint8_t)(fp >> TEMPO_FINGERPRINT_EVAL_SHIFT);
    if (version != TEMPO_FINGERPRINT_PROBE_VERSION) {
        add(&t, "probe version %u (this Tempo knows %d)", version, TEMPO_FINGERPRINT_PROBE_VERSION);
        return t.len;
    }
    if (fp == TEMPO_FINGERPRINT_PORTABLE) {
        add(&t, "portable (no fusing, no wide intermediates, FLT_EVAL_METHOD 0)");
        return t.len;
    }
    const char *sep = "";
    if (fp & (TEMPO_FINGERPRINT_FUSED_FLOAT | TEMPO_FINGERPRINT_FUSED_DOUBLE)) {
        add(&t, "a*b+c fused (FMA contraction or a wide product) in %s",
            types(fp, TEMPO_FINGERPRINT_FUSED_FLOAT, TEMPO_FINGERPRINT_FUSED_DOUBLE));
        sep = ", ";
    }
    if (fp & (TEMPO_FINGERPRINT_WIDE_FLOAT | TEMPO_FINGERPRINT_WIDE_DOUBLE)) {
        add(&t, "%sintermediates wider than their type (x87 excess precision) in %s", sep,
            types(fp, TEMPO_FINGERPRINT_WIDE_FLOAT, TEMPO_FINGERPRINT_WIDE_DOUBLE));
        sep = ", ";
    }
    if (fp & TEMPO_FINGERPRINT_FLUSH_SUBNORMALS) {
        add(&t, "%ssubnormals flushed to zero", sep);
        sep = ", ";
    }
    if (fp & TEMPO_FINGERPRINT_FAST_MATH) {
        add(&t, "%s-ffast-math", sep);
        sep = ", ";
    }
    add(&t, "%sFLT_EVAL_METHOD %d", sep, eval);
    return t.len;
}
