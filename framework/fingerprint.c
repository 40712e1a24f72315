/* tempo_fingerprint_describe and tempo_build_compare (tempo/determinism.h):
 * the fingerprint as words, and whether two builds compute the same bits.
 * Pure formatting: the probe itself is inline in the header so that
 * it runs with the game's flags, never with the library's. */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

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

/* "recorded: fingerprint 01000003: ..., gcc 12.2.0, x86_64 +fma ..." */
static void add_side(text *t, const tempo_build *b, const char *label)
{
    char fp[256];
    tempo_fingerprint_describe(b->fingerprint, fp, sizeof fp);
    bool known = b->identity != NULL && b->identity[0] != '\0';
    add(t, "%s: %s, %.*s", b->label != NULL ? b->label : label, fp, TEMPO_BUILD_IDENTITY_MAX - 1,
        known ? b->identity : "build identity unknown");
}

int tempo_build_compare(const tempo_build *a, const tempo_build *b, char *why, size_t size)
{
    /* No tempo__set_error: this file stands alone (tests/unit/fp_check and
     * .ci/fp-matrix link it without the rest of Tempo). */
    if (a == NULL || b == NULL || (why == NULL && size > 0))
        return TEMPO_EINVAL;
    text t = {why, size, 0};
    if (size > 0)
        why[0] = '\0';
    if (a->fingerprint == 0 || b->fingerprint == 0) {
        add(&t, "not checked: a floating-point fingerprint is unknown");
        return 0;
    }
    bool ida = a->identity != NULL && a->identity[0] != '\0';
    bool idb = b->identity != NULL && b->identity[0] != '\0';
    bool portable = a->fingerprint == TEMPO_FINGERPRINT_PORTABLE && b->fingerprint == TEMPO_FINGERPRINT_PORTABLE;
    const char *reason;
    if (a->fingerprint != b->fingerprint)
        reason = "the floating-point fingerprints differ";
    else if (portable)
        return 0; /* no fusing, no wide intermediates: any compiler, any CPU */
    else if (!ida || !idb)
        reason = "the fingerprint is not portable and a build identity is unknown, so the builds cannot be shown "
                 "to be the same";
    else if (strncmp(a->identity, b->identity, TEMPO_BUILD_IDENTITY_MAX) != 0)
        reason = "the fingerprint is not portable (fused, wide or fast-math) and the builds differ: another "
                 "compiler or CPU fuses or widens other expressions";
    else
        return 0; /* the same non-portable build: same code, same bits */
    add(&t, "built differently (");
    add_side(&t, a, "one build");
    add(&t, "; ");
    add_side(&t, b, "the other");
    add(&t, "): %s: build the game with Tempo's deterministic flags (-ffp-contract=off; on 32-bit x86 also "
            "-msse2 -mfpmath=sse: dependency('tempo'), pkg-config tempo and CMake tempo::tempo carry them unless "
            "Tempo is configured with -Dtempo:deterministic_consumers=false; docs/determinism.md) so that both "
            "fingerprints are portable, or use the very same build on both sides",
        reason);
    return TEMPO_EBUILD;
}
