/* What the asset check's files share (asset_check.h is the module's face):
 *
 *   asset_check.c        format names, the failure record, the file reader
 *   asset_check_image.c  images: which format, the size its header claims
 *   asset_check_audio.c  sounds and music: WAV, AIFF, FLAC, the signatures
 *   asset_check_midi.c   MIDI: the event walk and the song's length
 *
 * The audio checks call the MIDI one; every file calls asset_check.c's
 * helpers; nothing calls back up.
 *
 * Thread: any (no state). */
#ifndef TEMPO_ASSET_CHECK_INTERNAL_H
#define TEMPO_ASSET_CHECK_INTERNAL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "asset_check.h"

/* Writes the reason into info->why; returns `code`. */
#if defined(__MINGW32__)
__attribute__((format(gnu_printf, 3, 4)))
#elif defined(__GNUC__)
__attribute__((format(printf, 3, 4)))
#endif
int tempo__asset_fail(tempo__asset_info *info, int code, const char *fmt, ...);

/* Reads `len` bytes at `off` of the reader's file into `buf`; what lies
 * past the end reads as zero. Returns the bytes that existed. */
size_t tempo__asset_read_at(const tempo__asset_reader *rd, uint64_t off, void *buf, size_t len);

/* A Standard MIDI File (sound or music): 0, or a negative TEMPO_E* code
 * with info->why set; TEMPO_ERANGE when the song may last longer than
 * `max_s` seconds (`as` names the use in that message: "a sound"). */
int tempo__asset_check_midi(const tempo__asset_reader *rd, uint32_t max_s, const char *as, tempo__asset_info *info);

/* Fields of the formats, as the decoders read them. */
static inline uint32_t be32(const unsigned char *p)
{
    return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3];
}

static inline uint32_t le32(const unsigned char *p)
{
    return (uint32_t)p[3] << 24 | (uint32_t)p[2] << 16 | (uint32_t)p[1] << 8 | p[0];
}

static inline uint32_t be16(const unsigned char *p)
{
    return (uint32_t)p[0] << 8 | p[1];
}

static inline uint32_t le16(const unsigned char *p)
{
    return (uint32_t)p[1] << 8 | p[0];
}

/* The `n` bytes at `b` hold `magic` at `off`. */
static inline bool has(const unsigned char *b, size_t n, size_t off, const char *magic)
{
    size_t k = strlen(magic);
    return n >= off + k && memcmp(b + off, magic, k) == 0;
}

#endif /* TEMPO_ASSET_CHECK_INTERNAL_H */
