/* Tempo: the floating-point fingerprint of the game's build.
 *
 * Tempo's own schedule is integers only, and a recording hands the game the
 * same input, items and dt_ns at the same ticks (tempo/replay.h). Whether
 * the game then computes the same state is up to the game's float code and
 * the flags it was compiled with: the same source gives other bits when a
 * compiler fuses a*b+c into one FMA (clang on aarch64 in every -std mode,
 * gcc in its default gnu mode on any FMA target), or when 32-bit x86 keeps
 * float and double intermediates in 80-bit x87 registers. See
 * docs/determinism.md for what Tempo guarantees, what the game must do and
 * the flags, which a game gets by default (meson: dependency('tempo');
 * pkg-config: tempo; CMake: tempo::tempo; opt out with
 * -Dtempo:deterministic_consumers=false).
 *
 * tempo_fingerprint() probes those behaviours where it is compiled: it is
 * a static inline function, so it sees the flags of the translation unit
 * that calls it, i.e. the game's. tempo_loop_record() and
 * tempo_loop_replay() (tempo/replay.h) are inline too and call it in the
 * game's own code: every recording stores the recorder's fingerprint and
 * build identity (TEMPO_BUILD_IDENTITY, below), and a replay on a build
 * that may compute other bits is refused before it starts
 * (tempo_build_compare), or, when the game asks, replayed with both builds
 * named in one line and in the desync report. Lockstep peers exchange both
 * in their handshake and refuse a peer the same way.
 *
 * The probe covers the behaviours that change results on today's
 * compilers; equal fingerprints do not prove equal results (libm
 * functions, uninitialised memory and pointer-order iteration are not
 * probed: docs/determinism.md), different ones mean the same float code
 * may give other bits. */
#ifndef TEMPO_DETERMINISM_H
#define TEMPO_DETERMINISM_H

#include <float.h>
#include <stddef.h>
#include <stdint.h>

#include "base.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Bits of a fingerprint. Values are part of the recording format. */
enum {
    /* float x*y + z was computed without rounding the product first: the
     * compiler fused it into an FMA (contraction), or the product was kept
     * wider (excess precision, see WIDE_FLOAT) */
    TEMPO_FINGERPRINT_FUSED_FLOAT = 1u << 0,
    TEMPO_FINGERPRINT_FUSED_DOUBLE = 1u << 1,  /* the same for double */
    /* float (x + y) - x kept bits a float cannot hold: intermediates are
     * wider than float (x87, FLT_EVAL_METHOD 2) */
    TEMPO_FINGERPRINT_WIDE_FLOAT = 1u << 2,
    TEMPO_FINGERPRINT_WIDE_DOUBLE = 1u << 3,   /* the same for double */
    /* FLT_MIN * 0.5f gave 0: subnormals are flushed to zero (FTZ/DAZ, set
     * by -ffast-math's start-up code or by the game) */
    TEMPO_FINGERPRINT_FLUSH_SUBNORMALS = 1u << 4,
    /* compiled with -ffast-math (__FAST_MATH__): reassociation and more */
    TEMPO_FINGERPRINT_FAST_MATH = 1u << 5,
    /* bits 8-15: FLT_EVAL_METHOD as an 8-bit two's complement (0xFF: -1,
     * indeterminable); bits 24-31: the probe's version (1), so that 0 never
     * is a fingerprint and means "unknown" */
    TEMPO_FINGERPRINT_EVAL_SHIFT = 8,
    TEMPO_FINGERPRINT_VERSION_SHIFT = 24,
    TEMPO_FINGERPRINT_PROBE_VERSION = 1
};

/* The fingerprint of a build whose float code gives the same bits as
 * every other such build: no fusing, no wide intermediates, subnormals
 * kept, no fast-math, FLT_EVAL_METHOD 0. What tempo-deterministic's flags
 * give on x86-64, aarch64 and i686 with SSE. */
#define TEMPO_FINGERPRINT_PORTABLE ((uint32_t)TEMPO_FINGERPRINT_PROBE_VERSION << TEMPO_FINGERPRINT_VERSION_SHIFT)

/* The floating-point fingerprint of the code compiled with the caller's
 * flags: a few float and double computations on volatile inputs (so the
 * compiler cannot fold them at compile time) whose rounded results differ
 * when the product is fused or intermediates are wider, FLT_EVAL_METHOD,
 * a subnormal product and __FAST_MATH__. Compile-time and run-time state
 * both count (FTZ is a run-time CPU mode: call it on the thread that runs
 * the game's update). Never 0. Thread: any. Cost: under a microsecond. */
static inline uint32_t tempo_fingerprint(void)
{
    /* Fused: (1 + 2^-12)^2 = 1 + 2^-11 + 2^-24, whose float rounding is
     * 1 + 2^-11 (a tie, to even): z cancels it to 0 unless the product
     * kept its last 2^-24. Double: the same with 2^-27 and 2^-54. Wide:
     * 1 + 2^-24 is not a float (1 + 2^-53 not a double), so (1 + e) - 1
     * is 0 when every intermediate is rounded to its type. The decimal
     * constants are those powers of two exactly (no hex floats: C++ < 17). */
    volatile float fx = 1.000244140625f, fz = -1.00048828125f;
    volatile double dx = 1.0000000074505805969238281250, dz = -1.0000000149011611938476562500;
    volatile float f1 = 1.0f, fe = 5.9604644775390625e-8f, fmin = FLT_MIN, fhalf = 0.5f;
    volatile double d1 = 1.0, de = 1.1102230246251565404236316680908203125e-16;
    volatile float fr;
    volatile double dr;
    uint32_t fp = (uint32_t)TEMPO_FINGERPRINT_PROBE_VERSION << TEMPO_FINGERPRINT_VERSION_SHIFT;
    fr = fx * fx + fz; /* one expression: contraction applies within it */
    if (fr > 0.0f) /* > rather than !=: no -Wfloat-equal in games that use it */
        fp |= TEMPO_FINGERPRINT_FUSED_FLOAT;
    dr = dx * dx + dz;
    if (dr > 0.0)
        fp |= TEMPO_FINGERPRINT_FUSED_DOUBLE;
    fr = (f1 + fe) - f1;
    if (fr > 0.0f)
        fp |= TEMPO_FINGERPRINT_WIDE_FLOAT;
    dr = (d1 + de) - d1;
    if (dr > 0.0)
        fp |= TEMPO_FINGERPRINT_WIDE_DOUBLE;
    fr = fmin * fhalf;
    if (!(fr > 0.0f))
        fp |= TEMPO_FINGERPRINT_FLUSH_SUBNORMALS;
#if defined(__FAST_MATH__)
    fp |= TEMPO_FINGERPRINT_FAST_MATH;
#endif
#if defined(FLT_EVAL_METHOD)
    fp |= (uint32_t)(uint8_t)(FLT_EVAL_METHOD) << TEMPO_FINGERPRINT_EVAL_SHIFT;
#else
    fp |= (uint32_t)0xFF << TEMPO_FINGERPRINT_EVAL_SHIFT;
#endif
    return fp;
}

/* ---- The build identity ------------------------------------------------ */

/* The most bytes of a build identity, its NUL included. Part of the
 * recording format (version 3). */
#define TEMPO_BUILD_IDENTITY_MAX 128

#define TEMPO__BUILD_STR2(x) #x
#define TEMPO__BUILD_STR(x) TEMPO__BUILD_STR2(x)

/* The compiler and its version: two builds of one source by other
 * compilers (or versions) may schedule and fuse float code differently
 * wherever contraction is allowed. */
#if defined(__clang__)
#define TEMPO__BUILD_COMPILER                                                                                 \
    "clang " TEMPO__BUILD_STR(__clang_major__) "." TEMPO__BUILD_STR(__clang_minor__) "." TEMPO__BUILD_STR( \
        __clang_patchlevel__)
#elif defined(__GNUC__)
#define TEMPO__BUILD_COMPILER                                                                          \
    "gcc " TEMPO__BUILD_STR(__GNUC__) "." TEMPO__BUILD_STR(__GNUC_MINOR__) "." TEMPO__BUILD_STR( \
        __GNUC_PATCHLEVEL__)
#elif defined(_MSC_VER)
#define TEMPO__BUILD_COMPILER "msvc " TEMPO__BUILD_STR(_MSC_FULL_VER)
#else
#define TEMPO__BUILD_COMPILER "unknown compiler"
#endif

/* The target and what decides its float arithmetic: the instruction set,
 * whether the compiler may use FMA instructions (__FMA__ on x86; always
 * there on aarch64; __FP_FAST_FMA: fma() is one instruction), and on 32-bit
 * x86 whether maths is SSE2 (rounded to its type) or x87 (80-bit). */
#if defined(__x86_64__) || defined(_M_X64)
#define TEMPO__BUILD_ARCH "x86_64"
#elif defined(__i386__) || defined(_M_IX86)
#define TEMPO__BUILD_ARCH "i386"
#elif defined(__aarch64__) || defined(_M_ARM64)
#define TEMPO__BUILD_ARCH "aarch64"
#elif defined(__arm__) || defined(_M_ARM)
#define TEMPO__BUILD_ARCH "arm"
#elif defined(__riscv)
#define TEMPO__BUILD_ARCH "riscv" TEMPO__BUILD_STR(__riscv_xlen)
#elif defined(__wasm__)
#define TEMPO__BUILD_ARCH "wasm"
#elif defined(__powerpc64__)
#define TEMPO__BUILD_ARCH "ppc64"
#else
#define TEMPO__BUILD_ARCH "unknown arch"
#endif
#if defined(__FMA__)
#define TEMPO__BUILD_FMA " +fma"
#else
#define TEMPO__BUILD_FMA ""
#endif
#if defined(__FP_FAST_FMA) || defined(__FP_FAST_FMAF)
#define TEMPO__BUILD_FAST_FMA " +fast-fma"
#else
#define TEMPO__BUILD_FAST_FMA ""
#endif
#if defined(__i386__) || defined(__x86_64__)
#if defined(__SSE2_MATH__)
#define TEMPO__BUILD_FPMATH " fpmath=sse2"
#elif defined(__SSE_MATH__)
#define TEMPO__BUILD_FPMATH " fpmath=sse"
#else
#define TEMPO__BUILD_FPMATH " fpmath=387"
#endif
#elif defined(_M_IX86_FP)
#define TEMPO__BUILD_FPMATH " arch:IA32_FP=" TEMPO__BUILD_STR(_M_IX86_FP)
#else
#define TEMPO__BUILD_FPMATH ""
#endif
/* Flags that change float code and that the preprocessor can see. No
 * compiler defines a macro for -ffp-contract: whether contraction is off
 * is what the fingerprint's probe measures (stored beside the identity). */
#if defined(__FAST_MATH__)
#define TEMPO__BUILD_FAST_MATH " -ffast-math"
#else
#define TEMPO__BUILD_FAST_MATH ""
#endif
#if defined(__OPTIMIZE__)
#define TEMPO__BUILD_OPT " optimized"
#else
#define TEMPO__BUILD_OPT " -O0"
#endif

/* The build identity of the translation unit that expands it, as one
 * string literal, e.g. "gcc 12.2.0, x86_64 +fma fpmath=sse2, optimized":
 * the compiler and its version, the target and its float instructions,
 * and the flags the preprocessor sees (FLT_EVAL_METHOD is in the
 * fingerprint). A macro, like
 * tempo_fingerprint() an inline function, so that it describes the game's
 * code rather than Tempo's library. Shorter than TEMPO_BUILD_IDENTITY_MAX. */
#define TEMPO_BUILD_IDENTITY                                                                                       \
    TEMPO__BUILD_COMPILER ", " TEMPO__BUILD_ARCH TEMPO__BUILD_FMA TEMPO__BUILD_FAST_FMA TEMPO__BUILD_FPMATH "," \
        TEMPO__BUILD_OPT TEMPO__BUILD_FAST_MATH

/* What a recording or a lockstep peer says about the build that computes
 * its state. */
typedef struct tempo_build {
    uint32_t fingerprint; /* tempo_fingerprint() of the game's code; 0: unknown */
    const char *identity; /* TEMPO_BUILD_IDENTITY of the game's code; NULL or "": unknown */
    const char *label;    /* how texts name this side ("recorded", "this build", "theirs");
                             NULL => "one build" / "the other" */
} tempo_build;

/* This translation unit's build: its fingerprint and identity, labelled
 * `label`. Inline so that it is the game's. Thread: any. */
static inline tempo_build tempo_build_this(const char *label)
{
    tempo_build b;
    b.fingerprint = tempo_fingerprint();
    b.identity = TEMPO_BUILD_IDENTITY;
    b.label = label;
    return b;
}

/* Whether state computed by build `a` can be computed again by build `b`
 * (a recording and its replay, two lockstep peers):
 *  - either fingerprint unknown (0): not checkable, 0 (a recording of
 *    format version 1);
 *  - fingerprints differ: TEMPO_EBUILD;
 *  - both TEMPO_FINGERPRINT_PORTABLE: 0, whatever compiler or CPU (the
 *    point of the flags);
 *  - equal but not portable (fused, x87, fast-math): the identities must
 *    both be known and equal, else TEMPO_EBUILD (two fused builds by other
 *    compilers or for other CPUs fuse other expressions).
 * On TEMPO_EBUILD, `why` gets one line naming both sides (label,
 * fingerprint described, identity), the reason and what to change, e.g.
 * "built differently (recorded: fingerprint 01000003: ..., gcc 12.2.0,
 * x86_64 +fma ...; this build: fingerprint 01000000: portable ..., clang
 * 14.0.6, aarch64 ...): the floating-point fingerprints differ: build the
 * game with Tempo's deterministic flags (...)"; on 0 it gets "" (or a
 * note when not checkable). `why` may be NULL with size 0. Returns 0,
 * TEMPO_EBUILD, or TEMPO_EINVAL (a or b NULL). Does no float arithmetic.
 * Thread: any. */
TEMPO_API int tempo_build_compare(const tempo_build *a, const tempo_build *b, char *why, size_t size);

/* Writes a short English description of fingerprint `fp` into buf (at
 * most size bytes, always NUL-terminated when size > 0), e.g.
 * "fingerprint 01000000: portable (no fusing, no wide intermediates,
 * FLT_EVAL_METHOD 0)" or "fingerprint 01000003: a*b+c fused (FMA
 * contraction) in float and double, FLT_EVAL_METHOD 0"; 0 is "unknown".
 * Returns the length the full text needs (like snprintf), or TEMPO_EINVAL
 * for buf NULL with size > 0. Does no float arithmetic. Thread: any. */
TEMPO_API int tempo_fingerprint_describe(uint32_t fp, char *buf, size_t size);

#ifdef __cplusplus
}
#endif
#endif /* TEMPO_DETERMINISM_H */
