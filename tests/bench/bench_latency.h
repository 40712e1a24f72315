/* bench_latency's pure pieces (tested in test_bench_latency): the id of the
 * newest input a frame shows, coded as the frame's colour; and the record of
 * each input's way to the screen (injected, read by an update, rendered,
 * presented, on screen) with the display's frames shown, missed and never
 * shown. No clock, no SDL: the caller passes every time, in ns.
 * Thread: the caller's; a lat_track is not shared (see bench_latency.c for
 * the one field the injecting thread writes). */
#ifndef TEMPO_BENCH_LATENCY_H
#define TEMPO_BENCH_LATENCY_H

#include <stdbool.h>
#include <stdint.h>

/* Ids are 1..LAT_ID_MAX; 0 is "no input yet". */
#define LAT_ID_MAX 0xFFFFFFu

/* The colour a frame showing input `id` is cleared to: the id's 24 bits as
 * red, green, blue, so one pixel read back says which input the frame shows
 * (SDL's software and OpenGL renderers keep a flat colour exact). */
static inline void lat_colour_of(uint32_t id, uint8_t *r, uint8_t *g, uint8_t *b)
{
    *r = (uint8_t)(id >> 16);
    *g = (uint8_t)(id >> 8);
    *b = (uint8_t)id;
}

static inline uint32_t lat_id_of(uint8_t r, uint8_t g, uint8_t b)
{
    return (uint32_t)r << 16 | (uint32_t)g << 8 | b;
}

/* One input's times (ns; 0: not reached). */
typedef struct lat_input {
    uint64_t injected;  /* pushed into the event queue */
    uint64_t read;      /* an update took it */
    uint64_t rendered;  /* the render of the first frame that showed it began */
    uint64_t presented; /* that frame's present was called */
    uint64_t ready;     /* its present's own work was done (SDL_RenderPresent returned, or the
                           blocking one's work: see bench_latency.c) */
    uint64_t shown;     /* that frame reached the screen: its vblank (or the present's return) */
} lat_input;

typedef struct lat_track {
    lat_input *in;    /* in[1..cap); owned by the caller */
    uint32_t cap;
    uint32_t shown;   /* every id up to this one has reached the screen */
    uint64_t from_k;  /* frames on vblanks before this one are not counted (warm-up) */
    uint64_t last_k;  /* the vblank of the previous present (0: none yet) */
    uint64_t presents;  /* presents counted (on vblank from_k or later) */
    uint64_t missed;    /* vblanks between two counted presents that showed no new frame */
    uint64_t unseen;    /* frames replaced by the next before their vblank: never shown */
    uint64_t regressed; /* frames that showed an older input than an earlier frame (a bug) */
} lat_track;

/* A present done: its frame shows every input up to `id` (read back from
 * its pixels), its render began at render_ns, its present was called at
 * present_ns and its work was done at ready_ns, and it reaches the screen
 * on vblank k (>= 1) at shown_ns.
 * Inputs up to `id` not shown before are shown by this frame. A frame on
 * the same vblank as the previous present replaced it (never shown); a
 * frame more than one vblank after the previous leaves the vblanks between
 * without a new frame (missed). */
static inline void lat_track_present(lat_track *t, uint32_t id, uint64_t k, uint64_t render_ns, uint64_t present_ns,
                                     uint64_t ready_ns, uint64_t shown_ns)
{
    if (k >= t->from_k) {
        t->presents++;
        if (t->last_k >= t->from_k && t->last_k != 0) {
            if (k == t->last_k)
                t->unseen++;
            else if (k > t->last_k + 1)
                t->missed += k - t->last_k - 1;
        }
    }
    if (k > t->last_k)
        t->last_k = k;
    if (id < t->shown)
        t->regressed++;
    for (; t->shown < id && t->shown + 1 < t->cap; t->shown++) {
        lat_input *e = &t->in[t->shown + 1];
        e->rendered = render_ns;
        e->presented = present_ns;
        e->ready = ready_ns;
        e->shown = shown_ns;
    }
}

/* The stretches of an input's way to the screen, in order; then LAT_LEAD,
 * render began -> shown (how far before its vblank the frame was begun),
 * and LAT_TOTAL, injected -> shown. */
typedef enum lat_stage {
    LAT_WAIT,    /* injected -> read by an update */
    LAT_SLOT,    /* read -> the render that first drew it began */
    LAT_RENDER,  /* render began -> present called (render cost and the loop's flush) */
    LAT_PRESENT, /* present called -> its work done (read-back, SDL_RenderPresent) */
    LAT_VBLANK,  /* work done -> on screen (the wait for the vblank) */
    LAT_LEAD,
    LAT_TOTAL,
    LAT_STAGES
} lat_stage;

/* Duration of `stage` for input e into *out; false when the input did not
 * reach both ends (not yet shown, or never read on its own: a later input
 * read first, as when the event was lost). */
static inline bool lat_stage_ns(const lat_input *e, lat_stage stage, uint64_t *out)
{
    static const int from[LAT_STAGES] = {0, 1, 2, 3, 4, 2, 0}, to[LAT_STAGES] = {1, 2, 3, 4, 5, 5, 5};
    const uint64_t t[6] = {e->injected, e->read, e->rendered, e->presented, e->ready, e->shown};
    uint64_t a = t[from[stage]], b = t[to[stage]];
    if (a == 0 || b == 0 || b < a)
        return false;
    *out = b - a;
    return true;
}

#endif /* TEMPO_BENCH_LATENCY_H */
