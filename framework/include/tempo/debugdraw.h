/*
 * tempo/debugdraw.h - a built-in bitmap font and frame-time graph for debug overlays, and the
 * overlay a tempo_loop draws of its statistics (tempo_loop_draw_stats; the numbers are
 * tempo/stats.h's).
 *
 * Everything here draws through SDL_Renderer only, so an overlay works on any renderer backend
 * (software, GL, D3D, Metal) without a font library or a texture upload. Draw calls are batched:
 * one SDL_RenderFillRects call per up to 256 rectangles, never one call per pixel.
 *
 * Common rules for every function in this header:
 *   Thread:    the thread that owns the renderer (the one that created it; SDL renderers are not
 *              thread-safe). tempo_debug_text_size() touches no renderer and is Thread: any.
 *   Ownership: nothing is retained; every pointer argument is only read during the call.
 *   Errors:    0 on success, or a negative TEMPO_E* code like the rest of the API: TEMPO_EINVAL
 *              for an invalid argument, TEMPO_EPLATFORM when an SDL call failed; the detail
 *              (SDL_GetError() text for SDL failures) is in tempo_get_error().
 *              A failed call may have drawn part of its output.
 */
#ifndef TEMPO_DEBUGDRAW_H
#define TEMPO_DEBUGDRAW_H

#include <stdint.h>

#include <SDL.h>

#include "base.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Glyph cell is 6x8 pixels at scale 1 (5x7 glyph + 1 px spacing on the right and at the bottom),
 * so text placed at multiples of the cell does not run together. Lowercase is real lowercase;
 * only the descenders of g, j, p, q and y reach into the bottom spacing row. */
#define TEMPO_DEBUG_GLYPH_W 6
#define TEMPO_DEBUG_GLYPH_H 8

/* tempo_debug_textf() formats into a buffer of this many characters (plus the terminator) and
 * silently drops the rest: a debug overlay should never fail or allocate because a line ran long. */
#define TEMPO_DEBUG_TEXTF_MAX 256

/*
 * Draws `text` with its top-left corner at (x, y), each font pixel a `scale` x `scale` square
 * (scale is clamped to 1..1024), in the renderer's current draw colour and blend mode, which are
 * left unchanged. Coordinates are in the renderer's logical pixels; SDL clips what falls outside.
 *
 * Layout: '\n' starts a new line at x, TEMPO_DEBUG_GLYPH_H * scale lower; '\t' advances to the
 * next multiple of 4 cells; '\r' is ignored. Other bytes outside printable ASCII (32..126) draw
 * as a small box; a UTF-8 sequence draws one box, not one per byte.
 *
 * text: NUL-terminated; NULL draws nothing and returns 0.
 * Returns 0, TEMPO_EINVAL if r is NULL, or TEMPO_EPLATFORM if SDL_RenderFillRects() failed.
 */
TEMPO_API int tempo_debug_text(SDL_Renderer *r, int x, int y, int scale, const char *text);

/*
 * printf-style tempo_debug_text(): formats `fmt` (standard C vsnprintf semantics) and draws the
 * result, truncated to TEMPO_DEBUG_TEXTF_MAX characters. Same layout, colour and thread rules.
 *
 * Returns 0, TEMPO_EINVAL (r or fmt NULL, or an encoding error while formatting), or
 * TEMPO_EPLATFORM if drawing failed.
 */
TEMPO_API int tempo_debug_textf(SDL_Renderer *r, int x, int y, int scale, const char *fmt, ...)
    TEMPO_PRINTF(5, 6);

/*
 * Size in pixels of the box tempo_debug_text() covers for `text` at `scale`: the widest line times
 * TEMPO_DEBUG_GLYPH_W * scale by the number of lines times TEMPO_DEBUG_GLYPH_H * scale. The box
 * includes the cell spacing, so (x + *w) is where text continuing on the right would start.
 * Lines are counted as drawn: "ab\n" is two lines (the second empty); "" and NULL are 0 x 0.
 *
 * w, h: either may be NULL when only the other is wanted.
 * Thread: any (touches no renderer). Cannot fail.
 */
TEMPO_API void tempo_debug_text_size(const char *text, int scale, int *w, int *h);

/*
 * A frame-time graph. Zero fields take the default written beside them; a NULL desc is all
 * defaults at (0, 0).
 */
typedef struct tempo_debug_graph_desc {
    int x, y;                  /* top-left corner in pixels */
    int w, h;                  /* size in pixels; w 0 => 240, h 0 => 60; negative is an error */
    uint64_t full_scale_ns;    /* sample that fills the height; 0 => 33'333'333 (two 60 Hz frames) */
    uint64_t warn_ns;          /* samples above this draw in the warning colour, and a line marks
                                  it; 0 => 16'666'667 (one 60 Hz frame) */
} tempo_debug_graph_desc;

/*
 * Draws the graph: a translucent dark background, then one vertical bar per sample growing up
 * from the bottom edge (green, or red when the sample is above warn_ns), then a yellow line at
 * warn_ns (omitted when warn_ns is above full_scale_ns). Bars are clipped at the top edge, and a
 * non-zero sample is always at least 1 px tall so that it is visibly there.
 *
 * samples_ns: n samples in nanoseconds, oldest first; the newest sample sits at the right edge.
 * Each bar is floor(w / n) px wide (at least 1, with a 1 px gap once bars are 3 px or wider);
 * when n > w only the newest w samples are drawn. n <= 0 draws the background and line only.
 *
 * The renderer's draw colour and blend mode are restored before returning, also on failure.
 * Returns 0, TEMPO_EINVAL if r is NULL, desc has a negative size or samples_ns is NULL with
 * n > 0, or TEMPO_EPLATFORM if an SDL call failed.
 */
TEMPO_API int tempo_debug_graph(SDL_Renderer *r, const tempo_debug_graph_desc *desc,
                                const uint64_t *samples_ns, int n);

/* ---- The loop's statistics overlay --------------------------------------- */

typedef struct tempo_loop tempo_loop; /* tempo/loop.h */

/* Size of the panel at scale 1: TEMPO_LOOP_STATS_W x TEMPO_LOOP_STATS_H
 * without sources, plus TEMPO_LOOP_STATS_SOURCE_H per source and one
 * heading line (tempo_loop_stats_height()). At scale k every length is k
 * times these. */
#define TEMPO_LOOP_STATS_W 300
#define TEMPO_LOOP_STATS_H 224
#define TEMPO_LOOP_STATS_SOURCE_H 12

/* The panel's height at scale 1 now. TEMPO_LOOP_STATS_H for NULL. */
TEMPO_API int tempo_loop_stats_height(const tempo_loop *loop);

/* The automatic scale of the panel: the largest integer k (1..16) with the
 * panel (panel_w x panel_h at scale 1) at most a quarter of the area's
 * width and half its height, and at least 1 (so a small window gets the
 * scale-1 panel, a 2560 px one twice that). 1 for sizes <= 0. A pure
 * function. Thread: any. */
TEMPO_API int tempo_loop_stats_fit_scale(int area_w, int area_h, int panel_w, int panel_h);

/* The scale tempo_loop_draw_stats() uses on `renderer` now:
 * tempo_loop_stats_fit_scale() of the area it draws into, which is the
 * renderer's logical size when one is set (SDL_RenderSetLogicalSize),
 * else its output size (the window's pixels, or the render target's, in
 * HiDPI pixels too) divided by its render scale (SDL_RenderSetScale), and
 * of the panel's size now. The panel then covers TEMPO_LOOP_STATS_W * k by
 * tempo_loop_stats_height(loop) * k. 1 for a NULL renderer (or when SDL
 * cannot tell the size). Thread: the renderer's thread. */
TEMPO_API int tempo_loop_stats_scale(const tempo_loop *loop, SDL_Renderer *renderer);

/* Draws the statistics overlay (policy and rates, last-second numbers,
 * lateness, wait/game/loop shares, wake reasons, drops, a frame-time graph,
 * and per source: share of time, items/s, overruns and oldest age) as a
 * panel with its top-left corner at (x, y), with tempo/debugdraw.h, at
 * the scale tempo_loop_stats_scale(loop, renderer) gives: scaled to the
 * window, TEMPO_LOOP_STATS_W x tempo_loop_stats_height() at scale 1. The
 * renderer's draw colour and blend mode are restored. Call it from the
 * render callback, before presenting. Thread: the renderer's thread (the
 * loop thread). Returns 0, TEMPO_EINVAL (NULL loop or renderer) or
 * TEMPO_EPLATFORM (an SDL call failed; detail in tempo_get_error()). */
TEMPO_API int tempo_loop_draw_stats(tempo_loop *loop, SDL_Renderer *renderer, int x, int y);

/* tempo_loop_draw_stats() at a given integer scale (1..16), e.g. to draw
 * into a texture of known size (TEMPO_LOOP_STATS_W * scale by
 * tempo_loop_stats_height() * scale) that is copied to the window. Returns
 * as tempo_loop_draw_stats, and TEMPO_EINVAL for a scale out of range. */
TEMPO_API int tempo_loop_draw_stats_scaled(tempo_loop *loop, SDL_Renderer *renderer, int x, int y,
                                           int scale);

#ifdef __cplusplus
}
#endif

#endif /* TEMPO_DEBUGDRAW_H */
