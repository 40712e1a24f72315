/* tempo/debugdraw.h on SDL's software renderer over a surface (no window):
 * the font draws the pixels its table says, and errors are TEMPO_E* codes
 * with the detail in tempo_get_error(), like the rest of the API. */
#include <stdio.h>
#include <string.h>

#include <SDL.h>

#include "harness.h"
#include "tempo/tempo.h"

typedef struct canvas {
    SDL_Surface *s;
    SDL_Renderer *r;
} canvas;

static canvas make_canvas(int w, int h)
{
    canvas c = {SDL_CreateRGBSurfaceWithFormat(0, w, h, 32, SDL_PIXELFORMAT_ARGB8888), NULL};
    CHECK(c.s != NULL);
    if (c.s != NULL)
        c.r = SDL_CreateSoftwareRenderer(c.s);
    CHECK(c.r != NULL);
    if (c.r != NULL) {
        SDL_SetRenderDrawColor(c.r, 0, 0, 0, 255);
        SDL_RenderClear(c.r);
        SDL_SetRenderDrawColor(c.r, 255, 255, 255, 255);
    }
    return c;
}

static void free_canvas(canvas c)
{
    if (c.r)
        SDL_DestroyRenderer(c.r);
    SDL_FreeSurface(c.s);
}

static int lit(canvas c, int x, int y)
{
    const Uint32 *px = (const Uint32 *)((const Uint8 *)c.s->pixels + y * c.s->pitch);
    return (px[x] & 0xFFFFFF) != 0;
}

/* "!" and "+" at scale 1: row by row what the 5x7 table holds. */
static void glyphs_draw_their_rows(void)
{
    canvas c = make_canvas(16, 8);
    if (c.r == NULL)
        return;
    CHECK_EQ_INT(tempo_debug_text(c.r, 0, 0, 1, "!+"), 0);
    static const char *want[8] = {
        "..#.........",
        "..#.....#...",
        "..#.....#...",
        "..#...#####.",
        "..#.....#...",
        "........#...",
        "..#.........",
        "............",
    };
    for (int y = 0; y < 8; y++) {
        char got[13];
        for (int x = 0; x < 12; x++)
            got[x] = lit(c, x, y) ? '#' : '.';
        got[12] = '\0';
        CHECK_STR_EQ(got, want[y]);
    }
    free_canvas(c);
}

static void errors_are_tempo_codes(void)
{
    canvas c = make_canvas(64, 64);
    if (c.r == NULL)
        return;
    CHECK_EQ_INT(tempo_debug_text(NULL, 0, 0, 1, "x"), TEMPO_EINVAL);
    CHECK(strstr(tempo_get_error(), "renderer is NULL") != NULL);
    CHECK_EQ_INT(tempo_debug_textf(NULL, 0, 0, 1, "%d", 1), TEMPO_EINVAL);
    CHECK_EQ_INT(tempo_debug_graph(NULL, NULL, NULL, 0), TEMPO_EINVAL);
    CHECK_EQ_INT(tempo_debug_graph(c.r, &(tempo_debug_graph_desc){.w = -1}, NULL, 0), TEMPO_EINVAL);
    CHECK(strstr(tempo_get_error(), "negative size") != NULL);
    CHECK_EQ_INT(tempo_debug_graph(c.r, NULL, NULL, 3), TEMPO_EINVAL);
    /* Valid calls still succeed; NULL text draws nothing. */
    CHECK_EQ_INT(tempo_debug_text(c.r, 0, 0, 1, NULL), 0);
    uint64_t samples[] = {1000000, 20000000, 5000000};
    CHECK_EQ_INT(tempo_debug_graph(c.r, &(tempo_debug_graph_desc){.w = 60, .h = 30}, samples, 3), 0);
    CHECK_EQ_INT(tempo_debug_textf(c.r, 0, 40, 1, "%d ms", 16), 0);
    free_canvas(c);
}

static void text_size_counts_cells(void)
{
    int w = -1, h = -1;
    tempo_debug_text_size("ab\ncde", 2, &w, &h);
    CHECK_EQ_INT(w, 3 * TEMPO_DEBUG_GLYPH_W * 2);
    CHECK_EQ_INT(h, 2 * TEMPO_DEBUG_GLYPH_H * 2);
    tempo_debug_text_size("", 1, &w, &h);
    CHECK_EQ_INT(w, 0);
    CHECK_EQ_INT(h, 0);
}

static const tt_case cases[] = {
    TT_CASE(glyphs_draw_their_rows),
    TT_CASE(errors_are_tempo_codes),
    TT_CASE(text_size_counts_cells),
};

int main(int argc, char **argv)
{
    int r = TT_MAIN(argc, argv, cases);
    tempo_shutdown();
    SDL_Quit();
    return r;
}
