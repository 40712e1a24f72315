/* Asset format checks (asset_check.h). Every "SDL_image does" / "SDL_mixer
 * does" below was read in Debian's sources (libsdl2-image 2.6.3,
 * libsdl2-mixer 2.6.2); the checks must read the same fields the same way
 * as the decoder they guard, or a file could pass here and lie there. */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "asset_check.h"
#include "tempo/base.h"

static const char *const format_names[TEMPO__ASSET_FORMAT_COUNT] = {
    [TEMPO__ASSET_UNKNOWN] = "unknown", [TEMPO__ASSET_PNG] = "PNG",   [TEMPO__ASSET_JPEG] = "JPEG",
    [TEMPO__ASSET_GIF] = "GIF",         [TEMPO__ASSET_BMP] = "BMP",   [TEMPO__ASSET_QOI] = "QOI",
    [TEMPO__ASSET_TGA] = "TGA",         [TEMPO__ASSET_PNM] = "PNM",   [TEMPO__ASSET_XPM] = "XPM",
    [TEMPO__ASSET_WEBP] = "WEBP",       [TEMPO__ASSET_SVG] = "SVG",   [TEMPO__ASSET_TIF] = "TIFF",
    [TEMPO__ASSET_ICO] = "ICO",         [TEMPO__ASSET_CUR] = "CUR",   [TEMPO__ASSET_PCX] = "PCX",
    [TEMPO__ASSET_LBM] = "LBM",         [TEMPO__ASSET_XCF] = "XCF",   [TEMPO__ASSET_XV] = "XV",
    [TEMPO__ASSET_AVIF] = "AVIF",       [TEMPO__ASSET_JXL] = "JPEG XL", [TEMPO__ASSET_WAV] = "WAV",
    [TEMPO__ASSET_AIFF] = "AIFF",       [TEMPO__ASSET_VOC] = "VOC",   [TEMPO__ASSET_OGG] = "Ogg Vorbis",
    [TEMPO__ASSET_OPUS] = "Opus",       [TEMPO__ASSET_FLAC] = "FLAC", [TEMPO__ASSET_MP3] = "MP3",
    [TEMPO__ASSET_MIDI] = "MIDI",
};

const char *tempo__asset_format_name(tempo__asset_format f)
{
    return (unsigned)f < TEMPO__ASSET_FORMAT_COUNT && format_names[f] ? format_names[f] : "unknown";
}

#if defined(__MINGW32__)
__attribute__((format(gnu_printf, 3, 4)))
#elif defined(__GNUC__)
__attribute__((format(printf, 3, 4)))
#endif
static int fail(tempo__asset_info *info, int code, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(info->why, sizeof info->why, fmt, ap);
    va_end(ap);
    return code;
}

static uint32_t be32(const unsigned char *p)
{
    return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3];
}

static uint32_t le32(const unsigned char *p)
{
    return (uint32_t)p[3] << 24 | (uint32_t)p[2] << 16 | (uint32_t)p[1] << 8 | p[0];
}

static uint32_t be16(const unsigned char *p)
{
    return (uint32_t)p[0] << 8 | p[1];
}

static uint32_t le16(const unsigned char *p)
{
    return (uint32_t)p[1] << 8 | p[0];
}

static bool has(const unsigned char *b, size_t n, size_t off, const char *magic)
{
    size_t k = strlen(magic);
    return n >= off + k && memcmp(b + off, magic, k) == 0;
}

/* C's isspace() in the "C" locale, which is what SDL_isspace is. */
static bool space(unsigned char c)
{
    return c == ' ' || c == '\t' || c == '\n' || c == '\v' || c == '\f' || c == '\r';
}

static bool digit(unsigned char c)
{
    return c >= '0' && c <= '9';
}

/* ---- Images ------------------------------------------------------------- */

static const unsigned char png_sig[8] = {0x89, 'P', 'N', 'G', '\r', '\n', 0x1a, '\n'};

/* Which format SDL_image's IMG_Load would take the bytes for, in the order
 * of its supported[] table (IMG.c), minus TGA (no magic). */
static tempo__asset_format detect_image(const unsigned char *b, size_t n)
{
    if (has(b, n, 4, "ftyp") && (has(b, n, 8, "avif") || has(b, n, 8, "avis")))
        return TEMPO__ASSET_AVIF;
    if (n >= 6 && b[0] == 0 && b[1] == 0 && le16(b + 4) != 0) { /* IMG_isICO/IMG_isCUR */
        if (le16(b + 2) == 2)
            return TEMPO__ASSET_CUR;
        if (le16(b + 2) == 1)
            return TEMPO__ASSET_ICO;
    }
    if (has(b, n, 0, "BM"))
        return TEMPO__ASSET_BMP;
    if (has(b, n, 0, "GIF87a") || has(b, n, 0, "GIF89a"))
        return TEMPO__ASSET_GIF;
    if (n >= 2 && b[0] == 0xFF && b[1] == 0xD8)
        return TEMPO__ASSET_JPEG;
    if ((n >= 2 && b[0] == 0xFF && b[1] == 0x0A) || has(b, n, 4, "JXL "))
        return TEMPO__ASSET_JXL;
    if (has(b, n, 0, "FORM") && (has(b, n, 8, "ILBM") || has(b, n, 8, "PBM ")))
        return TEMPO__ASSET_LBM;
    if (n >= 3 && b[0] == 0x0A && (b[1] == 0 || b[1] == 2 || b[1] == 3 || b[1] == 5) && b[2] == 1)
        return TEMPO__ASSET_PCX;
    if (n >= 4 && memcmp(b, png_sig, 4) == 0)
        return TEMPO__ASSET_PNG;
    if (n >= 2 && b[0] == 'P' && b[1] >= '1' && b[1] <= '6')
        return TEMPO__ASSET_PNM;
    for (size_t i = 0; i + 4 <= n && i < 4096; i++) /* IMG_isSVG: "<svg" in the first 4 KiB */
        if (memcmp(b + i, "<svg", 4) == 0)
            return TEMPO__ASSET_SVG;
    if (has(b, n, 0, "II*") || has(b, n, 0, "MM") ) {
        if (n >= 4 && ((b[0] == 'I' && b[2] == 42 && b[3] == 0) || (b[0] == 'M' && b[2] == 0 && b[3] == 42)))
            return TEMPO__ASSET_TIF;
    }
    if (has(b, n, 0, "gimp xcf"))
        return TEMPO__ASSET_XCF;
    if (has(b, n, 0, "/* XPM */"))
        return TEMPO__ASSET_XPM;
    if (has(b, n, 0, "P7 332"))
        return TEMPO__ASSET_XV;
    if (has(b, n, 0, "RIFF") && has(b, n, 8, "WEBP") && has(b, n, 12, "VP8"))
        return TEMPO__ASSET_WEBP;
    if (has(b, n, 0, "qoif"))
        return TEMPO__ASSET_QOI;
    return TEMPO__ASSET_UNKNOWN;
}

/* JPEG: libjpeg takes the size from the first start-of-frame segment before
 * the first scan. */
static int jpeg_size(const unsigned char *b, size_t n, tempo__asset_info *info)
{
    size_t pos = 2;
    while (pos + 4 <= n) {
        if (b[pos] != 0xFF) {
            pos++; /* not at a marker: resync, as libjpeg's next_marker does */
            continue;
        }
        unsigned m = b[pos + 1];
        if (m == 0xFF || m == 0xD8 || m == 0x01 || (m >= 0xD0 && m <= 0xD7)) {
            pos += m == 0xFF ? 1 : 2; /* fill byte or a marker without a length */
            continue;
        }
        if (m == 0xDA || m == 0xD9)
            break; /* scan data or the end before any frame header */
        if (m >= 0xC0 && m <= 0xCF && m != 0xC4 && m != 0xC8 && m != 0xCC) {
            if (pos + 9 > n)
                break;
            info->h = be16(b + pos + 5);
            info->w = be16(b + pos + 7);
            return 0;
        }
        pos += 2 + be16(b + pos + 2);
    }
    return fail(info, TEMPO_EFORMAT, "JPEG without a frame header (SOF) before its image data");
}

/* GIF: SDL_image (IMG_gif.c) decodes the first image block with the size in
 * its own descriptor, not the logical screen's; the blocks before it are
 * extensions (sub-block chains) and bytes it skips. */
static int gif_size(const unsigned char *b, size_t n, tempo__asset_info *info)
{
    if (n < 13)
        return fail(info, TEMPO_EFORMAT, "GIF cut short in its header (%zu bytes)", n);
    uint32_t sw = le16(b + 6), sh = le16(b + 8);
    info->w = sw; /* judged even when no image block follows */
    info->h = sh;
    size_t pos = 13;
    if (b[10] & 0x80)
        pos += 3u * (2u << (b[10] & 7)); /* global colour table */
    while (pos < n) {
        unsigned char c = b[pos++];
        if (c == ';')
            break;
        if (c == '!') {
            pos++; /* the extension label */
            while (pos < n && b[pos] != 0)
                pos += 1u + b[pos];
            pos++;
            continue;
        }
        if (c != ',')
            continue; /* SDL_image skips stray bytes */
        if (pos + 9 > n)
            break;
        /* Judge the larger of the screen and the image, whichever a
         * future SDL_image allocates. */
        uint32_t iw = le16(b + pos + 4), ih = le16(b + pos + 6);
        info->w = iw > sw ? iw : sw;
        info->h = ih > sh ? ih : sh;
        return 0;
    }
    return fail(info, TEMPO_EFORMAT, "GIF without an image block");
}

/* SDL_image's PNM ReadNumber (IMG_pnm.c): whitespace and '#' comments, then
 * decimal digits; -1 on EOF, a non-digit or an overflow. */
static long pnm_number(const unsigned char *b, size_t n, size_t *pos)
{
    unsigned char ch;
    do {
        if (*pos >= n)
            return -1;
        ch = b[(*pos)++];
        if (ch == '#') {
            do {
                if (*pos >= n)
                    return -1;
                ch = b[(*pos)++];
            } while (ch != '\r' && ch != '\n');
        }
    } while (space(ch));
    if (!digit(ch))
        return -1;
    long v = 0;
    do {
        if (v >= INT32_MAX / 10)
            return -1;
        v = v * 10 + (ch - '0');
        if (*pos >= n)
            return -1;
        ch = b[(*pos)++];
    } while (digit(ch));
    return v;
}

/* PNM: the surface is allocated from the header; the pixels must then be
 * in the file, so a size whose data cannot be there is a lie. */
static int pnm_size(const unsigned char *b, size_t n, tempo__asset_info *info)
{
    int kind = b[1] - '1'; /* 0 PBM, 1 PGM, 2 PPM; +3 binary */
    bool ascii = kind < 3;
    kind %= 3;
    size_t pos = 2;
    long w = pnm_number(b, n, &pos), h = pnm_number(b, n, &pos);
    if (w <= 0 || h <= 0)
        return fail(info, TEMPO_EFORMAT, "PNM without a valid width and height");
    if (kind != 0) {
        long maxval = pnm_number(b, n, &pos);
        if (maxval <= 0 || maxval > 255)
            return fail(info, TEMPO_EFORMAT, "PNM maxval %ld (SDL_image reads 1-255)", maxval);
    }
    info->w = (uint32_t)w;
    info->h = (uint32_t)h;
    /* Bytes of pixel data at the least: one per sample in ASCII (a digit),
     * packed bits for binary PBM, one byte per sample otherwise. */
    uint64_t samples = (uint64_t)w * (uint64_t)h * (kind == 2 ? 3u : 1u);
    uint64_t need = ascii ? samples : kind == 0 ? (uint64_t)((w + 7) / 8) * (uint64_t)h : samples;
    if (need > n - (pos < n ? pos : n))
        return fail(info, TEMPO_EFORMAT, "PNM claims %ldx%ld, which needs %llu bytes of pixel data; the file has %zu",
                    w, h, (unsigned long long)need, n - (pos < n ? pos : n));
    return 0;
}

/* SDL_image 2.6.3 decodes a one-character-per-pixel XPM with at most 256
 * colours through QUICK_COLORHASH, table[pixel]->color, unchecked: a pixel
 * whose character names no colour dereferences NULL (found by
 * fuzz_asset_load). Walk the file as its get_next_line() does: each colour
 * line is the next quoted string, its first character the key; each pixel
 * row starts after the next quote and is read as w + 3 raw bytes. */
static int xpm_keys(const unsigned char *b, size_t n, size_t pos, uint32_t w, uint32_t h, uint32_t ncolors,
                    tempo__asset_info *info)
{
    bool key[256] = {false};
    for (uint32_t i = 0; i < ncolors; i++) {
        while (pos < n && b[pos] != '"')
            pos++;
        size_t start = ++pos;
        while (pos < n && b[pos] != '"')
            pos++;
        if (pos >= n)
            return 0; /* SDL_image stops at the end of the data */
        if (pos - start < 2)
            return fail(info, TEMPO_EFORMAT, "XPM colour line %u is shorter than its key and a space", (unsigned)i);
        key[b[start]] = true;
        pos++;
    }
    for (uint32_t y = 0; y < h; y++) {
        while (pos < n && b[pos] != '"')
            pos++;
        pos++;
        if (pos > n || n - pos < (uint64_t)w + 3)
            return 0; /* a short row: SDL_image reports the premature end */
        for (uint32_t x = 0; x < w; x++)
            if (!key[b[pos + x]])
                return fail(info, TEMPO_EFORMAT, "XPM pixel (%u,%u) is '%c' (0x%02x), which names no colour",
                            (unsigned)x, (unsigned)y, b[pos + x] >= 32 && b[pos + x] < 127 ? b[pos + x] : '?',
                            b[pos + x]);
        pos += (size_t)w + 3;
    }
    return 0;
}

/* XPM: SDL_image (IMG_xpm.c) reads "<w> <h> <ncolors> <cpp>" from the first
 * quoted string with sscanf("%d %d %d %d"), then allocates the surface, a
 * colour table of ncolors and a line of w * cpp. Every colour and every
 * pixel is text in the file, so claims the file cannot hold are lies. */
static int xpm_size(const unsigned char *b, size_t n, tempo__asset_info *info)
{
    size_t pos = 9;
    while (pos < n && b[pos] != '"')
        pos++;
    size_t end = ++pos;
    while (end < n && b[end] != '"')
        end++;
    if (end >= n)
        return fail(info, TEMPO_EFORMAT, "XPM without its values string");
    long v[4];
    for (int i = 0; i < 4; i++) {
        while (pos < end && space(b[pos]))
            pos++;
        if (pos < end && b[pos] == '+')
            pos++;
        if (pos >= end || !digit(b[pos]))
            return fail(info, TEMPO_EFORMAT, "XPM values string is not \"<w> <h> <ncolors> <cpp>\"");
        long x = 0;
        int digits = 0;
        while (pos < end && digit(b[pos])) {
            x = x * 10 + (b[pos++] - '0');
            if (++digits > 9)
                return fail(info, TEMPO_EFORMAT, "XPM value with more than 9 digits");
        }
        v[i] = x;
    }
    if (v[0] <= 0 || v[1] <= 0 || v[2] <= 0 || v[3] <= 0)
        return fail(info, TEMPO_EFORMAT, "XPM claims %ldx%ld, %ld colours, %ld chars per pixel", v[0], v[1], v[2], v[3]);
    info->w = (uint32_t)v[0];
    info->h = (uint32_t)v[1];
    if (v[3] > 8)
        return fail(info, TEMPO_EFORMAT, "XPM with %ld characters per pixel (at most 8)", v[3]);
    /* A colour line is at least its quotes, cpp key chars, a space, "c"
     * and a space; a pixel row is cpp chars per pixel. */
    uint64_t colours = (uint64_t)v[2] * (uint64_t)(v[3] + 5);
    uint64_t pixels = (uint64_t)v[0] * (uint64_t)v[1] * (uint64_t)v[3];
    if (colours > n || pixels > n)
        return fail(info, TEMPO_EFORMAT, "XPM claims %ldx%ld with %ld colours; a file of %zu bytes cannot hold that",
                    v[0], v[1], v[2], n);
    if (v[3] == 1 && v[2] <= 256)
        return xpm_keys(b, n, end + 1, (uint32_t)v[0], (uint32_t)v[1], (uint32_t)v[2], info);
    return 0;
}

/* TGA header (IMG_tga.c): the types and depths SDL_image accepts. */
static int tga_size(const unsigned char *b, size_t n, tempo__asset_info *info)
{
    if (n < 18)
        return fail(info, TEMPO_EFORMAT, "TGA cut short in its header (%zu bytes)", n);
    unsigned type = b[2], bits = b[16], ncols = le16(b + 5);
    bool ok;
    switch (type) {
    case 1: case 9: ok = b[1] != 0 && bits == 8 && ncols <= 256; break; /* indexed */
    case 2: case 10: ok = bits == 15 || bits == 16 || bits == 24 || bits == 32; break; /* true colour */
    case 3: case 11: ok = bits == 8; break; /* grey */
    default: ok = false;
    }
    if (!ok)
        return fail(info, TEMPO_EFORMAT, "TGA type %u with %u bits per pixel is not one SDL_image reads", type, bits);
    info->w = le16(b + 12);
    info->h = le16(b + 14);
    return 0;
}

static int webp_size(const unsigned char *b, size_t n, tempo__asset_info *info)
{
    if (n < 16) /* "VP8" matched at 12: the fourth byte may be missing */
        return fail(info, TEMPO_EFORMAT, "WEBP cut short in its header (%zu bytes)", n);
    if (b[15] == ' ' && n >= 30 && b[23] == 0x9d && b[24] == 0x01 && b[25] == 0x2a) { /* VP8: lossy */
        info->w = le16(b + 26) & 0x3fff;
        info->h = le16(b + 28) & 0x3fff;
        return 0;
    }
    if (b[15] == 'L' && n >= 25 && b[20] == 0x2f) { /* VP8L: lossless */
        uint32_t bits = le32(b + 21);
        info->w = (bits & 0x3fff) + 1;
        info->h = ((bits >> 14) & 0x3fff) + 1;
        return 0;
    }
    if (b[15] == 'X' && n >= 30) { /* VP8X: extended, the canvas size */
        info->w = 1 + (b[24] | (uint32_t)b[25] << 8 | (uint32_t)b[26] << 16);
        info->h = 1 + (b[27] | (uint32_t)b[28] << 8 | (uint32_t)b[29] << 16);
        return 0;
    }
    return fail(info, TEMPO_EFORMAT, "WEBP without a VP8/VP8L/VP8X header SDL_image can read");
}

/* CRC-32 (ISO 3309, as PNG uses), four bytes a step ("slicing by 4"):
 * ~0.9 GB/s here where a byte a step did 0.23 (a 200 KB PNG: 0.2 ms on the
 * loader thread). The tables are built per file, on the stack (~1.4 us):
 * no shared state between loader threads. */
typedef struct png_crc_tables {
    uint32_t t[4][256];
} png_crc_tables;

static void png_crc_init(png_crc_tables *T)
{
    for (uint32_t i = 0; i < 256; i++) {
        uint32_t c = i;
        for (int k = 0; k < 8; k++)
            c = c & 1 ? 0xEDB88320u ^ (c >> 1) : c >> 1;
        T->t[0][i] = c;
    }
    for (uint32_t i = 0; i < 256; i++)
        for (int s = 1; s < 4; s++)
            T->t[s][i] = (T->t[s - 1][i] >> 8) ^ T->t[0][T->t[s - 1][i] & 0xFF];
}

static uint32_t png_crc(const png_crc_tables *T, const unsigned char *p, size_t n)
{
    uint32_t c = 0xFFFFFFFFu;
    size_t i = 0;
    for (; i + 4 <= n; i += 4) {
        c ^= (uint32_t)p[i] | (uint32_t)p[i + 1] << 8 | (uint32_t)p[i + 2] << 16 | (uint32_t)p[i + 3] << 24;
        c = T->t[3][c & 0xFF] ^ T->t[2][(c >> 8) & 0xFF] ^ T->t[1][(c >> 16) & 0xFF] ^ T->t[0][c >> 24];
    }
    for (; i < n; i++)
        c = T->t[0][(c ^ p[i]) & 0xFF] ^ (c >> 8);
    return ~c;
}

/* A PNG cut short: SDL_image 2.6's read callback (IMG_png.c png_read_data)
 * ignores short reads, so at the end of the file libpng goes on with an
 * uninitialised buffer until a CRC or zlib check happens to fail. A chunk
 * running past the end of the file, or no image data at all, is certain
 * truncation. (SDL_image does not require IEND, so a missing IEND alone is
 * not an error.) */
static int png_size(const unsigned char *b, size_t n, tempo__asset_info *info)
{
    if (n < 24 || memcmp(b, png_sig, 8) != 0 || memcmp(b + 12, "IHDR", 4) != 0)
        return fail(info, TEMPO_EFORMAT, "PNG without its IHDR header");
    info->w = be32(b + 16);
    info->h = be32(b + 20);
    uint64_t pos = 8;
    bool idat = false;
    png_crc_tables crc;
    png_crc_init(&crc);
    while (pos + 8 <= n) {
        uint64_t len = be32(b + pos);
        if (pos + 12 + len > n)
            return fail(info, TEMPO_EFORMAT, "truncated PNG: the %.4s chunk at byte %llu needs %llu bytes, the file "
                        "ends after %llu", (const char *)b + pos + 4, (unsigned long long)pos,
                        (unsigned long long)(12 + len), (unsigned long long)(n - pos));
        /* A critical chunk (the first letter upper case) whose CRC fails is
         * a damaged file. libpng would refuse it too, but SDL_image leaves
         * libpng's own error handler in place, which prints "libpng error:
         * IDAT: CRC error" to stderr for every such load, outside
         * tempo_log_set_level. (Ancillary chunks are libpng's to skip.) */
        if (!(b[pos + 4] & 0x20) && png_crc(&crc, b + pos + 4, 4 + len) != be32(b + pos + 8 + len))
            return fail(info, TEMPO_EFORMAT, "damaged PNG: the %.4s chunk at byte %llu fails its CRC",
                        (const char *)b + pos + 4, (unsigned long long)pos);
        if (memcmp(b + pos + 4, "IDAT", 4) == 0)
            idat = true;
        if (memcmp(b + pos + 4, "IEND", 4) == 0)
            return 0;
        pos += 12 + len;
    }
    if (!idat)
        return fail(info, TEMPO_EFORMAT, "truncated PNG: no image data (IDAT) in %zu bytes", n);
    return 0;
}

int tempo__asset_check_image(const unsigned char *b, size_t n, bool tga_named, const tempo__asset_limits *lim,
                             tempo__asset_info *info)
{
    memset(info, 0, sizeof *info);
    if (n == 0)
        return fail(info, TEMPO_EFORMAT, "empty file");
    tempo__asset_format f = detect_image(b, n);
    /* TGA has no magic: SDL_image takes a file for TGA only by its name.
     * The TGA 2.0 footer marks one too. */
    if (f == TEMPO__ASSET_UNKNOWN && (tga_named || (n >= 44 && memcmp(b + n - 18, "TRUEVISION-XFILE.", 18) == 0)))
        f = TEMPO__ASSET_TGA;
    info->format = f;
    int rc;
    switch (f) {
    case TEMPO__ASSET_PNG: rc = png_size(b, n, info); break;
    case TEMPO__ASSET_JPEG: rc = jpeg_size(b, n, info); break;
    case TEMPO__ASSET_GIF: rc = gif_size(b, n, info); break;
    case TEMPO__ASSET_QOI:
        if (n < 14)
            return fail(info, TEMPO_EFORMAT, "QOI cut short in its header (%zu bytes)", n);
        info->w = be32(b + 4);
        info->h = be32(b + 8);
        rc = 0;
        break;
    case TEMPO__ASSET_BMP:
        if (n < 26)
            return fail(info, TEMPO_EFORMAT, "BMP cut short in its header (%zu bytes)", n);
        if (le32(b + 14) == 12) { /* OS/2 BITMAPCOREHEADER: 16-bit sizes */
            info->w = le16(b + 18);
            info->h = le16(b + 20);
        } else { /* negative height: top-down */
            int32_t sw = (int32_t)le32(b + 18), sh = (int32_t)le32(b + 22);
            info->w = sw < 0 ? 0u - (uint32_t)sw : (uint32_t)sw;
            info->h = sh < 0 ? 0u - (uint32_t)sh : (uint32_t)sh;
        }
        rc = 0;
        break;
    case TEMPO__ASSET_TGA: rc = tga_size(b, n, info); break;
    case TEMPO__ASSET_PNM: rc = pnm_size(b, n, info); break;
    case TEMPO__ASSET_XPM: rc = xpm_size(b, n, info); break;
    case TEMPO__ASSET_WEBP: rc = webp_size(b, n, info); break;
    case TEMPO__ASSET_UNKNOWN:
        return fail(info, TEMPO_EFORMAT, "not an image format Tempo recognises (by its first bytes)");
    default:
        return fail(info, TEMPO_ENOTSUP, "%s: its size cannot be checked before decoding (see "
                    "tempo_loader_desc.allow_unchecked_formats)", tempo__asset_format_name(f));
    }
    if (rc < 0) {
        if (rc == TEMPO_EFORMAT && info->w && info->h &&
            (info->w > lim->max_w || info->h > lim->max_h ||
             (uint64_t)info->w * info->h > lim->max_pixels))
            goto too_large; /* a lie about the size is reported as what it claims */
        return rc;
    }
    if (info->w == 0 || info->h == 0)
        return fail(info, TEMPO_EFORMAT, "%s claims %ux%u", tempo__asset_format_name(f), (unsigned)info->w,
                    (unsigned)info->h);
    if (info->w > lim->max_w || info->h > lim->max_h || (uint64_t)info->w * info->h > lim->max_pixels)
        goto too_large;
    return 0;
too_large:
    return fail(info, TEMPO_ERANGE, "%s claims %ux%u, larger than the image limit %ux%u, %llu pixels",
                tempo__asset_format_name(f), (unsigned)info->w, (unsigned)info->h, (unsigned)lim->max_w,
                (unsigned)lim->max_h, (unsigned long long)lim->max_pixels);
}

/* ---- Audio -------------------------------------------------------------- */

/* SDL_mixer's SANE_to_Uint32 (codecs/music_wav.c and load_aiff.c): the
 * AIFF sample rate as SDL_mixer computes it from the 80-bit float, so the
 * check sees the rate SDL_mixer will use (it returns 1 for anything below
 * 1, and fixed large values for the too-large ones). */
static uint32_t sane_rate(const unsigned char *s)
{
    if (s[0] & 0x80)
        return 0;
    if (s[0] <= 0x3F)
        return 1;
    if (s[0] > 0x40)
        return 0x4000000;
    if (s[0] == 0x40 && s[1] > 0x1C)
        return 800000000;
    int shift = 29 - s[1];
    uint32_t m = (uint32_t)s[2] << 23 | (uint32_t)s[3] << 15 | (uint32_t)s[4] << 7 | (uint32_t)s[5] >> 1;
    if (shift < 0 || shift > 31)
        return 0; /* C leaves it undefined; refuse rather than guess */
    return m >> shift;
}

static int check_format_values(tempo__asset_info *info, const char *what, uint32_t channels, uint32_t rate)
{
    info->channels = channels;
    info->rate_hz = rate;
    if (channels < 1 || channels > TEMPO__ASSET_MAX_CHANNELS || rate < TEMPO__ASSET_MIN_RATE_HZ ||
        rate > TEMPO__ASSET_MAX_RATE_HZ)
        return fail(info, TEMPO_EFORMAT, "%s header claims %u channels at %u Hz (1-%u channels, %u-%u Hz)", what,
                    (unsigned)channels, (unsigned)rate, TEMPO__ASSET_MAX_CHANNELS, TEMPO__ASSET_MIN_RATE_HZ,
                    TEMPO__ASSET_MAX_RATE_HZ);
    return 0;
}

/* Audio signatures shared by sound and music. */
static tempo__asset_format detect_audio(const unsigned char *b, size_t n)
{
    if (has(b, n, 0, "RIFF") && has(b, n, 8, "WAVE"))
        return TEMPO__ASSET_WAV;
    if (has(b, n, 0, "FORM"))
        return TEMPO__ASSET_AIFF;
    if (has(b, n, 0, "Crea"))
        return TEMPO__ASSET_VOC;
    if (has(b, n, 0, "OggS"))
        return n >= 36 && memcmp(b + 28, "OpusHead", 8) == 0 ? TEMPO__ASSET_OPUS : TEMPO__ASSET_OGG;
    if (has(b, n, 0, "fLaC"))
        return TEMPO__ASSET_FLAC;
    if (has(b, n, 0, "MThd"))
        return TEMPO__ASSET_MIDI;
    if (has(b, n, 0, "ID3") || (n >= 2 && b[0] == 0xFF && (b[1] & 0xE6) == 0xE2))
        return TEMPO__ASSET_MP3;
    return TEMPO__ASSET_UNKNOWN;
}

/* Big-endian fields read the way SDL_ReadBE16/32 do near the end of the
 * data: bytes past it read as zero. */
static uint32_t be_at(const unsigned char *b, size_t n, uint64_t off, int bytes)
{
    uint32_t v = 0;
    for (int i = 0; i < bytes; i++)
        v = v << 8 | (off + (uint64_t)i < n ? b[off + i] : 0);
    return v;
}

/* An AIFF sound, walked as SDL_mixer's Mix_LoadAIFF_RW (load_aiff.c) does:
 * chunks padded to even sizes, the walk ending at a chunk of length 0 or as
 * soon as both a COMM and an SSND were seen; COMM fields are read whatever
 * the chunk's length. It then mallocs frames * channels * bytes and reads
 * them from the SSND data: when they are not all there it returns without
 * freeing that buffer or its RWops (a leak per load; found by
 * fuzz_asset_load), so the data must hold every claimed frame. */
static int sound_aiff(const unsigned char *b, size_t n, tempo__asset_info *info)
{
    if (n < 12 || memcmp(b + 8, "AIFF", 4) != 0)
        return fail(info, TEMPO_EFORMAT, "FORM file of type \"%.4s\": SDL_mixer's sound loader reads AIFF only here",
                    n >= 12 ? (const char *)b + 8 : "?");
    bool comm = false, ssnd = false;
    uint32_t channels = 0, bits = 0, rate = 0;
    uint64_t frames = 0, start = 0, pos = 12;
    while (!(comm && ssnd)) {
        if (pos + 8 > n)
            break; /* a partial header: refused below, whatever SDL_mixer would make of it */
        uint32_t len = be_at(b, n, pos + 4, 4);
        uint64_t body = pos + 8;
        if (len == 0)
            break;
        if (memcmp(b + pos, "SSND", 4) == 0) {
            ssnd = true;
            start = body + 8 + be_at(b, n, body, 4); /* after the offset and block size fields */
        } else if (memcmp(b + pos, "COMM", 4) == 0) {
            comm = true;
            channels = be_at(b, n, body, 2);
            frames = be_at(b, n, body + 2, 4);
            bits = be_at(b, n, body + 6, 2);
            unsigned char sane[10];
            for (int i = 0; i < 10; i++)
                sane[i] = (unsigned char)be_at(b, n, body + 8 + (uint64_t)i, 1);
            rate = sane_rate(sane);
        }
        pos = body + len + (len & 1);
    }
    if (!comm || !ssnd)
        return fail(info, TEMPO_EFORMAT, "AIFF without %s chunk", comm ? "an SSND" : "a COMM");
    int rc = check_format_values(info, "AIFF", channels, rate);
    if (rc < 0)
        return rc;
    uint64_t need = frames * channels * (bits / 8);
    if (start > n || need > n - start)
        return fail(info, TEMPO_EFORMAT, "AIFF header claims %llu frames (%llu bytes); the sound data %s",
                    (unsigned long long)frames, (unsigned long long)need,
                    start > n ? "starts past the end of the file" : "ends before them");
    return 0;
}

/* Sounds go to SDL's own WAV loader (SDL_LoadWAV_RW) and SDL_mixer's AIFF
 * loader (load_aiff.c), which both honour pad bytes. */
static int check_flac(const tempo__asset_reader *rd, tempo__asset_info *info);
static int check_midi(const tempo__asset_reader *rd, uint32_t max_s, const char *as, tempo__asset_info *info);

int tempo__asset_check_sound(unsigned char *b, size_t n, tempo__asset_info *info)
{
    memset(info, 0, sizeof *info);
    if (n == 0)
        return fail(info, TEMPO_EFORMAT, "empty file");
    tempo__asset_format f = detect_audio(b, n);
    info->format = f;
    if (f == TEMPO__ASSET_UNKNOWN) {
        if (has(b, n, 0, "WAVE") || has(b, n, 0, "RIFF"))
            return fail(info, TEMPO_EFORMAT, "not a RIFF/WAVE file (it starts \"%.4s\")", (const char *)b);
        return fail(info, TEMPO_ENOTSUP, "no audio signature Tempo recognises (SDL_mixer would try it as a MOD "
                    "module; see tempo_loader_desc.allow_unchecked_formats)");
    }
    if (f == TEMPO__ASSET_AIFF)
        return sound_aiff(b, n, info);
    if (f == TEMPO__ASSET_FLAC || f == TEMPO__ASSET_MIDI) {
        tempo__asset_mem m = {b, n};
        tempo__asset_reader rd = tempo__asset_mem_reader(&m);
        return f == TEMPO__ASSET_FLAC ? check_flac(&rd, info)
                                      : check_midi(&rd, TEMPO__ASSET_MAX_MIDI_SOUND_S, "a sound", info);
    }
    if (f != TEMPO__ASSET_WAV)
        return 0;
    const bool wav = true;
    bool fmt_seen = false;
    uint64_t pos = 12;
    while (pos + 8 <= n) {
        unsigned char *c = b + pos;
        uint64_t len = wav ? le32(c + 4) : be32(c + 4);
        uint64_t body = pos + 8;
        if (wav && memcmp(c, "fmt ", 4) == 0 && len >= 16 && body + 16 <= n) {
            int rc = check_format_values(info, "WAVE", le16(b + body + 2), le32(b + body + 4));
            if (rc < 0)
                return rc;
            fmt_seen = true;
        } else if (wav && memcmp(c, "data", 4) == 0 && len > n - body) {
            /* SDL_LoadWAV_RW mallocs the claimed length before reading;
             * by default (SDL_HINT_WAVE_TRUNCATION unset) it then decodes
             * what is there. Clamp: the same outcome without the giant
             * allocation. */
            uint32_t have = (uint32_t)(n - body);
            c[4] = (unsigned char)have;
            c[5] = (unsigned char)(have >> 8);
            c[6] = (unsigned char)(have >> 16);
            c[7] = (unsigned char)(have >> 24);
            len = have;
        }
        pos = body + len + (len & 1); /* chunks are padded to even sizes */
    }
    if (!fmt_seen) /* SDL would refuse it too; one clear message for both */
        return fail(info, TEMPO_EFORMAT, "WAVE without a complete \"fmt \" chunk");
    (void)wav;
    return 0;
}

tempo__asset_reader tempo__asset_mem_reader(tempo__asset_mem *m)
{
    return (tempo__asset_reader){.size = m->n, .read = NULL, .ctx = m};
}

/* Reads `len` bytes at `off`, zero-filling what lies past the end (as
 * SDL_ReadLE32 leaves a value on a short read: SDL_RWread copies the bytes
 * that exist into a zeroed variable). Returns the bytes that existed. */
static size_t rd_at(const tempo__asset_reader *rd, uint64_t off, void *buf, size_t len)
{
    memset(buf, 0, len);
    if (off >= rd->size)
        return 0;
    if (rd->read == NULL) { /* the memory reader */
        const tempo__asset_mem *m = rd->ctx;
        size_t k = off + len > m->n ? (size_t)(m->n - off) : len;
        memcpy(buf, m->b + off, k);
        return k;
    }
    return rd->read(rd->ctx, off, buf, len);
}

/* FLAC, as libFLAC (and dr_flac) read it before any audio: "fLaC", then
 * metadata blocks of a 4-byte header (bit 7: the last block; bits 0-6: the
 * type; a 24-bit big-endian length) and a body. STREAMINFO (type 0, 34
 * bytes) comes first and only there; type 127 is invalid; a SEEKTABLE is
 * whole 18-byte points; a VORBIS_COMMENT's strings (SDL_mixer asks libFLAC
 * for them) lie inside their block; every block lies inside the file. When
 * libFLAC's metadata step fails, SDL_mixer 2.6.2's FLAC reader returns
 * without deleting its decoder: 55 KB leaked per load, as sound or music
 * (fuzz_asset_load, tests/fuzz/asset_load/flac-aiff-metadata). */
static int check_flac(const tempo__asset_reader *rd, tempo__asset_info *info)
{
    uint64_t pos = 4;
    for (bool first = true, last = false; !last; first = false) {
        unsigned char h[4];
        if (rd_at(rd, pos, h, 4) < 4)
            return fail(info, TEMPO_EFORMAT, "FLAC metadata ends at byte %llu before its last block",
                        (unsigned long long)pos);
        last = (h[0] & 0x80) != 0;
        unsigned type = h[0] & 0x7Fu;
        uint32_t len = (uint32_t)h[1] << 16 | (uint32_t)h[2] << 8 | h[3];
        uint64_t body = pos + 4;
        if (body + len > rd->size)
            return fail(info, TEMPO_EFORMAT, "FLAC metadata block at byte %llu claims %u bytes past the end",
                        (unsigned long long)pos, (unsigned)len);
        if (first != (type == 0) || (type == 0 && len != 34))
            return fail(info, TEMPO_EFORMAT, "FLAC stream %s (block type %u, %u bytes at byte %llu)",
                        first ? "does not start with a 34-byte STREAMINFO" : "has a second STREAMINFO", type,
                        (unsigned)len, (unsigned long long)pos);
        if (type == 0) {
            unsigned char si[34];
            rd_at(rd, body, si, sizeof si);
            uint32_t min_block = be16(si), max_block = be16(si + 2);
            if (min_block < 16 || max_block < min_block)
                return fail(info, TEMPO_EFORMAT, "FLAC STREAMINFO block sizes %u-%u (16 at least, min <= max)",
                            (unsigned)min_block, (unsigned)max_block);
            uint32_t rate = (uint32_t)si[10] << 12 | (uint32_t)si[11] << 4 | si[12] >> 4;
            int rc = check_format_values(info, "FLAC", ((si[12] >> 1) & 7u) + 1, rate);
            if (rc < 0)
                return rc;
        } else if (type == 127) {
            return fail(info, TEMPO_EFORMAT, "FLAC metadata block of the invalid type 127 at byte %llu",
                        (unsigned long long)pos);
        } else if (type == 3 && len % 18 != 0) {
            return fail(info, TEMPO_EFORMAT, "FLAC SEEKTABLE of %u bytes (whole 18-byte points)", (unsigned)len);
        } else if (type == 4) {
            /* vendor string, count, then count strings: each a 32-bit LE length and its bytes */
            uint64_t p = body, end = body + len;
            unsigned char w[4];
            for (int64_t k = -1, count = 0; k < count; k++) {
                if (p + 4 > end || rd_at(rd, p, w, 4) < 4 || le32(w) > end - p - 4)
                    return fail(info, TEMPO_EFORMAT, "FLAC VORBIS_COMMENT string runs past its block");
                p += 4 + le32(w);
                if (k == -1) {
                    if (p + 4 > end || rd_at(rd, p, w, 4) < 4)
                        return fail(info, TEMPO_EFORMAT, "FLAC VORBIS_COMMENT without its comment count");
                    count = le32(w);
                    p += 4;
                }
            }
        }
        pos = body + len;
    }
    return 0;
}

/* An INFO list, read as SDL_mixer's ParseLIST / read_meta_field do: each
 * known field's length is read 4 bytes after its tag, and its text is
 * copied with SDL_strlcpy, which runs strlen() on it: a field without a NUL
 * inside the chunk makes SDL_mixer read past its buffer. */
static int check_list_info(const unsigned char *d, uint32_t len, tempo__asset_info *info)
{
    if (len < 4)
        return fail(info, TEMPO_EFORMAT, "WAVE LIST chunk of %u bytes (SDL_mixer reads 4)", (unsigned)len);
    if (memcmp(d, "INFO", 4) != 0)
        return 0;
    for (uint64_t i = 4; i < (uint64_t)len - 4;) {
        const unsigned char *t = d + i;
        if (memcmp(t, "INAM", 4) == 0 || memcmp(t, "IART", 4) == 0 || memcmp(t, "IALB", 4) == 0 ||
            memcmp(t, "BCPR", 4) == 0) {
            i += 4;
            if (i + 4 > len)
                return fail(info, TEMPO_EFORMAT, "WAVE INFO field length past its LIST chunk");
            uint32_t flen = le32(d + i);
            if (flen > len)
                continue; /* SDL_mixer skips it ("broken length") */
            i += 4;
            if (i >= len || memchr(d + i, 0, (size_t)(len - i)) == NULL)
                return fail(info, TEMPO_EFORMAT, "WAVE INFO text without a terminating NUL inside its LIST chunk");
            i += flen;
            continue;
        }
        i++;
    }
    return 0;
}

/* Chunks SDL_mixer's music reader copies into a buffer of their claimed
 * length: refused when that length runs past the file. */
static int chunk_in_file(const tempo__asset_reader *rd, uint64_t body, uint64_t len, const char *tag,
                         tempo__asset_info *info)
{
    if (body + len > rd->size)
        return fail(info, TEMPO_EFORMAT, "\"%.4s\" chunk at byte %llu claims %llu bytes; the file ends after %llu",
                    tag, (unsigned long long)(body - 8), (unsigned long long)len,
                    (unsigned long long)(rd->size > body ? rd->size - body : 0));
    return 0;
}

/* ---- MIDI ---------------------------------------------------------------- */

/* A forward reader over a byte range of the file, a block at a time (the
 * music check reads the file through seeks: one per byte would crawl). */
typedef struct midi_cursor {
    const tempo__asset_reader *rd;
    uint64_t pos, end; /* the next byte; where the range ends */
    uint64_t buf_at;   /* the file offset of buf[0] */
    size_t buf_len;
    unsigned char buf[1024];
} midi_cursor;

/* The next byte, or -1 at the end of the range. */
static int midi_byte(midi_cursor *c)
{
    if (c->pos >= c->end)
        return -1;
    if (c->pos < c->buf_at || c->pos >= c->buf_at + c->buf_len) {
        c->buf_at = c->pos;
        c->buf_len = rd_at(c->rd, c->pos, c->buf, sizeof c->buf);
        if (c->buf_len == 0)
            return -1;
    }
    return c->buf[c->pos++ - c->buf_at];
}

/* A variable-length quantity: 7 bits a byte, high bit set on all but the
 * last, at most 4 bytes (0x0FFFFFFF). -1: cut short or longer than 4. */
static int64_t midi_vlq(midi_cursor *c)
{
    uint32_t v = 0;
    for (int i = 0; i < 4; i++) {
        int b = midi_byte(c);
        if (b < 0)
            return -1;
        v = v << 7 | (uint32_t)(b & 0x7F);
        if (!(b & 0x80))
            return v;
    }
    return -1;
}

/* The tempo a walk of the tracks found. */
typedef struct midi_tempo {
    uint32_t slowest;     /* the largest tempo set (us per quarter note) */
    uint64_t first_tick;  /* the tick of the earliest tempo change (UINT64_MAX: none) */
} midi_tempo;

/* Walks one MTrk chunk's events (Standard MIDI File 1.0): a delta time,
 * then a channel message (running status allowed), a system exclusive
 * message (F0/F7, a length, data) or a meta event (FF, a type, a length,
 * data), until the end-of-track meta event or the chunk's end. Sets *ticks
 * to the track's length in ticks; a negative TEMPO_E* code if an event is
 * malformed or cut short. */
static int midi_track(midi_cursor *c, uint32_t track, uint64_t *ticks, midi_tempo *tempo, tempo__asset_info *info)
{
    uint64_t t = 0;
    int status = 0; /* the running status: the last channel message's */
    while (c->pos < c->end) {
        uint64_t at = c->pos;
        int64_t delta = midi_vlq(c);
        if (delta < 0)
            return fail(info, TEMPO_EFORMAT, "MIDI track %u: the delta time at byte %llu is cut short or over 4 bytes",
                        (unsigned)track, (unsigned long long)at);
        t += (uint64_t)delta;
        int b = midi_byte(c);
        if (b < 0)
            return fail(info, TEMPO_EFORMAT, "MIDI track %u ends after a delta time, without its event (byte %llu)",
                        (unsigned)track, (unsigned long long)at);
        int64_t skip; /* the event's bytes still to pass */
        if (b == 0xFF) {
            int type = midi_byte(c);
            skip = midi_vlq(c);
            if (type < 0 || skip < 0)
                return fail(info, TEMPO_EFORMAT, "MIDI track %u: meta event at byte %llu cut short", (unsigned)track,
                            (unsigned long long)at);
            if (type == 0x2F)
                break; /* end of track: what follows in the chunk is not played */
            if (type == 0x51 && skip == 3 && c->end - c->pos >= 3) { /* set tempo: 24 bits */
                uint32_t us = (uint32_t)midi_byte(c) << 16;
                us |= (uint32_t)midi_byte(c) << 8;
                us |= (uint32_t)midi_byte(c);
                if (us > tempo->slowest)
                    tempo->slowest = us;
                if (t < tempo->first_tick)
                    tempo->first_tick = t;
                skip = 0;
            }
        } else if (b == 0xF0 || b == 0xF7) {
            skip = midi_vlq(c);
            if (skip < 0)
                return fail(info, TEMPO_EFORMAT, "MIDI track %u: system exclusive length at byte %llu cut short",
                            (unsigned)track, (unsigned long long)at);
        } else if (b >= 0xF0) {
            return fail(info, TEMPO_EFORMAT, "MIDI track %u: status byte 0x%02X at byte %llu is not a file event",
                        (unsigned)track, (unsigned)b, (unsigned long long)at);
        } else {
            if (b >= 0x80) {
                status = b;
                b = midi_byte(c);
            } else if (status == 0) {
                return fail(info, TEMPO_EFORMAT, "MIDI track %u: data byte 0x%02X at byte %llu without a status",
                            (unsigned)track, (unsigned)b, (unsigned long long)at);
            }
            if (b < 0 || b >= 0x80)
                return fail(info, TEMPO_EFORMAT, "MIDI track %u: channel message at byte %llu cut short or malformed",
                            (unsigned)track, (unsigned long long)at);
            /* b was the first data byte; program change and channel pressure have no second */
            skip = (status & 0xF0) == 0xC0 || (status & 0xF0) == 0xD0 ? 0 : 1;
        }
        if ((uint64_t)skip > c->end - c->pos)
            return fail(info, TEMPO_EFORMAT, "MIDI track %u: the event at byte %llu runs past the track's end",
                        (unsigned)track, (unsigned long long)at);
        c->pos += (uint64_t)skip;
    }
    *ticks = t;
    return 0;
}

/* `ticks` at `den` ticks per `mul_us` microseconds, in ms rounded up;
 * UINT64_MAX where that does not fit. */
static uint64_t midi_ms(uint64_t ticks, uint64_t den, uint64_t mul_us)
{
    uint64_t whole = ticks / den, part = ticks % den;
    if (mul_us != 0 && whole > UINT64_MAX / 2 / mul_us)
        return UINT64_MAX;
    uint64_t us = whole * mul_us + (part * mul_us + den - 1) / den; /* part * mul_us < 2^15 * 2^24 */
    return (us + 999u) / 1000u;
}

/* A Standard MIDI File, for SDL_mixer's MIDI reader. An "MThd" header (its
 * length at least 6: format 0, 1 or 2, the track count, the division), then
 * chunks: each "MTrk" is walked event by event (midi_track); others are
 * skipped, as the format asks. A track chunk longer than the file is walked
 * to the file's end, where a cut event is refused. Unlike the checks above
 * this walk follows the format's specification rather than SDL_mixer's
 * reader, and refuses what it cannot parse, so what it passes has the
 * length it computed: SDL_mixer's reader (measured) ends a track at its
 * chunk's end or its end-of-track event, as here, and counts a last delta
 * time left without an event (which is refused here).
 *
 * The song's length is bounded from above, cheaply: the longest track (the
 * sum of the tracks for format 2, whose tracks are separate sequences) at
 * the slowest tempo the file sets (or the default, 120 bpm, if none is set
 * at tick 0). A song that may last more than `max_s` seconds is refused with
 * TEMPO_ERANGE: a delta time is up to 0x0FFFFFFF ticks, so a 40-byte file
 * can claim hundreds of hours, and as a sound SDL_mixer renders all of it
 * into memory (fuzz_asset_load's 38-byte file, a 388-hour song: its loader
 * thread allocated ~60 MB/s, 5 GB in 80 s, with over an hour to go). */
static int check_midi(const tempo__asset_reader *rd, uint32_t max_s, const char *as, tempo__asset_info *info)
{
    unsigned char h[14];
    if (rd_at(rd, 0, h, 14) < 14)
        return fail(info, TEMPO_EFORMAT, "MIDI header cut short");
    uint32_t hlen = be32(h + 4), format = be16(h + 8), ntracks = be16(h + 10), division = be16(h + 12);
    if (hlen < 6 || format > 2 || ntracks == 0)
        return fail(info, TEMPO_EFORMAT, "MIDI header of %u bytes, format %u, %u tracks (6+ bytes, format 0-2, 1+ tracks)",
                    (unsigned)hlen, (unsigned)format, (unsigned)ntracks);
    /* The time base: ticks per quarter note (whose length is the tempo),
     * or SMPTE: -frames per second in the high byte, ticks per frame. */
    uint32_t fps = (division & 0x8000) ? 256u - (division >> 8) : 0, per_frame = division & 0xFF;
    if ((division & 0x8000) ? per_frame == 0 : division == 0)
        return fail(info, TEMPO_EFORMAT, "MIDI division 0x%04X: no time base", (unsigned)division);
    midi_tempo tempo = {.slowest = 0, .first_tick = UINT64_MAX};
    midi_cursor c = {.rd = rd};
    uint64_t pos = 8 + (uint64_t)hlen, longest = 0, sum = 0;
    uint32_t found = 0, longest_track = 0;
    while (found < ntracks && pos + 8 <= rd->size) {
        unsigned char ch[8];
        rd_at(rd, pos, ch, 8);
        uint64_t body = pos + 8, len = be32(ch + 4);
        pos = body + len;
        if (memcmp(ch, "MTrk", 4) != 0)
            continue;
        found++;
        c.pos = body;
        c.end = body + len < rd->size ? body + len : rd->size;
        uint64_t track_ticks = 0;
        int rc = midi_track(&c, found, &track_ticks, &tempo, info);
        if (rc < 0)
            return rc;
        sum += track_ticks; /* < 2^60: one 4-byte delta per byte of a file under 4 GiB */
        if (track_ticks > longest) {
            longest = track_ticks;
            longest_track = found;
        }
    }
    if (found == 0)
        return fail(info, TEMPO_EFORMAT, "MIDI file without a track (\"MTrk\" chunk)");
    uint64_t ticks = format == 2 ? sum : longest;
    uint32_t tempo_us = tempo.slowest;
    if (tempo.first_tick > 0 && tempo_us < 500000u)
        tempo_us = 500000u; /* the default tempo holds until the first change */
    uint64_t ms = fps != 0 ? midi_ms(ticks, (uint64_t)fps * per_frame, 1000000u)
                           : midi_ms(ticks, division, tempo_us);
    info->length_ms = ms;
    if (ms > (uint64_t)max_s * 1000u) {
        char where[48];
        if (format == 2)
            snprintf(where, sizeof where, "%u tracks in turn", (unsigned)found);
        else
            snprintf(where, sizeof where, "track %u", (unsigned)longest_track);
        char base[64];
        if (fps != 0)
            snprintf(base, sizeof base, "%u frames/s of %u", (unsigned)fps, (unsigned)per_frame);
        else
            snprintf(base, sizeof base, "%u a quarter note of %u us at the slowest", (unsigned)division,
                     (unsigned)tempo_us);
        bool hours = ms >= UINT64_C(2) * 3600000u;
        return fail(info, TEMPO_ERANGE, "MIDI song may last %.1f %s (%s: %llu ticks, %s); at most %u minutes as %s",
                    (double)ms / (hours ? 3.6e6 : 6e4), hours ? "hours" : "minutes", where,
                    (unsigned long long)ticks, base, (unsigned)(max_s / 60), as);
    }
    return 0;
}

/* The WAV walk of SDL_mixer's LoadWAVMusic: chunks start right after the
 * previous one, with no pad byte (unlike RIFF and SDL's own reader); the
 * walk ends at a chunk of length 0 or at the end of the file; every "fmt "
 * is parsed (the last one wins); smpl, LIST and "id3 " are read whole into
 * buffers of their claimed length. */
static int music_wav(const tempo__asset_reader *rd, tempo__asset_info *info)
{
    bool fmt = false;
    uint64_t pos = 12;
    for (;;) {
        unsigned char h[8];
        if (rd_at(rd, pos, h, 8) < 8)
            break; /* a partial header: every later read fails, the walk ends */
        uint32_t len = le32(h + 4);
        uint64_t body = pos + 8;
        if (len == 0)
            break;
        if (memcmp(h, "fmt ", 4) == 0) {
            unsigned char f[16];
            if (len < 16 || rd_at(rd, body, f, 16) < 16)
                return fail(info, TEMPO_EFORMAT, "WAVE \"fmt \" chunk cut short");
            int rc = check_format_values(info, "WAVE", le16(f + 2), le32(f + 4));
            if (rc < 0)
                return rc;
            fmt = true;
        } else if (memcmp(h, "smpl", 4) == 0) {
            /* ParseSMPL reads sample_loops from a 36-byte header, then that
             * many 24-byte loops from the buffer, unchecked. */
            int rc = chunk_in_file(rd, body, len, "smpl", info);
            if (rc < 0)
                return rc;
            unsigned char s[36];
            if (len < 36)
                return fail(info, TEMPO_EFORMAT, "WAVE smpl chunk of %u bytes (its header is 36)", (unsigned)len);
            rd_at(rd, body, s, 36);
            uint64_t loops = le32(s + 28);
            if (36 + loops * 24 > len)
                return fail(info, TEMPO_EFORMAT, "WAVE smpl chunk claims %llu loops in %u bytes",
                            (unsigned long long)loops, (unsigned)len);
        } else if (memcmp(h, "LIST", 4) == 0) {
            int rc = chunk_in_file(rd, body, len, "LIST", info);
            if (rc < 0)
                return rc;
            /* Bounded by the file; read it in pieces small enough for the stack. */
            unsigned char d[4096];
            if (len <= sizeof d) {
                rd_at(rd, body, d, len);
                if ((rc = check_list_info(d, len, info)) < 0)
                    return rc;
            } else {
                rd_at(rd, body, d, 4);
                if (memcmp(d, "INFO", 4) == 0)
                    return fail(info, TEMPO_EFORMAT, "WAVE LIST INFO chunk of %u bytes (at most %zu)", (unsigned)len,
                                sizeof d);
            }
        } else if (memcmp(h, "id3 ", 4) == 0 || memcmp(h, "ID3 ", 4) == 0) {
            int rc = chunk_in_file(rd, body, len, (const char *)h, info);
            if (rc < 0)
                return rc;
        }
        pos = body + len; /* SDL_mixer skips no pad byte */
    }
    if (!fmt)
        return fail(info, TEMPO_EFORMAT, "WAVE without a \"fmt \" chunk (as SDL_mixer's music reader walks it)");
    return 0;
}

/* The AIFF walk of SDL_mixer's LoadAIFFMusic: chunks padded to even sizes,
 * until the next chunk would start at or after the end of the file; the
 * last COMM wins; NAME, AUTH, "(c) " and "ID3 " are read whole into a buffer
 * of their claimed length (plus one: a length of 2^32-1 wraps to 0). */
static int music_aiff(const tempo__asset_reader *rd, tempo__asset_info *info)
{
    unsigned char kind[4];
    rd_at(rd, 8, kind, 4);
    bool aifc = memcmp(kind, "AIFC", 4) == 0;
    if (!aifc && memcmp(kind, "AIFF", 4) != 0)
        return fail(info, TEMPO_EFORMAT, "FORM file of type \"%.4s\", not AIFF", (const char *)kind);
    bool comm = false;
    uint64_t pos = 12, next;
    do {
        unsigned char h[8];
        rd_at(rd, pos, h, 8);
        uint32_t len = be32(h + 4);
        uint64_t body = pos + 8;
        next = body + len + (len & 1);
        if (memcmp(h, "COMM", 4) == 0) {
            unsigned char c[18];
            if (len < 18 || rd_at(rd, body, c, 18) < 18)
                return fail(info, TEMPO_EFORMAT, "AIFF COMM chunk cut short");
            int rc = check_format_values(info, "AIFF", be16(c), sane_rate(c + 8));
            if (rc < 0)
                return rc;
            comm = true;
        } else if (memcmp(h, "NAME", 4) == 0 || memcmp(h, "AUTH", 4) == 0 || memcmp(h, "(c) ", 4) == 0 ||
                   memcmp(h, "ID3 ", 4) == 0) {
            int rc = chunk_in_file(rd, body, len, (const char *)h, info);
            if (rc < 0)
                return rc;
        }
        pos = next;
    } while (next < rd->size);
    if (!comm)
        return fail(info, TEMPO_EFORMAT, "AIFF without a COMM chunk");
    return 0;
}

int tempo__asset_check_music(const tempo__asset_reader *rd, tempo__asset_info *info)
{
    memset(info, 0, sizeof *info);
    if (rd->size == 0)
        return fail(info, TEMPO_EFORMAT, "empty file");
    unsigned char head[36];
    size_t n = rd_at(rd, 0, head, sizeof head);
    tempo__asset_format f = detect_audio(head, n);
    info->format = f;
    switch (f) {
    case TEMPO__ASSET_WAV: return music_wav(rd, info);
    case TEMPO__ASSET_AIFF: return music_aiff(rd, info);
    case TEMPO__ASSET_FLAC: return check_flac(rd, info);
    case TEMPO__ASSET_MIDI: return check_midi(rd, TEMPO__ASSET_MAX_MIDI_MUSIC_S, "music", info);
    case TEMPO__ASSET_OGG:
    case TEMPO__ASSET_OPUS:
    case TEMPO__ASSET_MP3:
        return 0;
    case TEMPO__ASSET_VOC:
        return fail(info, TEMPO_EFORMAT, "VOC is not a music format SDL_mixer reads (load it as a sound)");
    default:
        /* SDL_mixer's music reader takes "WAVE" for "RIFF" (music_wav.c),
         * and then walks different chunks than any RIFF reader. */
        if (has(head, n, 0, "WAVE") || has(head, n, 0, "RIFF"))
            return fail(info, TEMPO_EFORMAT, "not a RIFF/WAVE file (it starts \"%.4s\")", (const char *)head);
        return fail(info, TEMPO_ENOTSUP, "no audio signature Tempo recognises (SDL_mixer would try it as a MOD "
                    "module; see tempo_loader_desc.allow_unchecked_formats)");
    }
}
