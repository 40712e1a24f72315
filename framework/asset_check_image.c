/* Image checks (asset_check.h: tempo__asset_check_image): which format
 * SDL_image would take the bytes for, and the size its header claims, read
 * as SDL_image 2.6.3's IMG_*.c and the libraries under it read it. */
#include <string.h>

#include "asset_check_internal.h"
#include "tempo/base.h"

/* C's isspace() in the "C" locale, which is what SDL_isspace is. */
static bool space(unsigned char c)
{
    return c == ' ' || c == '\t' || c == '\n' || c == '\v' || c == '\f' || c == '\r';
}

static bool digit(unsigned char c)
{
    return c >= '0' && c <= '9';
}

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
    return tempo__asset_fail(info, TEMPO_EFORMAT, "JPEG without a frame header (SOF) before its image data");
}

/* GIF: SDL_image (IMG_gif.c) decodes the first image block with the size in
 * its own descriptor, not the logical screen's; the blocks before it are
 * extensions (sub-block chains) and bytes it skips. */
static int gif_size(const unsigned char *b, size_t n, tempo__asset_info *info)
{
    if (n < 13)
        return tempo__asset_fail(info, TEMPO_EFORMAT, "GIF cut short in its header (%zu bytes)", n);
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
    return tempo__asset_fail(info, TEMPO_EFORMAT, "GIF without an image block");
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
        return tempo__asset_fail(info, TEMPO_EFORMAT, "PNM without a valid width and height");
    if (kind != 0) {
        long maxval = pnm_number(b, n, &pos);
        if (maxval <= 0 || maxval > 255)
            return tempo__asset_fail(info, TEMPO_EFORMAT, "PNM maxval %ld (SDL_image reads 1-255)", maxval);
    }
    info->w = (uint32_t)w;
    info->h = (uint32_t)h;
    /* Bytes of pixel data at the least: one per sample in ASCII (a digit),
     * packed bits for binary PBM, one byte per sample otherwise. */
    uint64_t samples = (uint64_t)w * (uint64_t)h * (kind == 2 ? 3u : 1u);
    uint64_t need = ascii ? samples : kind == 0 ? (uint64_t)((w + 7) / 8) * (uint64_t)h : samples;
    if (need > n - (pos < n ? pos : n))
        return tempo__asset_fail(info, TEMPO_EFORMAT,
                                 "PNM claims %ldx%ld, which needs %llu bytes of pixel data; the file has %zu", w, h,
                                 (unsigned long long)need, n - (pos < n ? pos : n));
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
            return tempo__asset_fail(info, TEMPO_EFORMAT, "XPM colour line %u is shorter than its key and a space",
                                     (unsigned)i);
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
                return tempo__asset_fail(info, TEMPO_EFORMAT,
                                         "XPM pixel (%u,%u) is '%c' (0x%02x), which names no colour", (unsigned)x,
                                         (unsigned)y, b[pos + x] >= 32 && b[pos + x] < 127 ? b[pos + x] : '?',
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
        return tempo__asset_fail(info, TEMPO_EFORMAT, "XPM without its values string");
    long v[4];
    for (int i = 0; i < 4; i++) {
        while (pos < end && space(b[pos]))
            pos++;
        if (pos < end && b[pos] == '+')
            pos++;
        if (pos >= end || !digit(b[pos]))
            return tempo__asset_fail(info, TEMPO_EFORMAT, "XPM values string is not \"<w> <h> <ncolors> <cpp>\"");
        long x = 0;
        int digits = 0;
        while (pos < end && digit(b[pos])) {
            x = x * 10 + (b[pos++] - '0');
            if (++digits > 9)
                return tempo__asset_fail(info, TEMPO_EFORMAT, "XPM value with more than 9 digits");
        }
        v[i] = x;
    }
    if (v[0] <= 0 || v[1] <= 0 || v[2] <= 0 || v[3] <= 0)
        return tempo__asset_fail(info, TEMPO_EFORMAT, "XPM claims %ldx%ld, %ld colours, %ld chars per pixel", v[0],
                                 v[1], v[2], v[3]);
    info->w = (uint32_t)v[0];
    info->h = (uint32_t)v[1];
    if (v[3] > 8)
        return tempo__asset_fail(info, TEMPO_EFORMAT, "XPM with %ld characters per pixel (at most 8)", v[3]);
    /* A colour line is at least its quotes, cpp key chars, a space, "c"
     * and a space; a pixel row is cpp chars per pixel. */
    uint64_t colours = (uint64_t)v[2] * (uint64_t)(v[3] + 5);
    uint64_t pixels = (uint64_t)v[0] * (uint64_t)v[1] * (uint64_t)v[3];
    if (colours > n || pixels > n)
        return tempo__asset_fail(info, TEMPO_EFORMAT,
                                 "XPM claims %ldx%ld with %ld colours; a file of %zu bytes cannot hold that", v[0],
                                 v[1], v[2], n);
    if (v[3] == 1 && v[2] <= 256)
        return xpm_keys(b, n, end + 1, (uint32_t)v[0], (uint32_t)v[1], (uint32_t)v[2], info);
    return 0;
}

/* TGA header (IMG_tga.c): the types and depths SDL_image accepts. */
static int tga_size(const unsigned char *b, size_t n, tempo__asset_info *info)
{
    if (n < 18)
        return tempo__asset_fail(info, TEMPO_EFORMAT, "TGA cut short in its header (%zu bytes)", n);
    unsigned type = b[2], bits = b[16], ncols = le16(b + 5);
    bool ok;
    switch (type) {
    case 1: case 9: ok = b[1] != 0 && bits == 8 && ncols <= 256; break; /* indexed */
    case 2: case 10: ok = bits == 15 || bits == 16 || bits == 24 || bits == 32; break; /* true colour */
    case 3: case 11: ok = bits == 8; break; /* grey */
    default: ok = false;
    }
    if (!ok)
        return tempo__asset_fail(info, TEMPO_EFORMAT, "TGA type %u with %u bits per pixel is not one SDL_image reads",
                                 type, bits);
    info->w = le16(b + 12);
    info->h = le16(b + 14);
    return 0;
}

static int webp_size(const unsigned char *b, size_t n, tempo__asset_info *info)
{
    if (n < 16) /* "VP8" matched at 12: the fourth byte may be missing */
        return tempo__asset_fail(info, TEMPO_EFORMAT, "WEBP cut short in its header (%zu bytes)", n);
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
    return tempo__asset_fail(info, TEMPO_EFORMAT, "WEBP without a VP8/VP8L/VP8X header SDL_image can read");
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
        return tempo__asset_fail(info, TEMPO_EFORMAT, "PNG without its IHDR header");
    info->w = be32(b + 16);
    info->h = be32(b + 20);
    uint64_t pos = 8;
    bool idat = false;
    png_crc_tables crc;
    png_crc_init(&crc);
    while (pos + 8 <= n) {
        uint64_t len = be32(b + pos);
        if (pos + 12 + len > n)
            return tempo__asset_fail(info, TEMPO_EFORMAT,
                                     "truncated PNG: the %.4s chunk at byte %llu needs %llu bytes, the file "
                                     "ends after %llu",
                                     (const char *)b + pos + 4, (unsigned long long)pos, (unsigned long long)(12 + len),
                                     (unsigned long long)(n - pos));
        /* A critical chunk (the first letter upper case) whose CRC fails is
         * a damaged file. libpng would refuse it too, but SDL_image leaves
         * libpng's own error handler in place, which prints "libpng error:
         * IDAT: CRC error" to stderr for every such load, outside
         * tempo_log_set_level. (Ancillary chunks are libpng's to skip.) */
        if (!(b[pos + 4] & 0x20) && png_crc(&crc, b + pos + 4, 4 + len) != be32(b + pos + 8 + len))
            return tempo__asset_fail(info, TEMPO_EFORMAT, "damaged PNG: the %.4s chunk at byte %llu fails its CRC",
                                     (const char *)b + pos + 4, (unsigned long long)pos);
        if (memcmp(b + pos + 4, "IDAT", 4) == 0)
            idat = true;
        if (memcmp(b + pos + 4, "IEND", 4) == 0)
            return 0;
        pos += 12 + len;
    }
    if (!idat)
        return tempo__asset_fail(info, TEMPO_EFORMAT, "truncated PNG: no image data (IDAT) in %zu bytes", n);
    return 0;
}

int tempo__asset_check_image(const unsigned char *b, size_t n, bool tga_named, const tempo__asset_limits *lim,
                             tempo__asset_info *info)
{
    memset(info, 0, sizeof *info);
    if (n == 0)
        return tempo__asset_fail(info, TEMPO_EFORMAT, "empty file");
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
            return tempo__asset_fail(info, TEMPO_EFORMAT, "QOI cut short in its header (%zu bytes)", n);
        info->w = be32(b + 4);
        info->h = be32(b + 8);
        rc = 0;
        break;
    case TEMPO__ASSET_BMP:
        if (n < 26)
            return tempo__asset_fail(info, TEMPO_EFORMAT, "BMP cut short in its header (%zu bytes)", n);
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
        return tempo__asset_fail(info, TEMPO_EFORMAT, "not an image format Tempo recognises (by its first bytes)");
    default:
        return tempo__asset_fail(info, TEMPO_ENOTSUP,
                                 "%s: its size cannot be checked before decoding (see "
                                 "tempo_loader_desc.allow_unchecked_formats)",
                                 tempo__asset_format_name(f));
    }
    if (rc < 0) {
        if (rc == TEMPO_EFORMAT && info->w && info->h &&
            (info->w > lim->max_w || info->h > lim->max_h ||
             (uint64_t)info->w * info->h > lim->max_pixels))
            goto too_large; /* a lie about the size is reported as what it claims */
        return rc;
    }
    if (info->w == 0 || info->h == 0)
        return tempo__asset_fail(info, TEMPO_EFORMAT, "%s claims %ux%u", tempo__asset_format_name(f), (unsigned)info->w,
                                 (unsigned)info->h);
    if (info->w > lim->max_w || info->h > lim->max_h || (uint64_t)info->w * info->h > lim->max_pixels)
        goto too_large;
    return 0;
too_large:
    return tempo__asset_fail(info, TEMPO_ERANGE, "%s claims %ux%u, larger than the image limit %ux%u, %llu pixels",
                             tempo__asset_format_name(f), (unsigned)info->w, (unsigned)info->h, (unsigned)lim->max_w,
                             (unsigned)lim->max_h, (unsigned long long)lim->max_pixels);
}
