/* Asset format checks: what a file claims, judged before a decoder sees it.
 *
 * A pure module (no SDL, no allocation, no I/O of its own): bytes in, the
 * format and what its header claims out, or a precise reason to refuse. The
 * loader (loader.c) runs these checks on a loader thread and then calls the
 * one decoder whose header was checked; tests/fuzz/fuzz_asset_check.c fuzzes them.
 *
 * Formats are recognised by their magic bytes, never by the file name (a
 * TGA, which has no magic, is the one exception: see tempo__asset_check_image).
 * Each check mirrors what the decoder it guards reads, as found in Debian's
 * SDL_image 2.6.3 and SDL_mixer 2.6.2 sources (IMG.c, IMG_*.c,
 * codecs/music_wav.c, load_aiff.c): the same fields, the same chunk walk,
 * so the values checked are the values the decoder will use.
 *
 * Thread: any (no state). */
#ifndef TEMPO_ASSET_CHECK_H
#define TEMPO_ASSET_CHECK_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

typedef enum tempo__asset_format {
    TEMPO__ASSET_UNKNOWN = 0,
    /* Images whose size is checked. */
    TEMPO__ASSET_PNG,
    TEMPO__ASSET_JPEG,
    TEMPO__ASSET_GIF,
    TEMPO__ASSET_BMP,
    TEMPO__ASSET_QOI,
    TEMPO__ASSET_TGA,
    TEMPO__ASSET_PNM,
    TEMPO__ASSET_XPM,
    TEMPO__ASSET_WEBP,
    /* Images recognised but not checked (refused unless the game opts in). */
    TEMPO__ASSET_SVG,
    TEMPO__ASSET_TIF,
    TEMPO__ASSET_ICO,
    TEMPO__ASSET_CUR,
    TEMPO__ASSET_PCX,
    TEMPO__ASSET_LBM,
    TEMPO__ASSET_XCF,
    TEMPO__ASSET_XV,
    TEMPO__ASSET_AVIF,
    TEMPO__ASSET_JXL,
    /* Audio. */
    TEMPO__ASSET_WAV,
    TEMPO__ASSET_AIFF,
    TEMPO__ASSET_VOC,
    TEMPO__ASSET_OGG,
    TEMPO__ASSET_OPUS,
    TEMPO__ASSET_FLAC,
    TEMPO__ASSET_MP3,
    TEMPO__ASSET_MIDI,
    TEMPO__ASSET_FORMAT_COUNT
} tempo__asset_format;

/* "PNG", "WAV", ... ("unknown" for TEMPO__ASSET_UNKNOWN). */
const char *tempo__asset_format_name(tempo__asset_format f);

typedef struct tempo__asset_limits {
    uint32_t max_w, max_h; /* a side longer than these is refused */
    uint64_t max_pixels;   /* w * h above this is refused */
} tempo__asset_limits;

typedef struct tempo__asset_info {
    tempo__asset_format format;
    uint32_t w, h;        /* images: the size the header claims (0 if not checked) */
    uint32_t channels;    /* WAV/AIFF: the channel count the decoder will use */
    uint32_t rate_hz;     /* WAV/AIFF: the sample rate the decoder will use */
    uint64_t frames;      /* WAV/AIFF sounds: the sample frames it decodes, at least (0: unknown) */
    uint64_t length_ms;   /* MIDI: the song's length, bounded from above (see TEMPO__ASSET_MAX_MIDI_*) */
    char why[240];        /* on failure: the reason, without the file name */
} tempo__asset_info;

/* Results of every check: 0 (safe to decode with the format's decoder),
 * or a negative TEMPO_E* code with info->why set:
 *   TEMPO_ERANGE   the header claims more than the limits allow
 *   TEMPO_EFORMAT  malformed: truncated, lying, or not a format we know
 *   TEMPO_ENOTSUP  a known format whose claims this module cannot check
 *                  (info->format names it); the caller may still decode it
 *                  if the game opted in. */

/* An image file, all `n` bytes of it. `tga_named`: the file name ends in
 * ".tga"; TGA has no magic bytes, so SDL_image (and this check) only take a
 * file for TGA by its name or by the TGA 2.0 footer, and only when no other
 * format's magic matches. The returned format's decoder must be the one
 * called (IMG_Load<FMT>_RW), not SDL_image's own detection. */
int tempo__asset_check_image(const unsigned char *b, size_t n, bool tga_named, const tempo__asset_limits *lim,
                             tempo__asset_info *info);

/* A sound for Mix_LoadWAV_RW, all `n` bytes of it. May repair `b` in place:
 * a WAV data chunk claiming more bytes than the file holds is clamped to
 * them (SDL would otherwise malloc the claimed size, up to 4 GiB).
 * A WAV or AIFF sound of no sample frames is refused (TEMPO_EFORMAT).
 * TEMPO_ENOTSUP for data without a known audio signature (SDL_mixer would
 * try it as a MOD module) and for VOC (its reader is not checked). */
int tempo__asset_check_sound(unsigned char *b, size_t n, tempo__asset_info *info);

/* Random access to a file for the music check (music streams from its
 * file, so it is not read whole). read() copies up to `len` bytes at `off`
 * into `buf` and returns how many it copied (short only at the end). */
typedef struct tempo__asset_reader {
    uint64_t size;
    size_t (*read)(void *ctx, uint64_t off, void *buf, size_t len);
    void *ctx;
} tempo__asset_reader;

/* A reader over memory (for tests and the fuzz targets). */
typedef struct tempo__asset_mem {
    const unsigned char *b;
    size_t n;
} tempo__asset_mem;
tempo__asset_reader tempo__asset_mem_reader(tempo__asset_mem *m);

/* Music for Mix_LoadMUSType_RW: walks every WAV/AIFF chunk the way SDL_mixer
 * 2.6's music reader does (codecs/music_wav.c), wherever in the file it is.
 * TEMPO_ENOTSUP for data without a known signature (SDL_mixer would try it
 * as a MOD module). */
int tempo__asset_check_music(const tempo__asset_reader *rd, tempo__asset_info *info);

/* The sample-rate bounds applied to WAV/AIFF (sound and music): below
 * 1000 Hz SDL's resampler multiplies every buffer by the rate ratio (1 Hz to
 * 48 kHz: 48000x), above 768 kHz no real file exists. */
#define TEMPO__ASSET_MIN_RATE_HZ 1000u
#define TEMPO__ASSET_MAX_RATE_HZ 768000u
/* Channel counts SDL 2's audio converter handles. */
#define TEMPO__ASSET_MAX_CHANNELS 8u
/* The longest MIDI song (an upper bound from its tracks' delta times and
 * tempos) accepted as a sound and as music. Mix_LoadWAV_RW renders a sound
 * whole into memory in the device's format: 10 minutes is 106 MB at
 * 44.1 kHz 16-bit stereo (230 MB at 48 kHz float stereo), while a 4-byte
 * delta time lets a 40-byte file claim hundreds of hours. Music streams
 * (a 388-hour song played with 30 MB of RSS), so only an absurd length, a
 * day, is refused there. */
#define TEMPO__ASSET_MAX_MIDI_SOUND_S 600u
#define TEMPO__ASSET_MAX_MIDI_MUSIC_S 86400u

#endif /* TEMPO_ASSET_CHECK_H */
