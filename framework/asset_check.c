/* Asset format checks (asset_check.h): what the checks share, the format
 * names, the failure record and the file reader. The checks themselves are
 * one file per family (asset_check_internal.h lists them). Every "SDL_image
 * does" / "SDL_mixer does" in them was read in Debian's sources
 * (libsdl2-image 2.6.3, libsdl2-mixer 2.6.2); the checks must read the same
 * fields the same way as the decoder they guard, or a file could pass there
 * and lie in the decoder. */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "asset_check_internal.h"
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

int tempo__asset_fail(tempo__asset_info *info, int code, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(info->why, sizeof info->why, fmt, ap);
    va_end(ap);
    return code;
}

tempo__asset_reader tempo__asset_mem_reader(tempo__asset_mem *m)
{
    return (tempo__asset_reader){.size = m->n, .read = NULL, .ctx = m};
}

/* What lies past the end reads as zero, as SDL_ReadLE32 leaves a value on
 * a short read (SDL_RWread copies the bytes that exist into a zeroed
 * variable). */
size_t tempo__asset_read_at(const tempo__asset_reader *rd, uint64_t off, void *buf, size_t len)
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
