/* bounce: Tempo's flagship sample. Balls move at a fixed update rate and
 * are drawn at the render rate at pos + vel * alpha * step, so motion is
 * smooth even at 10 updates per second. Turn interpolation off (I) at a low
 * rate and watch them jump from one update position to the next.
 *
 * Keys: I interpolation on/off, P next policy, +/- or Up/Down update rate
 * (10/25/60/120 Hz), S statistics overlay, V vsync on/off, Esc quits.
 * Options (besides the common --headless/--seconds/--screenshot):
 *   --hz N          initial update rate (default 10)
 *   --policy NAME   interpolated | lockstep | constant-speed-max-fps | variable
 *   --no-interp     start with interpolation off
 *   --no-stats      start without the statistics overlay
 *   --record FILE   record the run (tempo/replay.h): settings, seed, every
 *                   update's dt and the state hash after every update
 *   --replay FILE   replay a recording as fast as possible, without drawing,
 *                   and print "replay: N ticks, hash H, matches" (exit 0) or
 *                   the first tick whose state differs (exit 1)
 *
 * Everything runs inside tempo_loop_run(): the loop sleeps between ticks and
 * render slots; the headless run ends through a watched one-shot timer. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <tempo/debugdraw.h>
#include <tempo/tempo.h>

#include "sample.h"

#define WIDTH 960
#define HEIGHT 540
#define BALLS 14
#define TRAIL 7
#define SEGMENTS 28       /* a ball's outline */
#define TRAIL_SEGMENTS 12 /* trail dots are small and faint */

static const uint32_t rates[] = {10, 25, 60, 120};
#define RATE_COUNT (int)(sizeof rates / sizeof rates[0])

typedef struct ball {
    float x, y, vx, vy, r;
    SDL_Color color;
    float trail_x[TRAIL], trail_y[TRAIL]; /* drawn positions, newest at trail_head - 1 */
} ball;

typedef struct bounce {
    sample_app app;
    tempo_loop *loop;
    ball balls[BALLS];
    int trail_head, trail_count;
    int rate_index;
    bool interpolate, show_stats;
    float last_alpha;
    uint64_t updates;
    SDL_FRect arena;
    SDL_Texture *stats_tex; /* the overlay, redrawn 10 times a second */
    int stats_scale;        /* the scale stats_tex was made for */
    uint64_t stats_drawn_at;
    bool stats_tex_failed;
    bool replaying; /* --replay: the state is all that matters, nothing is drawn */
    /* For the shutdown (on_stop), which runs when the loop ends on every
     * backend (on the web tempo_loop_run() never returns). */
    const char *record;    /* --record FILE, or NULL */
    tempo_handle *time_up; /* --seconds */
    tempo_usage u0;
    uint64_t t0;
    int exit_code; /* main()'s */
    /* scratch for one SDL_RenderGeometry call per frame */
    SDL_Vertex *verts;
    int *idx;
    int nverts, nidx, cap_verts, cap_idx;
} bounce;

/* ---- Simulation (update rate) ------------------------------------------------ */

static void reflect(float *p, float *v, float lo, float hi)
{
    if (*p < lo) {
        *p = 2 * lo - *p;
        *v = -*v;
    } else if (*p > hi) {
        *p = 2 * hi - *p;
        *v = -*v;
    }
}

static void update(tempo_loop *loop, uint64_t dt_ns, void *user)
{
    (void)loop;
    bounce *b = user;
    float dt = (float)dt_ns * 1e-9f;
    for (int i = 0; i < BALLS; i++) {
        ball *o = &b->balls[i];
        o->x += o->vx * dt;
        o->y += o->vy * dt;
        reflect(&o->x, &o->vx, b->arena.x + o->r, b->arena.x + b->arena.w - o->r);
        reflect(&o->y, &o->vy, b->arena.y + o->r, b->arena.y + b->arena.h - o->r);
    }
    b->updates++;
}

/* The state a replay must reproduce: every ball's position and velocity
 * (their float bits) and the update count, FNV-1a. */
static uint64_t state_hash(tempo_loop *loop, void *user)
{
    (void)loop;
    const bounce *b = user;
    uint64_t h = 1469598103934665603u;
    for (int i = 0; i < BALLS; i++) {
        const float f[4] = {b->balls[i].x, b->balls[i].y, b->balls[i].vx, b->balls[i].vy};
        for (int k = 0; k < 4; k++) {
            uint32_t u;
            memcpy(&u, &f[k], 4);
            for (int j = 0; j < 4; j++)
                h = (h ^ ((u >> (8 * j)) & 0xFF)) * 1099511628211u;
        }
    }
    for (int j = 0; j < 8; j++)
        h = (h ^ ((b->updates >> (8 * j)) & 0xFF)) * 1099511628211u;
    return h;
}

/* Where a ball is drawn: predicted `ahead` seconds past its last update,
 * folded at the walls so the prediction bounces like the update will. */
static void drawn_pos(const bounce *b, const ball *o, float ahead, float *x, float *y)
{
    float px = o->x + o->vx * ahead, py = o->y + o->vy * ahead, vx = o->vx, vy = o->vy;
    reflect(&px, &vx, b->arena.x + o->r, b->arena.x + b->arena.w - o->r);
    reflect(&py, &vy, b->arena.y + o->r, b->arena.y + b->arena.h - o->r);
    *x = px;
    *y = py;
}

/* ---- Drawing ---------------------------------------------------------------- */

static bool reserve(bounce *b, int verts, int idx)
{
    if (b->nverts + verts > b->cap_verts) {
        int cap = (b->nverts + verts) * 2;
        SDL_Vertex *v = realloc(b->verts, sizeof *v * (size_t)cap);
        if (v == NULL)
            return false;
        b->verts = v;
        b->cap_verts = cap;
    }
    if (b->nidx + idx > b->cap_idx) {
        int cap = (b->nidx + idx) * 2;
        int *n = realloc(b->idx, sizeof *n * (size_t)cap);
        if (n == NULL)
            return false;
        b->idx = n;
        b->cap_idx = cap;
    }
    return true;
}

static SDL_Vertex vert(float x, float y, SDL_Color c)
{
    return (SDL_Vertex){{x, y}, c, {0, 0}};
}

/* A filled disc of `seg` segments; `feather` adds a 1.5 px rim fading to
 * transparent (cheap anti-aliasing) and a lighter, off-centre middle. */
static void disc(bounce *b, float cx, float cy, float r, SDL_Color c, int seg, bool feather)
{
    if (!reserve(b, 1 + 2 * seg, 9 * seg))
        return;
    int base = b->nverts, per = feather ? 2 : 1;
    SDL_Color clear = c;
    clear.a = 0;
    SDL_Color centre = c;
    float off = 0;
    if (feather) {
        centre = (SDL_Color){(Uint8)(c.r + (255 - c.r) / 3), (Uint8)(c.g + (255 - c.g) / 3),
                             (Uint8)(c.b + (255 - c.b) / 3), c.a};
        off = r * 0.3f; /* a bit of shine */
    }
    b->verts[b->nverts++] = vert(cx - off, cy - off, centre);
    for (int i = 0; i < seg; i++) {
        float a = (float)i * 6.2831853f / (float)seg;
        float ca = cosf(a), sa = sinf(a);
        b->verts[b->nverts++] = vert(cx + ca * r, cy + sa * r, c);
        if (feather)
            b->verts[b->nverts++] = vert(cx + ca * (r + 1.5f), cy + sa * (r + 1.5f), clear);
    }
    for (int i = 0; i < seg; i++) {
        int j = (i + 1) % seg;
        int ri = base + 1 + per * i, rj = base + 1 + per * j;
        int *t = &b->idx[b->nidx];
        t[0] = base, t[1] = ri, t[2] = rj; /* fan */
        b->nidx += 3;
        if (feather) {
            t[3] = ri, t[4] = ri + 1, t[5] = rj; /* rim quad */
            t[6] = rj, t[7] = ri + 1, t[8] = rj + 1;
            b->nidx += 6;
        }
    }
}

static void ring(SDL_Renderer *r, float cx, float cy, float rad)
{
    SDL_FPoint pts[SEGMENTS + 1];
    for (int i = 0; i <= SEGMENTS; i++) {
        float a = (float)i * 6.2831853f / SEGMENTS;
        pts[i] = (SDL_FPoint){cx + cosf(a) * rad, cy + sinf(a) * rad};
    }
    SDL_RenderDrawLinesF(r, pts, SEGMENTS + 1);
}

/* Plain clear + grid lines: a full-window gradient or texture copy costs
 * a software rasterizer (llvmpipe under Xvfb) ~5 ms a frame; this ~0. */
static void background(bounce *b)
{
    SDL_Renderer *r = b->app.renderer;
    SDL_SetRenderDrawColor(r, 13, 15, 24, 255);
    SDL_RenderClear(r);
    SDL_SetRenderDrawBlendMode(r, SDL_BLENDMODE_NONE);
    SDL_SetRenderDrawColor(r, 22, 26, 40, 255);
    for (int x = (int)b->arena.x + 40; x < (int)(b->arena.x + b->arena.w); x += 40)
        SDL_RenderDrawLine(r, x, (int)b->arena.y, x, (int)(b->arena.y + b->arena.h));
    for (int y = (int)b->arena.y + 40; y < (int)(b->arena.y + b->arena.h); y += 40)
        SDL_RenderDrawLine(r, (int)b->arena.x, y, (int)(b->arena.x + b->arena.w), y);
    SDL_SetRenderDrawColor(r, 60, 72, 100, 255);
    SDL_RenderDrawRectF(r, &b->arena);
}

/* The statistics overlay is a few thousand 1-pixel-high rectangles of text:
 * free on a GPU, but ~8 ms a frame for a software rasterizer (llvmpipe
 * under Xvfb). Its numbers change once a second, so it is drawn into a
 * texture 10 times a second and copied in between. */
static void draw_stats(bounce *b, int right, int y)
{
    SDL_Renderer *r = b->app.renderer;
    /* Scaled to the window (a HiDPI or 4K output gets a larger panel). */
    int k = tempo_loop_stats_scale(b->loop, r);
    int w = TEMPO_LOOP_STATS_W * k, h = TEMPO_LOOP_STATS_H * k, x = right - w;
    if (b->stats_tex != NULL && b->stats_scale != k) {
        SDL_DestroyTexture(b->stats_tex);
        b->stats_tex = NULL;
    }
    if (b->stats_tex == NULL && !b->stats_tex_failed) {
        b->stats_tex = SDL_CreateTexture(r, SDL_PIXELFORMAT_ARGB8888, SDL_TEXTUREACCESS_TARGET, w, h);
        b->stats_tex_failed = b->stats_tex == NULL;
        b->stats_scale = k;
        b->stats_drawn_at = 0;
        if (b->stats_tex)
            SDL_SetTextureBlendMode(b->stats_tex, SDL_BLENDMODE_BLEND);
    }
    if (b->stats_tex == NULL) {
        tempo_loop_draw_stats_scaled(b->loop, r, x, y, k);
        return;
    }
    uint64_t now = tempo_now_ns();
    if (b->stats_drawn_at == 0 || now - b->stats_drawn_at >= 100 * TEMPO_NS_PER_MS) {
        if (SDL_SetRenderTarget(r, b->stats_tex) == 0) {
            SDL_SetRenderDrawBlendMode(r, SDL_BLENDMODE_NONE);
            SDL_SetRenderDrawColor(r, 0, 0, 0, 0);
            SDL_RenderClear(r);
            tempo_loop_draw_stats_scaled(b->loop, r, 0, 0, k);
            SDL_SetRenderTarget(r, NULL);
        }
        b->stats_drawn_at = now;
    }
    SDL_Rect dst = {x, y, w, h};
    SDL_RenderCopy(r, b->stats_tex, NULL, &dst);
}

static void draw_scene(bounce *b, float alpha)
{
    SDL_Renderer *r = b->app.renderer;
    tempo_loop *loop = b->loop;
    tempo_loop_policy policy = tempo_loop_get_policy(loop);
    /* Prediction needs alpha, which only the interpolated policy gives. */
    float step_s = (float)tempo_loop_get_step_ns(loop) * 1e-9f;
    float ahead = b->interpolate ? alpha * step_s : 0.0f;
    b->last_alpha = alpha;

    background(b);

    /* Trails: where each ball was drawn in the last frames. */
    b->nverts = b->nidx = 0;
    for (int i = 0; i < BALLS; i++) {
        ball *o = &b->balls[i];
        for (int k = 0; k < b->trail_count; k++) {
            int at = (b->trail_head - 1 - k + TRAIL) % TRAIL;
            float f = 1.0f - (float)(k + 1) / (float)(TRAIL + 1);
            SDL_Color c = o->color;
            c.a = (Uint8)(70 * f * f);
            disc(b, o->trail_x[at], o->trail_y[at], o->r * (0.35f + 0.55f * f), c, TRAIL_SEGMENTS, false);
        }
    }
    /* The balls, where the render puts them now. */
    float px[BALLS], py[BALLS];
    for (int i = 0; i < BALLS; i++) {
        ball *o = &b->balls[i];
        drawn_pos(b, o, ahead, &px[i], &py[i]);
        disc(b, px[i], py[i], o->r, o->color, SEGMENTS, true);
    }
    SDL_SetRenderDrawBlendMode(r, SDL_BLENDMODE_BLEND);
    SDL_RenderGeometry(r, NULL, b->verts, b->nverts, b->idx, b->nidx);

    /* Faint rings at the positions of the last update. */
    SDL_SetRenderDrawColor(r, 255, 255, 255, 60);
    for (int i = 0; i < BALLS; i++)
        ring(r, b->balls[i].x, b->balls[i].y, b->balls[i].r + 3);

    /* Remember what was drawn, for the trails. */
    for (int i = 0; i < BALLS; i++) {
        b->balls[i].trail_x[b->trail_head] = px[i];
        b->balls[i].trail_y[b->trail_head] = py[i];
    }
    b->trail_head = (b->trail_head + 1) % TRAIL;
    if (b->trail_count < TRAIL)
        b->trail_count++;

    /* HUD */
    SDL_SetRenderDrawColor(r, 235, 238, 245, 255);
    tempo_debug_text(r, 20, 16, 3, "Tempo bounce");
    SDL_SetRenderDrawColor(r, 150, 160, 185, 255);
    tempo_debug_textf(r, 22, 44, 1, "%u Hz updates, %s policy. Rings: the last update. Balls: %s",
                      tempo_loop_get_update_hz(loop), tempo_loop_policy_name(policy),
                      ahead > 0 || (b->interpolate && policy == TEMPO_LOOP_INTERPOLATED) ? "pos + vel * alpha * step"
                                                                                        : "the last update");
    int y = 60;
    if (policy == TEMPO_LOOP_INTERPOLATED) {
        SDL_Color on = {120, 230, 140, 255}, off = {255, 140, 110, 255};
        SDL_Color c = b->interpolate ? on : off;
        SDL_SetRenderDrawColor(r, c.r, c.g, c.b, 255);
        tempo_debug_textf(r, 22, y, 2, "interpolation %s", b->interpolate ? "ON" : "OFF");
        /* alpha: how far this frame lies between two updates */
        SDL_Rect bar = {22 + 20 * 12, y + 2, 120, 10};
        SDL_SetRenderDrawColor(r, 60, 70, 95, 255);
        SDL_RenderDrawRect(r, &bar);
        SDL_Rect fill = {bar.x + 1, bar.y + 1, (int)((float)(bar.w - 2) * alpha), bar.h - 2};
        SDL_SetRenderDrawColor(r, c.r, c.g, c.b, 200);
        SDL_RenderFillRect(r, &fill);
        SDL_SetRenderDrawColor(r, 150, 160, 185, 255);
        tempo_debug_textf(r, bar.x + bar.w + 8, y + 3, 1, "alpha %.2f", alpha);
    } else {
        SDL_SetRenderDrawColor(r, 255, 200, 110, 255);
        tempo_debug_text(r, 22, y, 2, "no alpha in this policy");
    }

    if (b->show_stats)
        draw_stats(b, WIDTH - 16, 16);

    SDL_SetRenderDrawColor(r, 130, 140, 165, 255);
    tempo_debug_text(r, 22, HEIGHT - 22, 1,
                     "I interpolation   P policy   +/- update rate (10/25/60/120 Hz)   S statistics   V vsync   Esc quit");
}

static void render(tempo_loop *loop, float alpha, void *user)
{
    (void)loop;
    bounce *b = user;
    if (b->replaying)
        return; /* a replay draws nothing: only the hash matters */
    draw_scene(b, alpha); /* the loop presents (desc.renderer) */
}

/* ---- Input --------------------------------------------------------------------- */

static void set_rate(bounce *b, int index)
{
    if (index < 0 || index >= RATE_COUNT)
        return;
    b->rate_index = index;
    tempo_loop_set_update_hz(b->loop, rates[index]);
}

static void on_event(tempo_loop *loop, const SDL_Event *e, void *user)
{
    bounce *b = user;
    if (e->type != SDL_KEYDOWN || e->key.repeat)
        return;
    switch (e->key.keysym.sym) {
    case SDLK_ESCAPE:
        tempo_loop_quit(loop);
        break;
    case SDLK_i:
        b->interpolate = !b->interpolate;
        break;
    case SDLK_p:
        tempo_loop_set_policy(loop, (tempo_loop_policy)((tempo_loop_get_policy(loop) + 1) % TEMPO_LOOP_POLICY_COUNT));
        break;
    case SDLK_PLUS:
    case SDLK_EQUALS:
    case SDLK_KP_PLUS:
    case SDLK_UP:
        set_rate(b, b->rate_index + 1);
        break;
    case SDLK_MINUS:
    case SDLK_KP_MINUS:
    case SDLK_DOWN:
        set_rate(b, b->rate_index - 1);
        break;
    case SDLK_s:
        b->show_stats = !b->show_stats;
        break;
    case SDLK_v:
        sample_toggle_vsync(loop);
        break;
    default:
        return;
    }
    tempo_loop_request_render(loop);
}

/* ---- Setup ---------------------------------------------------------------------- */

typedef struct options {
    uint32_t hz;
    int policy;
    bool no_interp, no_stats;
    const char *record, *replay;
} options;

static int parse_extra(const char *arg, const char *value, void *user)
{
    options *o = user;
    if (strcmp(arg, "--hz") == 0 && value != NULL) {
        o->hz = (uint32_t)atoi(value);
        return 1;
    }
    if (strcmp(arg, "--policy") == 0 && value != NULL) {
        for (int p = 0; p < TEMPO_LOOP_POLICY_COUNT; p++)
            if (strcmp(value, tempo_loop_policy_name((tempo_loop_policy)p)) == 0)
                o->policy = p;
        return 1;
    }
    if (strcmp(arg, "--no-interp") == 0) {
        o->no_interp = true;
        return 0;
    }
    if (strcmp(arg, "--record") == 0 && value != NULL) {
        o->record = value;
        return 1;
    }
    if (strcmp(arg, "--replay") == 0 && value != NULL) {
        o->replay = value;
        return 1;
    }
    if (strcmp(arg, "--no-stats") == 0) {
        o->no_stats = true;
        return 0;
    }
    return -1;
}

/* The start positions and velocities come from `seed` with integer
 * arithmetic, + - * / and sqrtf only (IEEE-754 exact), never cosf/sinf
 * (each C library rounds those its own way), so a recording made on
 * Windows replays bit for bit on Linux and back. */
static void init_balls(bounce *b, uint32_t seed)
{
    static const SDL_Color palette[] = {{255, 99, 132, 255}, {54, 162, 235, 255}, {255, 206, 86, 255},
                                        {75, 192, 192, 255}, {153, 102, 255, 255}, {255, 159, 64, 255},
                                        {120, 220, 120, 255}};
    for (int i = 0; i < BALLS; i++) {
        ball *o = &b->balls[i];
        seed = seed * 1664525u + 1013904223u;
        o->r = 10.0f + (float)(seed >> 24) / 255.0f * 20.0f;
        seed = seed * 1664525u + 1013904223u;
        o->x = b->arena.x + o->r + (float)(seed >> 16) / 65536.0f * (b->arena.w - 2 * o->r);
        seed = seed * 1664525u + 1013904223u;
        o->y = b->arena.y + o->r + (float)(seed >> 16) / 65536.0f * (b->arena.h - 2 * o->r);
        float dx, dy, len;
        do { /* a direction: a point in the unit disc, not too near its centre */
            seed = seed * 1664525u + 1013904223u;
            dx = (float)(seed >> 16) / 32768.0f - 1.0f;
            seed = seed * 1664525u + 1013904223u;
            dy = (float)(seed >> 16) / 32768.0f - 1.0f;
            len = sqrtf(dx * dx + dy * dy);
        } while (len < 0.25f || len > 1.0f);
        float speed = 160.0f + (float)(i % 5) * 70.0f;
        o->vx = dx / len * speed;
        o->vy = dy / len * speed;
        o->color = palette[i % (int)(sizeof palette / sizeof palette[0])];
    }
}

/* [loop] desc.on_stop: the loop ended (Esc, the window closed, --seconds, or
 * an error `rc`). The screenshot, the summary and the shutdown, here rather
 * than after tempo_loop_run() so that the same source runs in a browser page
 * (docs/web.md). Destroys the loop. */
static void on_stop(tempo_loop *loop, int rc, void *user)
{
    (void)loop;
    bounce *b = user;
    tempo_usage u1 = {0};
    double wall_s = (double)(tempo_now_ns() - b->t0) / 1e9;
    tempo_process_usage(&u1);
    if (rc != 0)
        fprintf(stderr, "tempo_loop_run: %s (%s)\n", tempo_strerror(rc), tempo_get_error());

    if (b->app.screenshot) {
        b->stats_drawn_at = 0; /* the final numbers */
        draw_scene(b, b->last_alpha);
        sample_screenshot(&b->app, b->app.screenshot);
    }

    const tempo_loop_stats *s = tempo_loop_get_stats(b->loop);
    const tempo_loop_counts *t = &s->total;
    printf("bounce summary (%s backend, video %s, wait route %s)\n", tempo_backend_name(), b->app.video_driver,
           tempo_wait_route());
    printf("  %s policy, %u Hz updates, renders paced by %s at %.2f Hz (pacing %s), interpolation %s\n",
           tempo_loop_policy_name(tempo_loop_get_policy(b->loop)), tempo_loop_get_update_hz(b->loop),
           s->vsync ? "vsync" : "the display", 1e9 / (double)s->refresh_ns, tempo_loop_pacing_name(s->pacing),
           b->interpolate ? "on" : "off");
    printf("  ran %.2f s: %llu updates (%.1f/s), %llu renders (%.1f/s), %llu frames, %.1f sleeps/s\n", wall_s,
           (unsigned long long)t->updates, t->updates_per_s, (unsigned long long)t->renders, t->renders_per_s,
           (unsigned long long)t->frames, t->sleeps_per_s);
    printf("  tick lateness p50 %.1f us, p99 %.1f us, max %.1f us\n", (double)t->lateness_p50_ns / 1e3,
           (double)t->lateness_p99_ns / 1e3, (double)t->lateness_max_ns / 1e3);
    printf("  woke: timer %llu, input %llu, watch %llu, source %llu, signal %llu, without sleeping %llu\n",
           (unsigned long long)t->wakes[TEMPO_LOOP_WAKE_TIMER], (unsigned long long)t->wakes[TEMPO_LOOP_WAKE_MESSAGES],
           (unsigned long long)t->wakes[TEMPO_LOOP_WAKE_WATCH], (unsigned long long)t->wakes[TEMPO_LOOP_WAKE_SOURCE],
           (unsigned long long)t->wakes[TEMPO_LOOP_WAKE_SIGNAL],
           (unsigned long long)t->wakes[TEMPO_LOOP_WAKE_DUE]);
    printf("  time: waiting %.1f%%, game %.1f%%, loop %.2f%%, paused %.2f s; dropped %llu, stalls %llu, capped %llu\n",
           100 * t->wait_share, 100 * t->game_share, 100 * t->loop_share, (double)t->paused_ns / 1e9,
           (unsigned long long)t->dropped_updates, (unsigned long long)t->stalls, (unsigned long long)t->capped_frames);
    printf("  CPU %.3f s = %.2f%% of one core\n", (double)(u1.cpu_ns - b->u0.cpu_ns) / 1e9,
           100.0 * (double)(u1.cpu_ns - b->u0.cpu_ns) / 1e9 / wall_s);

    if (b->record != NULL) {
        tempo_record_stats rs;
        tempo_loop_get_record_stats(b->loop, &rs);
        uint64_t h = state_hash(b->loop, b);
        if (tempo_loop_record_stop(b->loop) != 0)
            fprintf(stderr, "record: %s\n", tempo_get_error());
        printf("record: %llu ticks, hash %016llx, %llu bytes in %s, %.1f us per tick\n",
               (unsigned long long)rs.ticks, (unsigned long long)h, (unsigned long long)rs.bytes, b->record,
               rs.ticks ? (double)rs.cost_ns / 1e3 / (double)rs.ticks : 0.0);
    }
    tempo_loop_destroy(b->loop);
    tempo_timer_destroy(b->time_up);
    if (b->stats_tex)
        SDL_DestroyTexture(b->stats_tex);
    free(b->verts);
    free(b->idx);
    tempo_shutdown();
    sample_close(&b->app);
    b->exit_code = rc == 0 ? 0 : 1;
}

/* --replay: run the recording on its fake clock, report, exit. */
static int replay_main(bounce *b, tempo_replay *rp)
{
    uint64_t t0 = tempo_now_ns();
    int rc = tempo_loop_replay(b->loop, rp);
    if (rc == 0)
        rc = tempo_loop_run(b->loop);
    double s = (double)(tempo_now_ns() - t0) / 1e9;
    tempo_replay_result res;
    tempo_replay_get_result(rp, &res);
    const tempo_replay_info *info = tempo_replay_get_info(rp);
    fprintf(stderr, "replay: recorded on %s, %u Hz, %.0f ticks/s\n", info->backend, info->update_hz,
            s > 0 ? (double)res.ticks / s : 0.0);
    if (rc != 0)
        printf("replay: %llu ticks, error %s\n", (unsigned long long)res.ticks, tempo_strerror(rc));
    else if (res.matches)
        printf("replay: %llu ticks, hash %016llx, matches\n", (unsigned long long)res.ticks,
               (unsigned long long)res.hash);
    else if (res.diverged_at != 0)
        printf("replay: %llu ticks, hash %016llx, diverges at tick %llu (last match at %llu: recorded %016llx, "
               "replayed %016llx)\n",
               (unsigned long long)res.ticks, (unsigned long long)res.hash, (unsigned long long)res.diverged_at,
               (unsigned long long)res.last_match, (unsigned long long)res.expected,
               (unsigned long long)res.actual);
    else
        printf("replay: %llu of %llu ticks, hash %016llx, did not finish\n", (unsigned long long)res.ticks,
               (unsigned long long)info->ticks, (unsigned long long)res.hash);
    bool ok = rc == 0 && res.matches;
    tempo_loop_destroy(b->loop);
    tempo_replay_destroy(rp);
    free(b->verts);
    free(b->idx);
    tempo_shutdown();
    sample_close(&b->app);
    return ok ? 0 : 1;
}

int main(int argc, char **argv)
{
    static bounce b;
    options opt = {.hz = 10, .policy = TEMPO_LOOP_INTERPOLATED};
    if (sample_parse(&b.app, argc, argv,
                     "[--hz N] [--policy interpolated|lockstep|constant-speed-max-fps|variable] [--no-interp] "
                     "[--no-stats] [--record FILE | --replay FILE]",
                     parse_extra, &opt) != 0)
        return 1;
    tempo_replay *rp = NULL;
    uint32_t seed = 2024;
    if (opt.replay != NULL) {
        /* No window needed: the offscreen driver, and nothing is drawn. */
        rp = tempo_replay_create(&(tempo_replay_desc){.path = opt.replay, .hash = state_hash, .hash_user = &b});
        if (rp == NULL) {
            fprintf(stderr, "replay: %s\n", tempo_get_error());
            return 1;
        }
        seed = (uint32_t)tempo_replay_get_info(rp)->seed;
        b.app.headless = true;
        b.app.seconds = 0;
        b.replaying = true;
    }
    if (sample_open(&b.app, "Tempo bounce", WIDTH, HEIGHT) != 0)
        return 1;
    b.arena = (SDL_FRect){16, 84, WIDTH - 32, HEIGHT - 84 - 36};
    b.interpolate = !opt.no_interp;
    b.show_stats = !opt.no_stats;
    init_balls(&b, seed);
    b.rate_index = 0;
    for (int i = 0; i < RATE_COUNT; i++)
        if (rates[i] <= opt.hz)
            b.rate_index = i;
    b.loop = tempo_loop_create(&(tempo_loop_desc){
        .update_hz = opt.hz ? opt.hz : 10,
        .policy = (tempo_loop_policy)opt.policy,
        .window = b.app.window,
        /* The loop presents: vsync paced, or at the display's rate. A replay presents nothing. */
        .renderer = rp != NULL ? NULL : b.app.renderer,
        .update = update,
        .render = render,
        .event = on_event,
        .user = &b,
        .clock = tempo_replay_clock(rp), /* zero (the real clock) unless replaying */
        .on_stop = rp != NULL ? NULL : on_stop, /* a replay reports in replay_main */
    });
    if (b.loop == NULL) {
        fprintf(stderr, "tempo_loop_create: %s\n", tempo_get_error());
        return 1;
    }
    if (rp != NULL)
        return replay_main(&b, rp);
    if (opt.record != NULL &&
        tempo_loop_record(b.loop, &(tempo_record_desc){.path = opt.record, .seed = seed, .hash = state_hash,
                                                       .hash_user = &b, .hash_every = 1}) != 0) {
        fprintf(stderr, "record: %s\n", tempo_get_error());
        return 1;
    }
    b.record = opt.record;
    if (b.app.seconds > 0) {
        b.time_up = tempo_timer_create(false);
        tempo_timer_set(b.time_up, tempo_now_ns() + (uint64_t)(b.app.seconds * 1e9), 0);
        tempo_loop_watch(b.loop, b.time_up, sample_quit_loop, NULL);
    }

    tempo_process_usage(&b.u0);
    b.t0 = tempo_now_ns();
    tempo_loop_run(b.loop); /* on the web it does not return: the shutdown is on_stop's */
    return b.exit_code;
}
