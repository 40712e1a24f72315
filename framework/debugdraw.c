/*
 * debugdraw.c - built-in 5x7 bitmap font and frame-time graph drawn with SDL_Renderer only.
 *
 * Why rectangles and not a glyph texture: a texture would have to be created per renderer, kept
 * alive, and recreated when the renderer is lost (D3D device reset); rectangles need no state at
 * all, so these functions can be called from anywhere with any renderer. To keep that cheap every
 * horizontal run of lit pixels becomes one rectangle and rectangles are submitted in batches of
 * BATCH_RECTS through SDL_RenderFillRects (the software renderer walks one rect list per call;
 * GPU renderers turn one call into one vertex upload), never one call per pixel.
 */
#include "tempo/debugdraw.h"

#include "tempo_internal.h"

#include <limits.h>
#include <stdarg.h>
#include <stdio.h>

enum {
    FONT_FIRST = 32,        /* ' ' */
    FONT_LAST = 126,        /* '~' */
    FONT_COUNT = FONT_LAST - FONT_FIRST + 1,
    FONT_COLS = 5,
    FONT_ROWS = 8,          /* 7 for the glyph + the spacing row, which only descenders use */
    TAB_CELLS = 4,
    /* Big enough that a typical overlay line (~40 glyphs x ~12 runs) is a couple of calls, small
     * enough (4 KiB) to live on the stack. */
    BATCH_RECTS = 256,
    /* Keeps every coordinate computed below far inside int range; a 6 kpx glyph is no debug
     * overlay any more. */
    SCALE_MAX = 1024,
};

/*
 * The font: printable ASCII 32..126, one glyph per line, one byte per row from top to bottom, bit 4
 * (0x10) is the leftmost column: 0x04 is ..#.., 0x11 is #...#. Glyphs are 5x7 with the baseline
 * on row 6: capitals, digits and ascenders use rows 0..6, lowercase has its x-height on rows 2..6. Row 7 is the cell's spacing row and stays empty except
 * for the descenders of g, j, p, q and y: folding them into rows 5..6 instead (as character LCDs
 * do) made "p" read as a small "P" and "q"/"g" as "9". The price is that a descender can touch a
 * capital directly below it on the next line, which still reads fine. '0' carries a slash to tell
 * it from 'O'; '1', 'l', 'I' and '|' each have a different foot.
 */
static const unsigned char font[FONT_COUNT][FONT_ROWS] = {
    /* row 0  1     2     3     4     5     6     7 */
    { 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00 }, /* 0x20 space */
    { 0x04, 0x04, 0x04, 0x04, 0x04, 0x00, 0x04, 0x00 }, /* 0x21 '!' */
    { 0x0A, 0x0A, 0x0A, 0x00, 0x00, 0x00, 0x00, 0x00 }, /* 0x22 '"' */
    { 0x0A, 0x0A, 0x1F, 0x0A, 0x1F, 0x0A, 0x0A, 0x00 }, /* 0x23 '#' */
    { 0x04, 0x0F, 0x14, 0x0E, 0x05, 0x1E, 0x04, 0x00 }, /* 0x24 '$' */
    { 0x18, 0x19, 0x02, 0x04, 0x08, 0x13, 0x03, 0x00 }, /* 0x25 '%' */
    { 0x0C, 0x12, 0x14, 0x08, 0x15, 0x12, 0x0D, 0x00 }, /* 0x26 '&' */
    { 0x04, 0x04, 0x04, 0x00, 0x00, 0x00, 0x00, 0x00 }, /* 0x27 '\'' */
    { 0x02, 0x04, 0x08, 0x08, 0x08, 0x04, 0x02, 0x00 }, /* 0x28 '(' */
    { 0x08, 0x04, 0x02, 0x02, 0x02, 0x04, 0x08, 0x00 }, /* 0x29 ')' */
    { 0x00, 0x04, 0x15, 0x0E, 0x15, 0x04, 0x00, 0x00 }, /* 0x2A '*' */
    { 0x00, 0x04, 0x04, 0x1F, 0x04, 0x04, 0x00, 0x00 }, /* 0x2B '+' */
    { 0x00, 0x00, 0x00, 0x00, 0x0C, 0x04, 0x08, 0x00 }, /* 0x2C ',' */
    { 0x00, 0x00, 0x00, 0x1F, 0x00, 0x00, 0x00, 0x00 }, /* 0x2D '-' */
    { 0x00, 0x00, 0x00, 0x00, 0x00, 0x0C, 0x0C, 0x00 }, /* 0x2E '.' */
    { 0x01, 0x01, 0x02, 0x04, 0x08, 0x10, 0x10, 0x00 }, /* 0x2F '/' */
    { 0x0E, 0x11, 0x13, 0x15, 0x19, 0x11, 0x0E, 0x00 }, /* 0x30 '0' */
    { 0x04, 0x0C, 0x04, 0x04, 0x04, 0x04, 0x0E, 0x00 }, /* 0x31 '1' */
    { 0x0E, 0x11, 0x01, 0x02, 0x04, 0x08, 0x1F, 0x00 }, /* 0x32 '2' */
    { 0x0E, 0x11, 0x01, 0x06, 0x01, 0x11, 0x0E, 0x00 }, /* 0x33 '3' */
    { 0x02, 0x06, 0x0A, 0x12, 0x1F, 0x02, 0x02, 0x00 }, /* 0x34 '4' */
    { 0x1F, 0x10, 0x1E, 0x01, 0x01, 0x11, 0x0E, 0x00 }, /* 0x35 '5' */
    { 0x06, 0x08, 0x10, 0x1E, 0x11, 0x11, 0x0E, 0x00 }, /* 0x36 '6' */
    { 0x1F, 0x01, 0x02, 0x04, 0x08, 0x08, 0x08, 0x00 }, /* 0x37 '7' */
    { 0x0E, 0x11, 0x11, 0x0E, 0x11, 0x11, 0x0E, 0x00 }, /* 0x38 '8' */
    { 0x0E, 0x11, 0x11, 0x0F, 0x01, 0x02, 0x0C, 0x00 }, /* 0x39 '9' */
    { 0x00, 0x0C, 0x0C, 0x00, 0x0C, 0x0C, 0x00, 0x00 }, /* 0x3A ':' */
    { 0x00, 0x0C, 0x0C, 0x00, 0x0C, 0x04, 0x08, 0x00 }, /* 0x3B ';' */
    { 0x02, 0x04, 0x08, 0x10, 0x08, 0x04, 0x02, 0x00 }, /* 0x3C '<' */
    { 0x00, 0x00, 0x1F, 0x00, 0x1F, 0x00, 0x00, 0x00 }, /* 0x3D '=' */
    { 0x08, 0x04, 0x02, 0x01, 0x02, 0x04, 0x08, 0x00 }, /* 0x3E '>' */
    { 0x0E, 0x11, 0x01, 0x02, 0x04, 0x00, 0x04, 0x00 }, /* 0x3F '?' */
    { 0x0E, 0x11, 0x17, 0x15, 0x17, 0x10, 0x0F, 0x00 }, /* 0x40 '@' */
    { 0x0E, 0x11, 0x11, 0x1F, 0x11, 0x11, 0x11, 0x00 }, /* 0x41 'A' */
    { 0x1E, 0x11, 0x11, 0x1E, 0x11, 0x11, 0x1E, 0x00 }, /* 0x42 'B' */
    { 0x0E, 0x11, 0x10, 0x10, 0x10, 0x11, 0x0E, 0x00 }, /* 0x43 'C' */
    { 0x1E, 0x11, 0x11, 0x11, 0x11, 0x11, 0x1E, 0x00 }, /* 0x44 'D' */
    { 0x1F, 0x10, 0x10, 0x1E, 0x10, 0x10, 0x1F, 0x00 }, /* 0x45 'E' */
    { 0x1F, 0x10, 0x10, 0x1E, 0x10, 0x10, 0x10, 0x00 }, /* 0x46 'F' */
    { 0x0E, 0x11, 0x10, 0x17, 0x11, 0x11, 0x0F, 0x00 }, /* 0x47 'G' */
    { 0x11, 0x11, 0x11, 0x1F, 0x11, 0x11, 0x11, 0x00 }, /* 0x48 'H' */
    { 0x0E, 0x04, 0x04, 0x04, 0x04, 0x04, 0x0E, 0x00 }, /* 0x49 'I' */
    { 0x07, 0x02, 0x02, 0x02, 0x02, 0x12, 0x0C, 0x00 }, /* 0x4A 'J' */
    { 0x11, 0x12, 0x14, 0x18, 0x14, 0x12, 0x11, 0x00 }, /* 0x4B 'K' */
    { 0x10, 0x10, 0x10, 0x10, 0x10, 0x10, 0x1F, 0x00 }, /* 0x4C 'L' */
    { 0x11, 0x1B, 0x15, 0x15, 0x11, 0x11, 0x11, 0x00 }, /* 0x4D 'M' */
    { 0x11, 0x11, 0x19, 0x15, 0x13, 0x11, 0x11, 0x00 }, /* 0x4E 'N' */
    { 0x0E, 0x11, 0x11, 0x11, 0x11, 0x11, 0x0E, 0x00 }, /* 0x4F 'O' */
    { 0x1E, 0x11, 0x11, 0x1E, 0x10, 0x10, 0x10, 0x00 }, /* 0x50 'P' */
    { 0x0E, 0x11, 0x11, 0x11, 0x15, 0x12, 0x0D, 0x00 }, /* 0x51 'Q' */
    { 0x1E, 0x11, 0x11, 0x1E, 0x14, 0x12, 0x11, 0x00 }, /* 0x52 'R' */
    { 0x0E, 0x11, 0x10, 0x0E, 0x01, 0x11, 0x0E, 0x00 }, /* 0x53 'S' */
    { 0x1F, 0x04, 0x04, 0x04, 0x04, 0x04, 0x04, 0x00 }, /* 0x54 'T' */
    { 0x11, 0x11, 0x11, 0x11, 0x11, 0x11, 0x0E, 0x00 }, /* 0x55 'U' */
    { 0x11, 0x11, 0x11, 0x11, 0x11, 0x0A, 0x04, 0x00 }, /* 0x56 'V' */
    { 0x11, 0x11, 0x11, 0x15, 0x15, 0x15, 0x0A, 0x00 }, /* 0x57 'W' */
    { 0x11, 0x11, 0x0A, 0x04, 0x0A, 0x11, 0x11, 0x00 }, /* 0x58 'X' */
    { 0x11, 0x11, 0x0A, 0x04, 0x04, 0x04, 0x04, 0x00 }, /* 0x59 'Y' */
    { 0x1F, 0x01, 0x02, 0x04, 0x08, 0x10, 0x1F, 0x00 }, /* 0x5A 'Z' */
    { 0x0E, 0x08, 0x08, 0x08, 0x08, 0x08, 0x0E, 0x00 }, /* 0x5B '[' */
    { 0x10, 0x10, 0x08, 0x04, 0x02, 0x01, 0x01, 0x00 }, /* 0x5C '\\' */
    { 0x0E, 0x02, 0x02, 0x02, 0x02, 0x02, 0x0E, 0x00 }, /* 0x5D ']' */
    { 0x04, 0x0A, 0x11, 0x00, 0x00, 0x00, 0x00, 0x00 }, /* 0x5E '^' */
    { 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x1F, 0x00 }, /* 0x5F '_' */
    { 0x08, 0x04, 0x02, 0x00, 0x00, 0x00, 0x00, 0x00 }, /* 0x60 '`' */
    { 0x00, 0x00, 0x0E, 0x01, 0x0F, 0x11, 0x0F, 0x00 }, /* 0x61 'a' */
    { 0x10, 0x10, 0x1E, 0x11, 0x11, 0x11, 0x1E, 0x00 }, /* 0x62 'b' */
    { 0x00, 0x00, 0x0F, 0x10, 0x10, 0x10, 0x0F, 0x00 }, /* 0x63 'c' */
    { 0x01, 0x01, 0x0F, 0x11, 0x11, 0x11, 0x0F, 0x00 }, /* 0x64 'd' */
    { 0x00, 0x00, 0x0E, 0x11, 0x1F, 0x10, 0x0E, 0x00 }, /* 0x65 'e' */
    { 0x06, 0x09, 0x08, 0x1C, 0x08, 0x08, 0x08, 0x00 }, /* 0x66 'f' */
    { 0x00, 0x00, 0x0F, 0x11, 0x11, 0x0F, 0x01, 0x0E }, /* 0x67 'g' */
    { 0x10, 0x10, 0x16, 0x19, 0x11, 0x11, 0x11, 0x00 }, /* 0x68 'h' */
    { 0x04, 0x00, 0x0C, 0x04, 0x04, 0x04, 0x0E, 0x00 }, /* 0x69 'i' */
    { 0x02, 0x00, 0x06, 0x02, 0x02, 0x02, 0x12, 0x0C }, /* 0x6A 'j' */
    { 0x10, 0x10, 0x12, 0x14, 0x18, 0x14, 0x12, 0x00 }, /* 0x6B 'k' */
    { 0x0C, 0x04, 0x04, 0x04, 0x04, 0x04, 0x03, 0x00 }, /* 0x6C 'l' */
    { 0x00, 0x00, 0x1A, 0x15, 0x15, 0x15, 0x15, 0x00 }, /* 0x6D 'm' */
    { 0x00, 0x00, 0x16, 0x19, 0x11, 0x11, 0x11, 0x00 }, /* 0x6E 'n' */
    { 0x00, 0x00, 0x0E, 0x11, 0x11, 0x11, 0x0E, 0x00 }, /* 0x6F 'o' */
    { 0x00, 0x00, 0x1E, 0x11, 0x11, 0x1E, 0x10, 0x10 }, /* 0x70 'p' */
    { 0x00, 0x00, 0x0F, 0x11, 0x11, 0x0F, 0x01, 0x01 }, /* 0x71 'q' */
    { 0x00, 0x00, 0x16, 0x19, 0x10, 0x10, 0x10, 0x00 }, /* 0x72 'r' */
    { 0x00, 0x00, 0x0F, 0x10, 0x0E, 0x01, 0x1E, 0x00 }, /* 0x73 's' */
    { 0x08, 0x08, 0x1C, 0x08, 0x08, 0x09, 0x06, 0x00 }, /* 0x74 't' */
    { 0x00, 0x00, 0x11, 0x11, 0x11, 0x13, 0x0D, 0x00 }, /* 0x75 'u' */
    { 0x00, 0x00, 0x11, 0x11, 0x11, 0x0A, 0x04, 0x00 }, /* 0x76 'v' */
    { 0x00, 0x00, 0x11, 0x11, 0x15, 0x15, 0x0A, 0x00 }, /* 0x77 'w' */
    { 0x00, 0x00, 0x11, 0x0A, 0x04, 0x0A, 0x11, 0x00 }, /* 0x78 'x' */
    { 0x00, 0x00, 0x11, 0x11, 0x11, 0x0F, 0x01, 0x0E }, /* 0x79 'y' */
    { 0x00, 0x00, 0x1F, 0x02, 0x04, 0x08, 0x1F, 0x00 }, /* 0x7A 'z' */
    { 0x03, 0x04, 0x04, 0x08, 0x04, 0x04, 0x03, 0x00 }, /* 0x7B '{' */
    { 0x04, 0x04, 0x04, 0x04, 0x04, 0x04, 0x04, 0x00 }, /* 0x7C '|' */
    { 0x18, 0x04, 0x04, 0x02, 0x04, 0x04, 0x18, 0x00 }, /* 0x7D '}' */
    { 0x00, 0x00, 0x08, 0x15, 0x02, 0x00, 0x00, 0x00 }, /* 0x7E '~' */
};

_Static_assert(sizeof font / sizeof font[0] == 95, "one glyph per printable ASCII character");

/* Drawn for anything outside 32..126: a hollow box narrower than every letter, so it cannot be
 * mistaken for 'o', '0' or 'O'. */
static const unsigned char unknown_glyph[FONT_ROWS] = { 0x00, 0x0E, 0x0A, 0x0A, 0x0A, 0x0E, 0x00, 0x00 };

/* ---- rectangle batching ------------------------------------------------------------------ */

typedef struct batch {
    SDL_Renderer *r;
    int n;
    int failed;   /* after the first failure no more SDL calls, so SDL_GetError() keeps its cause */
    SDL_Rect rects[BATCH_RECTS];
} batch;

static void batch_flush(batch *b)
{
    if (b->n > 0 && !b->failed && SDL_RenderFillRects(b->r, b->rects, b->n) < 0)
        b->failed = 1;
    b->n = 0;
}

static void batch_add(batch *b, int x, int y, int w, int h)
{
    if (b->n == BATCH_RECTS)
        batch_flush(b);
    b->rects[b->n].x = x;
    b->rects[b->n].y = y;
    b->rects[b->n].w = w;
    b->rects[b->n].h = h;
    b->n++;
}

/* ---- text layout ---------------------------------------------------------------------------- */

static int clamp_scale(int scale)
{
    return scale < 1 ? 1 : scale > SCALE_MAX ? SCALE_MAX : scale;
}

static int saturate_int(long long v)
{
    return v > INT_MAX ? INT_MAX : (int)v;
}

/* Cell position of the text being laid out. 64-bit so that no string length can overflow it;
 * shared by drawing and measuring so the two can never disagree. */
typedef struct cursor {
    long long col, line;
    unsigned char prev;
} cursor;

/* Advances the cursor over one byte. Returns the glyph for the cell the byte occupies - which is
 * then cell (col - 1, line) - or NULL for a byte that occupies no cell. */
static const unsigned char *cursor_step(cursor *cur, unsigned char ch)
{
    unsigned char prev = cur->prev;

    cur->prev = ch;
    if (ch == '\n') {
        cur->col = 0;
        cur->line++;
        return NULL;
    }
    if (ch == '\r')   /* so that text from a CRLF source does not end every line in a box */
        return NULL;
    if (ch == '\t') {
        cur->col = (cur->col / TAB_CELLS + 1) * TAB_CELLS;
        return NULL;
    }
    /* A UTF-8 continuation byte (10xxxxxx) after another non-ASCII byte belongs to a sequence
     * whose lead byte already drew the box: one box per code point, not per byte. */
    if ((ch & 0xC0) == 0x80 && prev >= 0x80)
        return NULL;
    cur->col++;
    if (ch >= FONT_FIRST && ch <= FONT_LAST)
        return font[ch - FONT_FIRST];
    return unknown_glyph;
}

static void draw_glyph(batch *b, const unsigned char *glyph, int x, int y, int scale)
{
    for (int row = 0; row < FONT_ROWS; row++) {
        unsigned bits = glyph[row];
        int col = 0;

        while (col < FONT_COLS && !b->failed) {
            if (!(bits & (0x10u >> col))) {
                col++;
                continue;
            }
            int start = col;
            while (col < FONT_COLS && (bits & (0x10u >> col)))
                col++;
            batch_add(b, x + start * scale, y + row * scale, (col - start) * scale, scale);
        }
    }
}

int tempo_debug_text(SDL_Renderer *r, int x, int y, int scale, const char *text)
{
    if (r == NULL)
        return tempo__set_error(TEMPO_EINVAL, "tempo_debug_text: renderer is NULL");
    if (text == NULL)
        return 0;
    scale = clamp_scale(scale);

    /* Glyphs wholly outside the viewport are skipped: it is cheaper than letting SDL clip them,
     * and it keeps every coordinate handed to SDL within int range however long the text is.
     * The viewport is in the same logical coordinates as the rects. */
    SDL_Rect vp;
    SDL_RenderGetViewport(r, &vp);

    const long long cell_w = (long long)TEMPO_DEBUG_GLYPH_W * scale;
    const long long cell_h = (long long)TEMPO_DEBUG_GLYPH_H * scale;
    batch b = { .r = r };
    cursor cur = { 0 };

    for (const unsigned char *p = (const unsigned char *)text; *p != '\0' && !b.failed; p++) {
        const unsigned char *glyph = cursor_step(&cur, *p);
        if (glyph == NULL)
            continue;
        long long cx = x + (cur.col - 1) * cell_w;
        long long cy = y + cur.line * cell_h;
        if (cy > vp.h)
            break;   /* lines only go down: nothing after this can be visible */
        if (cx > vp.w || cx + cell_w < 0 || cy + cell_h < 0)
            continue;
        draw_glyph(&b, glyph, (int)cx, (int)cy, scale);
    }
    batch_flush(&b);
    return b.failed ? tempo__set_error(TEMPO_EPLATFORM, "tempo_debug_text: %s", SDL_GetError()) : 0;
}

int tempo_debug_textf(SDL_Renderer *r, int x, int y, int scale, const char *fmt, ...)
{
    char buf[TEMPO_DEBUG_TEXTF_MAX + 1];
    va_list ap;
    int len;

    if (r == NULL)
        return tempo__set_error(TEMPO_EINVAL, "tempo_debug_textf: renderer is NULL");
    if (fmt == NULL)
        return tempo__set_error(TEMPO_EINVAL, "tempo_debug_textf: fmt is NULL");
    va_start(ap, fmt);
    len = vsnprintf(buf, sizeof buf, fmt, ap);   /* C99 semantics: truncates and terminates */
    va_end(ap);
    if (len < 0)
        return tempo__set_error(TEMPO_EINVAL, "tempo_debug_textf: cannot format \"%s\"", fmt);
    return tempo_debug_text(r, x, y, scale, buf);
}

void tempo_debug_text_size(const char *text, int scale, int *w, int *h)
{
    long long max_cols = 0, lines = 0;

    if (text != NULL && *text != '\0') {
        cursor cur = { 0 };
        for (const unsigned char *p = (const unsigned char *)text; *p != '\0'; p++) {
            cursor_step(&cur, *p);
            if (cur.col > max_cols)
                max_cols = cur.col;
        }
        lines = cur.line + 1;
    }
    scale = clamp_scale(scale);
    if (w != NULL)
        *w = saturate_int(max_cols * TEMPO_DEBUG_GLYPH_W * scale);
    if (h != NULL)
        *h = saturate_int(lines * TEMPO_DEBUG_GLYPH_H * scale);
}

/* ---- frame-time graph ----------------------------------------------------------------------- */

#define GRAPH_DEFAULT_W 240
#define GRAPH_DEFAULT_H 60
#define GRAPH_DEFAULT_FULL_SCALE_NS UINT64_C(33333333)   /* two 60 Hz frames */
#define GRAPH_DEFAULT_WARN_NS UINT64_C(16666667)         /* one 60 Hz frame */

/* Background is translucent so the scene stays visible behind the overlay. */
static const SDL_Color graph_bg = { 16, 16, 24, 176 };
static const SDL_Color graph_ok = { 64, 200, 96, 255 };
static const SDL_Color graph_warn = { 232, 64, 48, 255 };
static const SDL_Color graph_line = { 255, 214, 0, 255 };

/* Height in pixels of `ns` on a graph `h` px tall. Display-only, so double is fine here and avoids
 * the overflow of ns * h in 64-bit integers. */
static int graph_height(uint64_t ns, uint64_t full_scale_ns, int h)
{
    if (ns >= full_scale_ns)
        return h;
    int px = (int)((double)ns / (double)full_scale_ns * h + 0.5);
    if (px == 0 && ns > 0)
        px = 1;   /* a sample that exists must be visible, however fast the frame was */
    return px;
}

static void set_colour(batch *b, SDL_Color c)
{
    batch_flush(b);   /* queued rects belong to the previous colour */
    if (!b->failed && SDL_SetRenderDrawColor(b->r, c.r, c.g, c.b, c.a) < 0)
        b->failed = 1;
}

int tempo_debug_graph(SDL_Renderer *r, const tempo_debug_graph_desc *desc,
                      const uint64_t *samples_ns, int n)
{
    static const tempo_debug_graph_desc defaults = { 0 };
    Uint8 old_r, old_g, old_b, old_a;
    SDL_BlendMode old_mode;

    if (r == NULL)
        return tempo__set_error(TEMPO_EINVAL, "tempo_debug_graph: renderer is NULL");
    if (desc == NULL)
        desc = &defaults;
    if (desc->w < 0 || desc->h < 0)
        return tempo__set_error(TEMPO_EINVAL, "tempo_debug_graph: negative size %dx%d", desc->w, desc->h);
    if (n > 0 && samples_ns == NULL)
        return tempo__set_error(TEMPO_EINVAL, "tempo_debug_graph: samples_ns is NULL with n = %d", n);
    if (SDL_GetRenderDrawColor(r, &old_r, &old_g, &old_b, &old_a) < 0 ||
        SDL_GetRenderDrawBlendMode(r, &old_mode) < 0)
        return tempo__set_error(TEMPO_EPLATFORM, "tempo_debug_graph: %s", SDL_GetError());

    const int x = desc->x, y = desc->y;
    const int w = desc->w ? desc->w : GRAPH_DEFAULT_W;
    const int h = desc->h ? desc->h : GRAPH_DEFAULT_H;
    const uint64_t full_ns = desc->full_scale_ns ? desc->full_scale_ns : GRAPH_DEFAULT_FULL_SCALE_NS;
    const uint64_t warn_ns = desc->warn_ns ? desc->warn_ns : GRAPH_DEFAULT_WARN_NS;
    batch b = { .r = r };

    /* Blending for the translucent background; the bars and line are opaque, so it changes nothing
     * for them and one mode serves all draws. */
    if (SDL_SetRenderDrawBlendMode(r, SDL_BLENDMODE_BLEND) < 0)
        b.failed = 1;
    set_colour(&b, graph_bg);
    batch_add(&b, x, y, w, h);

    /* Bars share floor(w / n) px each and are right-aligned, so the newest sample always sits at
     * the right edge and the graph scrolls left as samples arrive. With more samples than pixels
     * the oldest ones are dropped rather than squeezed into sub-pixel bars. */
    int count = n > 0 ? n : 0;
    int bar_w = count > 0 ? w / count : 0;
    if (count > 0 && bar_w < 1) {
        bar_w = 1;
        count = w;
    }
    const int gap = bar_w >= 3 ? 1 : 0;   /* separates neighbours once there is room to spare */
    const int first = n - count;
    const int x0 = x + w - count * bar_w;

    /* Two passes, one per colour, so each colour is one batch rather than a colour switch (and a
     * flush) at every boundary between normal and slow frames. */
    for (int pass = 0; pass < 2; pass++) {
        const int warn_pass = pass == 1;
        set_colour(&b, warn_pass ? graph_warn : graph_ok);
        for (int i = 0; i < count && !b.failed; i++) {
            uint64_t ns = samples_ns[first + i];
            if ((ns > warn_ns) != warn_pass)
                continue;
            int bh = graph_height(ns, full_ns, h);
            if (bh > 0)
                batch_add(&b, x0 + i * bar_w, y + h - bh, bar_w - gap, bh);
        }
    }

    if (warn_ns <= full_ns && h > 0) {
        int wh = graph_height(warn_ns, full_ns, h);
        int ly = y + h - (wh > 0 ? wh : 1);   /* a zero-height threshold still gets the bottom row */
        set_colour(&b, graph_line);
        batch_add(&b, x, ly, w, 1);
    }
    batch_flush(&b);

    /* Restored even after a failure: the caller's next draw must not inherit graph colours. */
    int failed = b.failed;
    if (SDL_SetRenderDrawColor(r, old_r, old_g, old_b, old_a) < 0 ||
        SDL_SetRenderDrawBlendMode(r, old_mode) < 0)
        failed = 1;
    return failed ? tempo__set_error(TEMPO_EPLATFORM, "tempo_debug_graph: %s", SDL_GetError()) : 0;
}
