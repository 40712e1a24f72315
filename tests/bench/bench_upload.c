/* bench_upload: what one texture upload costs on the loop thread, per size
 * and renderer (issue 21 section 2: the loader's finalize step is an upload;
 * a whole 256x256 one per frame forced the loader past its deadline).
 *
 * For each renderer SDL offers of "software" and "opengl" (a hidden window;
 * under Xvfb opengl is Mesa's llvmpipe) and each square size, in the
 * renderer's first texture format:
 *   create   SDL_CreateTextureFromSurface (what the loader did before),
 *   update   SDL_CreateTexture once, then SDL_UpdateTexture of the whole image,
 *   strip    SDL_UpdateTexture of 16 rows (the loader's minimum strip at 256
 *            wide is 16 KiB),
 * the median of --reps N (default 15) after one warm-up, and ns per byte.
 * Each upload is followed by SDL_RenderFlush, so a renderer that batches
 * pays for it inside the measurement. Options: --reps N, --quick (3). Prints a Markdown
 * table. The numbers are the machine's: run it where the game runs. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <SDL.h>

#include "bench_common.h"
#include "tempo/clock.h"

static int reps = 15;

static uint64_t median(uint64_t *v, int n)
{
    qsort(v, (size_t)n, sizeof *v, bench_cmp_u64);
    return v[n / 2];
}

static void fill(SDL_Surface *s)
{
    for (int y = 0; y < s->h; y++) {
        Uint32 *row = (Uint32 *)((Uint8 *)s->pixels + y * s->pitch);
        for (int x = 0; x < s->w; x++)
            row[x] = (Uint32)(x * 2654435761u ^ y * 40503u);
    }
}

static void measure(const char *driver)
{
    SDL_SetHint(SDL_HINT_RENDER_DRIVER, driver);
    SDL_Window *w = SDL_CreateWindow("bench_upload", 0, 0, 64, 64, SDL_WINDOW_HIDDEN);
    SDL_Renderer *r = w ? SDL_CreateRenderer(w, -1, 0) : NULL;
    if (r == NULL) {
        printf("| %s | (not available: %s) | | | | |\n", driver, SDL_GetError());
        if (w)
            SDL_DestroyWindow(w);
        return;
    }
    SDL_RendererInfo info;
    SDL_GetRendererInfo(r, &info);
    Uint32 fmt = info.texture_formats[0];
    static const int sizes[] = {64, 128, 256, 512, 1024, 2048};
    uint64_t *t = calloc((size_t)reps, sizeof *t);
    for (size_t k = 0; k < sizeof sizes / sizeof sizes[0]; k++) {
        int side = sizes[k];
        SDL_Surface *s = SDL_CreateRGBSurfaceWithFormat(0, side, side, 32, fmt);
        fill(s);
        double bytes = (double)side * side * 4;
        uint64_t med[3];
        /* create */
        for (int i = -1; i < reps; i++) {
            uint64_t t0 = tempo_now_ns();
            SDL_Texture *tex = SDL_CreateTextureFromSurface(r, s);
            SDL_RenderFlush(r);
            uint64_t t1 = tempo_now_ns();
            SDL_DestroyTexture(tex);
            if (i >= 0)
                t[i] = t1 - t0;
        }
        med[0] = median(t, reps);
        /* update whole, and a 16-row strip */
        SDL_Texture *tex = SDL_CreateTexture(r, fmt, SDL_TEXTUREACCESS_STATIC, side, side);
        for (int i = -1; i < reps; i++) {
            uint64_t t0 = tempo_now_ns();
            SDL_UpdateTexture(tex, NULL, s->pixels, s->pitch);
            SDL_RenderFlush(r);
            uint64_t t1 = tempo_now_ns();
            if (i >= 0)
                t[i] = t1 - t0;
        }
        med[1] = median(t, reps);
        int rows = side < 16 ? side : 16;
        for (int i = -1; i < reps; i++) {
            SDL_Rect rect = {0, (i + 1) * rows % side, side, rows};
            uint64_t t0 = tempo_now_ns();
            SDL_UpdateTexture(tex, &rect, (Uint8 *)s->pixels + rect.y * s->pitch, s->pitch);
            SDL_RenderFlush(r);
            uint64_t t1 = tempo_now_ns();
            if (i >= 0)
                t[i] = t1 - t0;
        }
        med[2] = median(t, reps);
        SDL_DestroyTexture(tex);
        printf("| %s (%s) | %dx%d | %.3f | %.3f | %.3f | %.2f |\n", info.name, SDL_GetPixelFormatName(fmt), side,
               side, med[0] / 1e6, med[1] / 1e6, med[2] / 1e6, med[1] / bytes);
        SDL_FreeSurface(s);
    }
    free(t);
    SDL_DestroyRenderer(r);
    SDL_DestroyWindow(w);
}

int main(int argc, char **argv)
{
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--quick") == 0) {
            reps = 3; /* ./dev bench --quick: the smoke run */
        } else if (strcmp(argv[i], "--reps") == 0 && i + 1 < argc) {
            reps = atoi(argv[++i]);
            if (reps < 1)
                reps = 1;
        } else {
            printf("usage: bench_upload [--reps N] [--quick]\n");
            return strcmp(argv[i], "--help") == 0 ? 0 : 2;
        }
    }
    if (SDL_Init(SDL_INIT_VIDEO) != 0) {
        printf("SDL_Init: %s: skipped\n", SDL_GetError());
        return BENCH_EXIT_SKIP;
    }
    printf("bench_upload: median of %d uploads on this thread, ms (SDL_RenderFlush included)\n\n", reps);
    printf("| renderer (format) | size | CreateTextureFromSurface | UpdateTexture whole | UpdateTexture 16 rows | "
           "update ns/byte |\n|---|---|---:|---:|---:|---:|\n");
    measure("software");
    measure("opengl");
    SDL_Quit();
    return 0;
}
