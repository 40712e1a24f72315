/* Splitting an image's texture upload across frames (issue 21).
 *
 * Pure arithmetic, no clock and no SDL, so the decision is tested on its
 * own (tests/unit/test_loader.c, upload_rows_*). [loop thread] */
#ifndef TEMPO_UPLOAD_SPLIT_H
#define TEMPO_UPLOAD_SPLIT_H

#include <stdbool.h>
#include <stdint.h>

/* The cost per byte assumed before the first upload was measured: 1 ns/byte
 * (a 256x256 RGBA texture in 0.26 ms). The first measurement replaces it. */
#define TEMPO__UPLOAD_PRIOR_NS_PER_BYTE 1.0

/* The smallest strip worth one SDL_UpdateTexture call (each call has a fixed
 * cost): 16 KiB, at least one row. */
#define TEMPO__UPLOAD_MIN_STRIP_BYTES 16384u

/* How many of `rows_left` rows (each `row_bytes`) to upload now, with
 * `time_left_ns` before the deadline at `ns_per_byte` (<= 0: the prior).
 * All rows when they fit; else the rows that fit, or 0 when fewer than one
 * minimum strip fits (the upload waits for the next call). `must_progress`:
 * at least one minimum strip even when nothing fits (the caller's
 * guaranteed unit of progress), never more than fits or a minimum strip. */
int tempo__upload_rows(double ns_per_byte, uint64_t time_left_ns, uint64_t row_bytes, int rows_left,
                       bool must_progress);

/* The time to set aside for creating a texture of `texture_bytes` before its
 * first strip, at the learnt `create_ns_per_byte` (SDL_CreateTexture: the
 * renderer allocates the whole texture, GPU memory on opengl, about 1 ms for
 * 2048x2048 there; bench_upload): 0 before any creation was measured. The
 * upload's cost per byte is learnt from the copies alone, so without this
 * the call that creates a large texture overruns its deadline by the
 * creation. */
uint64_t tempo__upload_create_ns(double create_ns_per_byte, uint64_t texture_bytes);

/* The running estimate after an upload of `bytes` took `took_ns`: an
 * exponential average over ~4 uploads, weighted by nothing but recency
 * (`old` <= 0: none yet, the sample alone). */
double tempo__upload_learn(double old, uint64_t bytes, uint64_t took_ns);

#endif
