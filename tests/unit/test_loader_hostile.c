/* Hostile asset files (issue 10 item 3): each becomes its request's error,
 * never a crash, a giant allocation or a hang.
 *
 * Every file here is a few hundred bytes crafted to break a decoder:
 * SDL_mixer 2.6.2's WAV/AIFF music reader (SIGFPE on 0 channels, a read
 * past its buffer on a lying smpl chunk), SDL_image 2.6.3 allocating the
 * surface an XPM/SVG/PPM/TGA header claims (gigabytes), a FIFO blocking
 * open(). Only Tempo's public API is used, so the same file shows the old
 * loader failing (a signal, a timeout, the allocation count).
 *
 * Giant allocations are counted, not suffered: SDL_SetMemoryFunctions routes
 * SDL's, SDL_image's and SDL_mixer's SDL_malloc through a wrapper that
 * records the largest request and refuses any above ALLOC_CAP (so an old
 * loader fails the check instead of pushing this machine into swap).
 * Fixtures are written into the working directory (the build dir). */
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <SDL.h>
#include <SDL_image.h>
#include <SDL_mixer.h>

#include "harness.h"
#include "tempo/loader.h"
#include "tempo/wait.h"

#if !defined(_WIN32)
#include <errno.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>
#define HAVE_FIFO 1
#endif

#define FX "th_fx_"
/* The largest single SDL_malloc a refused file may cause: a refusal
 * allocates nothing near this (the loader's own buffers hold the file). */
#define ALLOC_OK ((size_t)16 << 20)
/* Anything larger is refused outright by the wrapper, whatever asked. */
#define ALLOC_CAP ((size_t)512 << 20)

static bool audio_ok;

/* ---- Counting SDL's allocations -------------------------------------------- */

static SDL_malloc_func real_malloc;
static SDL_calloc_func real_calloc;
static SDL_realloc_func real_realloc;
static SDL_free_func real_free;
static atomic_size_t max_request;

static void note(size_t n)
{
    size_t m = atomic_load(&max_request);
    while (n > m && !atomic_compare_exchange_weak(&max_request, &m, n))
        ;
}

static void *count_malloc(size_t n)
{
    note(n);
    return n > ALLOC_CAP ? NULL : real_malloc(n);
}

static void *count_calloc(size_t k, size_t n)
{
    size_t t = n && k > SIZE_MAX / n ? SIZE_MAX : k * n;
    note(t);
    return t > ALLOC_CAP ? NULL : real_calloc(k, n);
}

static void *count_realloc(void *p, size_t n)
{
    note(n);
    return n > ALLOC_CAP ? NULL : real_realloc(p, n);
}

static void count_free(void *p)
{
    real_free(p);
}

/* ---- Fixtures ------------------------------------------------------------- */

static void write_file(const char *name, const void *data, size_t len)
{
    FILE *f = fopen(name, "wb");
    if (f == NULL) {
        printf("cannot write fixture %s\n", name);
        exit(2);
    }
    if (len)
        fwrite(data, 1, len, f);
    fclose(f);
}

typedef struct buf {
    unsigned char b[16384];
    size_t n;
} buf;

static void put(buf *o, const void *p, size_t k)
{
    memcpy(o->b + o->n, p, k);
    o->n += k;
}
static void puts_(buf *o, const char *s) { put(o, s, strlen(s)); }
static void le16(buf *o, unsigned v) { unsigned char c[2] = {(unsigned char)v, (unsigned char)(v >> 8)}; put(o, c, 2); }
static void le32(buf *o, uint32_t v) { le16(o, v & 0xffff); le16(o, v >> 16); }
static void be16(buf *o, unsigned v) { unsigned char c[2] = {(unsigned char)(v >> 8), (unsigned char)v}; put(o, c, 2); }
static void be32(buf *o, uint32_t v) { be16(o, v >> 16); be16(o, v & 0xffff); }
static void zeros(buf *o, size_t k) { memset(o->b + o->n, 0, k); o->n += k; }

/* A PCM "fmt " chunk (16 bytes). */
static void fmt_chunk(buf *o, unsigned channels, uint32_t rate)
{
    puts_(o, "fmt ");
    le32(o, 16);
    le16(o, 1);
    le16(o, channels);
    le32(o, rate);
    le32(o, rate * (channels ? channels : 1) * 2);
    le16(o, (channels ? channels : 1) * 2);
    le16(o, 16);
}

static void data_chunk(buf *o, unsigned bytes)
{
    puts_(o, "data");
    le32(o, bytes);
    for (unsigned i = 0; i < bytes; i++)
        o->b[o->n++] = (unsigned char)(i * 37);
}

static void riff_done(buf *o, const char *magic)
{
    memcpy(o->b, magic, 4);
    o->b[4] = (unsigned char)(o->n - 8);
    o->b[5] = (unsigned char)((o->n - 8) >> 8);
    o->b[6] = o->b[7] = 0;
}

static void riff_start(buf *o)
{
    o->n = 0;
    puts_(o, "RIFF");
    le32(o, 0);
    puts_(o, "WAVE");
}

/* 0-channel "fmt " behind a 5000-byte JUNK chunk: past the 4 KiB the old
 * check read. */
static void make_wav_junk_nochan(const char *name)
{
    static buf o;
    riff_start(&o);
    puts_(&o, "JUNK");
    le32(&o, 5000);
    zeros(&o, 5000);
    fmt_chunk(&o, 0, 22050);
    data_chunk(&o, 400);
    riff_done(&o, "RIFF");
    write_file(name, o.b, o.n);
}

/* An honest-looking file that starts "WAVE" instead of "RIFF", with a
 * 0-channel format: SDL_mixer's music reader accepts the magic. */
static void make_wave_magic(const char *name)
{
    static buf o;
    riff_start(&o);
    fmt_chunk(&o, 0, 22050);
    data_chunk(&o, 400);
    riff_done(&o, "WAVE");
    write_file(name, o.b, o.n);
}

/* An odd-length JUNK chunk: RIFF readers skip a pad byte after it,
 * SDL_mixer's music reader does not. Where it looks (no pad) sits a
 * 0-channel "fmt "; where a padding reader looks, garbage that ends the
 * walk. */
static void make_wav_odd_junk(const char *name)
{
    static buf o;
    riff_start(&o);
    puts_(&o, "JUNK");
    le32(&o, 5);
    zeros(&o, 5);
    fmt_chunk(&o, 0, 22050);
    data_chunk(&o, 400);
    riff_done(&o, "RIFF");
    write_file(name, o.b, o.n);
}

/* A smpl chunk claiming 2^28 loops in its 36 bytes: SDL_mixer reads that
 * many 24-byte loops from a 36-byte buffer. */
static void make_wav_smpl(const char *name)
{
    static buf o;
    riff_start(&o);
    fmt_chunk(&o, 1, 22050);
    puts_(&o, "smpl");
    le32(&o, 36);
    zeros(&o, 28);
    le32(&o, 1u << 28);
    le32(&o, 0);
    data_chunk(&o, 400);
    riff_done(&o, "RIFF");
    write_file(name, o.b, o.n);
}

/* A 16-bit PCM WAV of `frames` sample frames of `channels` at `rate` Hz. */
static void make_wav_frames(const char *name, unsigned channels, uint32_t rate, unsigned frames)
{
    static buf o;
    riff_start(&o);
    fmt_chunk(&o, channels, rate);
    data_chunk(&o, frames * channels * 2);
    riff_done(&o, "RIFF");
    write_file(name, o.b, o.n);
}

/* An AIFF whose COMM claims 0 frames, with an empty SSND. */
static void make_aiff_zero_frames(const char *name)
{
    static buf o;
    o.n = 0;
    puts_(&o, "FORM");
    be32(&o, 4 + 8 + 18 + 8 + 8);
    puts_(&o, "AIFF");
    puts_(&o, "COMM");
    be32(&o, 18);
    be16(&o, 1);
    be32(&o, 0); /* frames */
    be16(&o, 16);
    be16(&o, 16383 + 14);
    be32(&o, 22050u << 17);
    be32(&o, 0);
    puts_(&o, "SSND");
    be32(&o, 8);
    zeros(&o, 8);
    write_file(name, o.b, o.n);
}

/* A VOC header and one 8-bit data block of 4 samples. */
static void make_voc(const char *name)
{
    static buf o;
    o.n = 0;
    puts_(&o, "Creative Voice File\x1a");
    le16(&o, 26);     /* first block */
    le16(&o, 0x010A); /* version */
    le16(&o, 0x1129); /* its check word */
    put(&o, "\x01\x06\x00\x00\x9c\x00", 6); /* data block: 6 bytes, rate code 156 (10 kHz), 8-bit */
    put(&o, "\x80\x90\x70\x80\x00", 5);     /* 4 samples, then the terminator */
    write_file(name, o.b, o.n);
}

/* AIFF with its COMM (0 channels) behind a 5000-byte APPL chunk. */
static void make_aiff_appl_nochan(const char *name)
{
    static buf o;
    o.n = 0;
    puts_(&o, "FORM");
    be32(&o, 0);
    puts_(&o, "AIFF");
    puts_(&o, "APPL");
    be32(&o, 5000);
    zeros(&o, 5000);
    puts_(&o, "COMM");
    be32(&o, 18);
    be16(&o, 0);     /* channels */
    be32(&o, 200);   /* frames */
    be16(&o, 16);    /* bits */
    be16(&o, 16383 + 14); /* 22050 Hz as an 80-bit float */
    be32(&o, 22050u << 17);
    be32(&o, 0);
    puts_(&o, "SSND");
    be32(&o, 8 + 400);
    zeros(&o, 8 + 400);
    uint32_t len = (uint32_t)o.n - 8;
    o.b[4] = (unsigned char)(len >> 24);
    o.b[5] = (unsigned char)(len >> 16);
    o.b[6] = (unsigned char)(len >> 8);
    o.b[7] = (unsigned char)len;
    write_file(name, o.b, o.n);
}

/* AIFF whose COMM claims 64 frames (128 bytes) while its SSND holds 10
 * bytes, behind a 200-byte APPL so the file itself is larger than the
 * claim: SDL_mixer's AIFF sound loader fails the short read and leaks its
 * buffer and RWops (LSan in the ASan build; found by fuzz_asset_load). */
static void make_aiff_short_ssnd(const char *name, bool full_ssnd_after)
{
    static buf o;
    o.n = 0;
    puts_(&o, "FORM");
    be32(&o, 0);
    puts_(&o, "AIFF");
    puts_(&o, "COMM");
    be32(&o, 18);
    be16(&o, 1);
    be32(&o, 64);
    be16(&o, 16);
    be16(&o, 16383 + 14);
    be32(&o, 22050u << 17);
    be32(&o, 0);
    puts_(&o, "APPL");
    be32(&o, 200);
    zeros(&o, 200);
    puts_(&o, "SSND");
    be32(&o, 8 + 10);
    be32(&o, full_ssnd_after ? 0x10000 : 0); /* data offset: past the end of the file */
    zeros(&o, 4 + 10);
    if (full_ssnd_after) { /* SDL_mixer stops at the first SSND: this one is never read */
        puts_(&o, "SSND");
        be32(&o, 8 + 128);
        zeros(&o, 8 + 128);
    }
    uint32_t len = (uint32_t)o.n - 8;
    o.b[4] = (unsigned char)(len >> 24);
    o.b[5] = (unsigned char)(len >> 16);
    o.b[6] = (unsigned char)(len >> 8);
    o.b[7] = (unsigned char)len;
    write_file(name, o.b, o.n);
}

static void make_text(const char *name, const char *text)
{
    write_file(name, text, strlen(text));
}

/* TGA: an 18-byte header claiming w x h 32-bit true colour, and a few
 * pixels. */
static void make_tga(const char *name, unsigned w, unsigned h)
{
    static buf o;
    o.n = 0;
    unsigned char hdr[18] = {0, 0, 2};
    hdr[12] = (unsigned char)w;
    hdr[13] = (unsigned char)(w >> 8);
    hdr[14] = (unsigned char)h;
    hdr[15] = (unsigned char)(h >> 8);
    hdr[16] = 32;
    hdr[17] = 8;
    put(&o, hdr, 18);
    zeros(&o, 64);
    write_file(name, o.b, o.n);
}

#define XPM_HUGE "/* XPM */\nstatic char *x[] = {\n\"30000 30000 2 1\",\n\"a c #000000\",\n\"b c #ffffff\",\n\"ab\"\n};\n"
#define XPM_COLOURS "/* XPM */\nstatic char *x[] = {\n\"4 4 100000000 4\",\n\"aaaa c #000000\"\n};\n"
/* One char per pixel, a pixel naming no colour: SDL_image 2.6.3 looks it up
 * in its colour table unchecked and dereferences NULL (fuzz_asset_load). */
#define XPM_NO_COLOUR "/* XPM */\nstatic char *x[] = {\n\"2 1 1 1\",\n\"a c #000000\",\n\"az\"\n};\n"
#define SVG_HUGE "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"40000\" height=\"40000\"><rect width=\"9\" height=\"9\"/></svg>\n"
/* 192 bytes found by fuzz_asset_load (issue 18): "fLaC", a first metadata
 * block of type STREAMINFO claiming 174 bytes, then an AIFF. libFLAC's
 * metadata step fails and SDL_mixer 2.6.2 leaks its FLAC decoder (55 KB in
 * 28 allocations) as sound and as music. The same bytes are in the fuzz
 * corpus, tests/fuzz/corpus/asset_load/flac-aiff-metadata. */
static const unsigned char flac_aiff[192] = {
    0x66, 0x4c, 0x61, 0x43, 0x00, 0x00, 0x00, 0xae, 0x41, 0x49, 0x46, 0x46, 0x43, 0x4f, 0x4d, 0x4d,
    0x00, 0x00, 0x00, 0x12, 0x00, 0x01, 0x00, 0x00, 0x00, 0x40, 0x00, 0x10, 0x40, 0x0d, 0xac, 0x44,
    0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x53, 0x53, 0x4e, 0x44, 0x00, 0x00, 0x00, 0x88, 0x00, 0x00,
    0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0xf4, 0x48, 0xf4, 0x48, 0xf4, 0x48, 0xf4, 0x48, 0xf4, 0x48,
    0xf4, 0x48, 0xf4, 0x48, 0xf4, 0x48, 0x0b, 0xb8, 0x0b, 0x0b, 0xb8, 0xf4, 0x48, 0xf4, 0x48, 0xf4,
    0x48, 0xf4, 0x48, 0xf4, 0x48, 0xf4, 0x48, 0xf4, 0x48, 0xf4, 0x48, 0x0b, 0xb8, 0x0b, 0xb8, 0x2e,
    0x0b, 0xb8, 0x8a, 0xb8, 0x0b, 0xb8, 0x0b, 0xb8, 0x0b, 0xb8, 0x0b, 0xb8, 0xf4, 0x48, 0xf4, 0x48,
    0xf4, 0x48, 0xf4, 0x48, 0xf4, 0x48, 0xf4, 0x48, 0xf4, 0x48, 0xf0, 0x48, 0x0b, 0xb8, 0x0b, 0xb8,
    0x0b, 0xb8, 0x0b, 0xb8, 0x0b, 0xb8, 0x0b, 0xb8, 0x0b, 0xb8, 0x0b, 0xb8, 0xf4, 0x48, 0xf4, 0x48,
    0xf4, 0x48, 0xf4, 0x48, 0xf4, 0x48, 0xf4, 0x48, 0xf4, 0x48, 0xf4, 0x48, 0x0b, 0xb8, 0x0b, 0xb8,
    0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff,
    0xff, 0xff, 0xff, 0xff, 0x0b, 0xb8, 0x0b, 0xb8, 0x0b, 0xb8, 0x0b, 0xb8, 0x0b, 0xb8, 0x0b, 0xb8
};

#define PPM_HUGE "P6\n60000 60000\n255\n\x01\x02\x03"

/* 38 bytes found by fuzz_asset_load: a format 0 MIDI file, 96 ticks per
 * quarter note, one 12-byte track whose last delta time (FF FF FF 01:
 * 268435329 ticks, 388 hours at 120 bpm) has no event after it inside the
 * chunk. As a sound SDL_mixer 2.6.2 renders the whole song into memory:
 * the loader thread grew to 5 GB in 80 s with over an hour to go (libFuzzer
 * saw one realloc above 2 GB). The same bytes are in the fuzz corpus,
 * tests/fuzz/corpus/asset_load/midi-388-hours. */
static const unsigned char midi_fuzz[38] = {
    0x4d, 0x54, 0x68, 0x64, 0x00, 0x00, 0x00, 0x06, 0x00, 0x00, 0x00, 0x01, 0x00, 0x60, 0x4d, 0x54,
    0x72, 0x6b, 0x00, 0x00, 0x00, 0x0c, 0x40, 0x90, 0x3c, 0x40, 0x60, 0x80, 0x3c, 0x40, 0xff, 0xff,
    0xff, 0x01, 0x00, 0xff, 0x2f, 0x00
};

/* A well-formed format 0 MIDI file (96 ticks per quarter note, the default
 * 120 bpm): a note, then the end-of-track event `delta` ticks after it. */
static void make_midi(const char *name, uint32_t delta)
{
    buf o = {0};
    static const unsigned char head[] = {'M', 'T', 'h', 'd', 0, 0, 0, 6, 0, 0, 0, 1, 0, 96};
    put(&o, head, sizeof head);
    /* note on at 0, off a quarter note later */
    unsigned char trk[32] = {0x00, 0x90, 0x3C, 0x40, 0x60, 0x80, 0x3C, 0x40};
    size_t n = 8;
    /* the delta as a variable-length quantity, most significant 7 bits first */
    int k = 0;
    unsigned char v[4];
    do {
        v[k++] = delta & 0x7F;
        delta >>= 7;
    } while (delta != 0 && k < 4);
    while (k > 0) {
        k--;
        trk[n++] = (unsigned char)(v[k] | (k > 0 ? 0x80 : 0));
    }
    static const unsigned char eot[] = {0xFF, 0x2F, 0x00};
    memcpy(trk + n, eot, sizeof eot);
    n += sizeof eot;
    puts_(&o, "MTrk");
    be32(&o, (uint32_t)n);
    put(&o, trk, n);
    write_file(name, o.b, o.n);
}

static const char *const fixture_files[] = {
    FX "short_ssnd.aiff", FX "two_ssnd.aiff", FX "short.flac", FX "flac_aiff.flac", FX "junk_nochan.wav", FX "wave_magic.wav", FX "odd_junk.wav", FX "smpl.wav", FX "appl_nochan.aiff",
    FX "huge.xpm", FX "huge_xpm.png", FX "colours.xpm", FX "nocolour.xpm", FX "huge.svg", FX "huge_svg.png", FX "huge.ppm",
    FX "huge_ppm.png", FX "max.tga", FX "30000.tga", FX "30000_tga.png", FX "fifo",
    FX "fuzz_388h.mid", FX "long_388h.mid", FX "twenty_min.mid",
    FX "empty.wav", FX "1f_768k.wav", FX "100f_768k.wav", FX "zero.aiff", FX "tiny.voc",
};

static void make_fixtures(void)
{
    make_wav_junk_nochan(FX "junk_nochan.wav");
    make_wave_magic(FX "wave_magic.wav");
    make_wav_odd_junk(FX "odd_junk.wav");
    make_wav_smpl(FX "smpl.wav");
    make_aiff_appl_nochan(FX "appl_nochan.aiff");
    make_aiff_short_ssnd(FX "short_ssnd.aiff", false);
    make_aiff_short_ssnd(FX "two_ssnd.aiff", true);
    write_file(FX "short.flac", "fLaC\xff", 5);
    write_file(FX "flac_aiff.flac", flac_aiff, sizeof flac_aiff);
    make_text(FX "huge.xpm", XPM_HUGE);
    make_text(FX "huge_xpm.png", XPM_HUGE);
    make_text(FX "colours.xpm", XPM_COLOURS);
    make_text(FX "nocolour.xpm", XPM_NO_COLOUR);
    make_text(FX "huge.svg", SVG_HUGE);
    make_text(FX "huge_svg.png", SVG_HUGE);
    write_file(FX "huge.ppm", PPM_HUGE, sizeof PPM_HUGE - 1);
    write_file(FX "huge_ppm.png", PPM_HUGE, sizeof PPM_HUGE - 1);
    make_tga(FX "max.tga", 65535, 65535);
    make_tga(FX "30000.tga", 30000, 30000);
    make_tga(FX "30000_tga.png", 30000, 30000);
    write_file(FX "fuzz_388h.mid", midi_fuzz, sizeof midi_fuzz);
    make_midi(FX "long_388h.mid", 0x0FFFFFFF); /* 388.4 hours in all */
    make_midi(FX "twenty_min.mid", 20 * 60 * 2 * 96); /* 20 min of quarter notes at 120 bpm */
    make_wav_frames(FX "empty.wav", 1, 22050, 0);
    make_wav_frames(FX "1f_768k.wav", 2, 768000, 1);     /* under one frame at any device rate */
    make_wav_frames(FX "100f_768k.wav", 2, 768000, 100); /* 5.7 frames at 44100 Hz, 2.9 at 22050 */
    make_aiff_zero_frames(FX "zero.aiff");
    make_voc(FX "tiny.voc");
}

static void remove_fixtures(void)
{
    for (size_t i = 0; i < sizeof fixture_files / sizeof fixture_files[0]; i++)
        remove(fixture_files[i]);
}

/* ---- Loading one file ------------------------------------------------------ */

typedef struct outcome {
    bool delivered;
    int error;
    uint32_t sound_bytes; /* the chunk's alen */
    char text[512];
} outcome;

static void on_done(tempo_loader *l, const tempo_load_result *r, void *user)
{
    (void)l;
    outcome *o = user;
    o->delivered = true;
    o->error = r->error;
    snprintf(o->text, sizeof o->text, "%s", r->error_text);
    /* The objects are ours: a hostile file that decodes anyway is freed. */
    if (r->surface)
        SDL_FreeSurface(r->surface);
    if (r->chunk) {
        o->sound_bytes = r->chunk->alen;
        Mix_FreeChunk(r->chunk);
    }
    if (r->music)
        Mix_FreeMusic(r->music);
}

/* Loads `path` as `type`, with a generous bound for a hang (the loader
 * refuses these in microseconds; the bound only has to end a stuck run).
 * Returns false on a hang. */
static bool load(tempo_loader *l, tempo_load_type type, const char *path, outcome *o)
{
    memset(o, 0, sizeof *o);
    atomic_store(&max_request, 0);
    if (tempo_loader_submit(l, &(tempo_load_request){.type = type, .path = path, .done = on_done, .user = o}) == 0) {
        tt_fail(__FILE__, __LINE__, "submit %s: %s", path, tempo_get_error());
        return true;
    }
    if (tempo_loader_wait_idle(l, 30 * TEMPO_NS_PER_S) != 0) {
        tt_fail(__FILE__, __LINE__, "%s: no result after 30 s: the loader thread is stuck", path);
        return false;
    }
    while (tempo_loader_process(l) > 0)
        ;
    CHECK(o->delivered);
    return true;
}

static const char *type_name(tempo_load_type type)
{
    return type == TEMPO_LOAD_MUSIC ? "music" : type == TEMPO_LOAD_SOUND ? "sound" : "image";
}

/* The file must load; a sound, to a chunk that is not empty. */
static void expect_loaded(tempo_loader *l, tempo_load_type type, const char *path)
{
    outcome o;
    if (!load(l, type, path, &o))
        return;
    tt_note("%-24s %-6s %-14s %u sound bytes %s", path, type_name(type), tempo_errname(o.error), o.sound_bytes,
            o.text);
    CHECK_EQ_INT(o.error, 0);
    if (type == TEMPO_LOAD_SOUND)
        CHECK(o.sound_bytes > 0);
}

/* The file must be refused with `code` (0: any error), quickly and
 * without a giant allocation. */
static void expect_refused(tempo_loader *l, tempo_load_type type, const char *path, int code, const char *needle)
{
    outcome o;
    if (!load(l, type, path, &o))
        return;
    size_t big = atomic_load(&max_request);
    tt_note("%-24s %-6s %-14s max SDL_malloc %zu B: %s", path, type_name(type), tempo_errname(o.error), big,
            o.text);
    if (o.error == 0)
        tt_fail(__FILE__, __LINE__, "%s: loaded, want %s", path, code ? tempo_errname(code) : "an error");
    else if (code != 0 && o.error != code)
        tt_fail(__FILE__, __LINE__, "%s: %s, want %s (\"%s\")", path, tempo_errname(o.error), tempo_errname(code),
                o.text);
    if (needle && strstr(o.text, needle) == NULL)
        tt_fail(__FILE__, __LINE__, "%s: text \"%s\" lacks \"%s\"", path, o.text, needle);
    if (big > ALLOC_OK)
        tt_fail(__FILE__, __LINE__, "%s: a single SDL_malloc of %zu bytes (at most %zu expected)", path, big,
                ALLOC_OK);
}

/* ---- Cases ------------------------------------------------------------------ */

/* One case per attack, so a crash (on the old loader) names its file. */
static void refuse_one(tempo_load_type type, const char *path, int code, const char *needle)
{
    if (!audio_ok && type != TEMPO_LOAD_IMAGE)
        TT_SKIP("no audio device");
    tempo_loader *l = tempo_loader_create(NULL);
    expect_refused(l, type, path, code, needle);
    tempo_loader_destroy(l);
}

#define REFUSED(name, type, file, code, needle) \
    static void name(void) { refuse_one(type, FX file, code, needle); }

/* Each of these killed the process inside SDL_mixer 2.6.2 (SIGFPE/SIGSEGV)
 * when loaded as music. */
REFUSED(music_0ch_fmt_behind_5000_byte_junk, TEMPO_LOAD_MUSIC, "junk_nochan.wav", TEMPO_EFORMAT, "0 channels")
REFUSED(music_aiff_0ch_comm_behind_large_appl, TEMPO_LOAD_MUSIC, "appl_nochan.aiff", TEMPO_EFORMAT, "0 channels")
REFUSED(music_starting_wave_not_riff, TEMPO_LOAD_MUSIC, "wave_magic.wav", TEMPO_EFORMAT, "RIFF")
REFUSED(music_odd_length_junk_read_without_pad, TEMPO_LOAD_MUSIC, "odd_junk.wav", TEMPO_EFORMAT, "0 channels")
REFUSED(music_smpl_claiming_2_28_loops, TEMPO_LOAD_MUSIC, "smpl.wav", TEMPO_EFORMAT, "loops")

/* 72-110 byte files that made SDL_image allocate gigabytes (or crash:
 * the 30000^2 TGA), also when named .png. */
REFUSED(image_xpm_30000x30000, TEMPO_LOAD_IMAGE, "huge.xpm", TEMPO_ERANGE, "30000x30000")
REFUSED(image_xpm_30000x30000_named_png, TEMPO_LOAD_IMAGE, "huge_xpm.png", TEMPO_ERANGE, "30000x30000")
REFUSED(image_xpm_10e8_colours, TEMPO_LOAD_IMAGE, "colours.xpm", TEMPO_EFORMAT, "colours")
REFUSED(image_xpm_pixel_naming_no_colour, TEMPO_LOAD_IMAGE, "nocolour.xpm", TEMPO_EFORMAT, "names no colour")
REFUSED(image_svg_40000x40000, TEMPO_LOAD_IMAGE, "huge.svg", TEMPO_ENOTSUP, "SVG")
REFUSED(image_svg_40000x40000_named_png, TEMPO_LOAD_IMAGE, "huge_svg.png", TEMPO_ENOTSUP, "SVG")
REFUSED(image_ppm_60000x60000, TEMPO_LOAD_IMAGE, "huge.ppm", TEMPO_ERANGE, "60000x60000")
REFUSED(image_ppm_60000x60000_named_png, TEMPO_LOAD_IMAGE, "huge_ppm.png", TEMPO_ERANGE, "60000x60000")
REFUSED(image_tga_65535x65535, TEMPO_LOAD_IMAGE, "max.tga", TEMPO_ERANGE, "65535x65535")
REFUSED(image_tga_30000x30000, TEMPO_LOAD_IMAGE, "30000.tga", TEMPO_ERANGE, "30000x30000")
/* No magic and not named .tga: not an image anyone can identify. */
REFUSED(image_tga_30000x30000_named_png, TEMPO_LOAD_IMAGE, "30000_tga.png", TEMPO_EFORMAT, NULL)

REFUSED(sound_aiff_frames_past_its_ssnd_data, TEMPO_LOAD_SOUND, "short_ssnd.aiff", TEMPO_EFORMAT, "ends before them")
/* The same leak through an SSND whose data offset points past the end,
 * followed by a good SSND that SDL_mixer never reaches (fuzz_asset_load). */
REFUSED(sound_aiff_first_ssnd_offset_past_the_end, TEMPO_LOAD_SOUND, "two_ssnd.aiff", TEMPO_EFORMAT, "past the end")

/* 5 bytes: SDL_mixer's sound path gives up before its 12-byte probe and
 * leaks the source it was told to close (LSan in the ASan build). */
REFUSED(sound_5_byte_flac_leaks_nothing, TEMPO_LOAD_SOUND, "short.flac", TEMPO_EFORMAT, NULL)
REFUSED(sound_flac_with_a_174_byte_streaminfo, TEMPO_LOAD_SOUND, "flac_aiff.flac", TEMPO_EFORMAT, "STREAMINFO")
REFUSED(music_flac_with_a_174_byte_streaminfo, TEMPO_LOAD_MUSIC, "flac_aiff.flac", TEMPO_EFORMAT, "STREAMINFO")

/* Sounds of no sample frames, or fewer than one at the device's rate:
 * SDL_mixer 2.8 converts them to 0 bytes, frees that
 * buffer and keeps its pointer, and Mix_FreeChunk frees it again (a
 * double free on Debian 13; fuzz_asset_load found the first). SDL_mixer
 * 2.6.2 made them empty sounds. */
REFUSED(sound_wav_without_sample_frames, TEMPO_LOAD_SOUND, "empty.wav", TEMPO_EFORMAT, "no whole block")
REFUSED(sound_wav_shorter_than_one_device_frame, TEMPO_LOAD_SOUND, "1f_768k.wav", TEMPO_EFORMAT,
        "1 sample frame at 768000 Hz: less than one at the audio device's")
REFUSED(sound_aiff_of_0_frames, TEMPO_LOAD_SOUND, "zero.aiff", TEMPO_EFORMAT, "0 sample frames")
/* SDL_mixer's VOC reader trusts its block lengths (a 16-bit block shorter
 * than its 12-byte header reads ~4 GiB): unchecked, so opt-in only. */
REFUSED(sound_voc_is_an_unchecked_format, TEMPO_LOAD_SOUND, "tiny.voc", TEMPO_ENOTSUP, "VOC")

/* Above the line: 100 frames at 768 kHz are a few at the device's rate (its
 * rate and channels are the driver's: only "not empty" is asserted). */
static void a_sound_of_a_few_device_frames_loads(void)
{
    if (!audio_ok)
        TT_SKIP("no audio device");
    tempo_loader *l = tempo_loader_create(NULL);
    expect_loaded(l, TEMPO_LOAD_SOUND, FX "100f_768k.wav");
    tempo_loader_destroy(l);
}

/* MIDI songs far too long (delta times of up to 0x0FFFFFFF ticks): as a
 * sound SDL_mixer renders the whole song into memory (the old loader's
 * thread grew by ~60 MB/s for over an hour; here the allocation counter
 * catches it). The fuzzer's file also ends a track inside an event. */
REFUSED(sound_midi_from_the_fuzzer, TEMPO_LOAD_SOUND, "fuzz_388h.mid", TEMPO_EFORMAT, "without its event")
REFUSED(music_midi_from_the_fuzzer, TEMPO_LOAD_MUSIC, "fuzz_388h.mid", TEMPO_EFORMAT, "without its event")
REFUSED(sound_midi_lasting_388_hours, TEMPO_LOAD_SOUND, "long_388h.mid", TEMPO_ERANGE, "may last 388.4 hours")
REFUSED(music_midi_lasting_388_hours, TEMPO_LOAD_MUSIC, "long_388h.mid", TEMPO_ERANGE, "at most 1440 minutes")

/* 20 minutes: too long to render whole as a sound, a song as music. */
static void a_20_minute_midi_is_music_not_a_sound(void)
{
    if (!audio_ok)
        TT_SKIP("no audio device");
    tempo_loader *l = tempo_loader_create(NULL);
    expect_refused(l, TEMPO_LOAD_SOUND, FX "twenty_min.mid", TEMPO_ERANGE, "at most 10 minutes as a sound");
    outcome o;
    if (load(l, TEMPO_LOAD_MUSIC, FX "twenty_min.mid", &o)) {
        tt_note("%-24s music  %-14s %s", FX "twenty_min.mid", tempo_errname(o.error), o.text);
        /* The check's reasons start "MIDI"; anything else is the decoder's. */
        if (o.error == TEMPO_EFORMAT && strstr(o.text, ": MIDI ") == NULL)
            tt_note("SDL_mixer has no MIDI decoder or sound font here: the check passed it");
        else
            CHECK_EQ_INT(o.error, 0);
    }
    tempo_loader_destroy(l);
}

/* As sounds, the hostile music files were safe and must stay so. */
static void the_same_files_as_sounds_stay_safe(void)
{
    if (!audio_ok)
        TT_SKIP("no audio device");
    tempo_loader *l = tempo_loader_create(NULL);
    expect_refused(l, TEMPO_LOAD_SOUND, FX "junk_nochan.wav", TEMPO_EFORMAT, "0 channels");
    expect_refused(l, TEMPO_LOAD_SOUND, FX "appl_nochan.aiff", TEMPO_EFORMAT, "0 channels");
    expect_refused(l, TEMPO_LOAD_SOUND, FX "wave_magic.wav", 0, NULL);
    /* A padding reader sees no format chunk: SDL refuses it itself. */
    expect_refused(l, TEMPO_LOAD_SOUND, FX "odd_junk.wav", 0, NULL);
    /* SDL's own WAV reader ignores smpl: a valid sound. */
    expect_loaded(l, TEMPO_LOAD_SOUND, FX "smpl.wav");
    tempo_loader_destroy(l);
}

/* A FIFO without a writer blocked the loader thread in open() forever,
 * and every request behind it, and tempo_loader_destroy. */
static void a_fifo_is_refused_without_blocking(void)
{
#if HAVE_FIFO
    remove(FX "fifo");
    if (mkfifo(FX "fifo", 0600) != 0)
        TT_SKIP("mkfifo failed");
    tempo_loader *l = tempo_loader_create(NULL);
    static const tempo_load_type types[] = {TEMPO_LOAD_BYTES, TEMPO_LOAD_IMAGE, TEMPO_LOAD_SOUND, TEMPO_LOAD_MUSIC};
    for (int i = 0; i < 4; i++) {
        if (!audio_ok && (types[i] == TEMPO_LOAD_SOUND || types[i] == TEMPO_LOAD_MUSIC))
            continue;
        outcome o;
        if (!load(l, types[i], FX "fifo", &o)) {
            /* Unblock the stuck open() so this program can end. */
            int fd = open(FX "fifo", O_WRONLY | O_NONBLOCK);
            if (fd >= 0)
                close(fd);
            break;
        }
        tt_note("fifo (type %d)           %-14s %s", (int)types[i], tempo_errname(o.error), o.text);
        CHECK_EQ_INT(o.error, TEMPO_EIO);
        CHECK(strstr(o.text, "not a regular file") != NULL);
    }
    tempo_loader_destroy(l);
    remove(FX "fifo");
#else
    TT_SKIP("no FIFOs on this OS");
#endif
}

/* Expected per-request failures are in the result; with the default log
 * level they must not also print a warning each (10 000 refused submits
 * printed 1 808 WARN lines and slowed the submit loop 40x). */
static atomic_int warn_lines;
static SDL_LogOutputFunction prev_out;
static void *prev_out_user;

static void count_log(void *user, int category, SDL_LogPriority priority, const char *message)
{
    (void)user;
    (void)category;
    (void)message;
    if (priority >= SDL_LOG_PRIORITY_WARN)
        atomic_fetch_add(&warn_lines, 1);
}

static int hold_work(tempo_load_job *job, void **result)
{
    (void)result;
    tempo_wait((tempo_handle **)&job->user, 1, TEMPO_INFINITE, 0);
    return 0;
}

static void expected_failures_do_not_flood_the_log(void)
{
    SDL_LogGetOutputFunction(&prev_out, &prev_out_user);
    SDL_LogSetOutputFunction(count_log, NULL);
    SDL_LogSetPriority(SDL_LOG_CATEGORY_APPLICATION, SDL_LOG_PRIORITY_VERBOSE); /* let everything reach us */
    atomic_store(&warn_lines, 0);

    tempo_loader *l = tempo_loader_create(&(tempo_loader_desc){.max_pending = 1});
    tempo_handle *release = tempo_event_create(true, false);
    CHECK(tempo_loader_submit(l, &(tempo_load_request){.type = TEMPO_LOAD_CUSTOM, .work = hold_work,
                                                       .user = release}) > 0);
    int refused = 0;
    for (int i = 0; i < 10000; i++)
        if (tempo_loader_submit(l, &(tempo_load_request){.type = TEMPO_LOAD_BYTES, .path = "x"}) == 0)
            refused++;
    CHECK_EQ_INT(refused, 10000);
    tempo_event_set(release);
    CHECK_EQ_INT(tempo_loader_wait_idle(l, 30 * TEMPO_NS_PER_S), 0);
    while (tempo_loader_process(l) > 0)
        ;
    tempo_loader_destroy(l);
    /* 50 missing files: 50 failed results, no warnings. */
    l = tempo_loader_create(NULL);
    for (int i = 0; i < 50; i++)
        CHECK(tempo_loader_submit(l, &(tempo_load_request){.type = TEMPO_LOAD_BYTES, .path = FX "missing"}) > 0);
    CHECK_EQ_INT(tempo_loader_wait_idle(l, 30 * TEMPO_NS_PER_S), 0);
    while (tempo_loader_process(l) > 0)
        ;
    tempo_loader_stats st;
    tempo_loader_get_stats(l, &st);
    CHECK_EQ_U64(st.failed, 50);
    tempo_loader_destroy(l);
    tempo_event_destroy(release);

    SDL_LogSetOutputFunction(prev_out, prev_out_user);
    SDL_LogSetPriority(SDL_LOG_CATEGORY_APPLICATION, SDL_LOG_PRIORITY_ERROR);
    int lines = atomic_load(&warn_lines);
    tt_note("%d warning lines for 10000 refused submits and 50 failed requests", lines);
    CHECK_EQ_INT(lines, 0);
}

static const tt_case cases[] = {
    TT_CASE(music_0ch_fmt_behind_5000_byte_junk),
    TT_CASE(music_aiff_0ch_comm_behind_large_appl),
    TT_CASE(music_starting_wave_not_riff),
    TT_CASE(music_odd_length_junk_read_without_pad),
    TT_CASE(music_smpl_claiming_2_28_loops),
    TT_CASE(the_same_files_as_sounds_stay_safe),
    TT_CASE(sound_aiff_frames_past_its_ssnd_data),
    TT_CASE(sound_aiff_first_ssnd_offset_past_the_end),
    TT_CASE(sound_5_byte_flac_leaks_nothing),
    TT_CASE(sound_flac_with_a_174_byte_streaminfo),
    TT_CASE(music_flac_with_a_174_byte_streaminfo),
    TT_CASE(sound_midi_from_the_fuzzer),
    TT_CASE(music_midi_from_the_fuzzer),
    TT_CASE(sound_midi_lasting_388_hours),
    TT_CASE(music_midi_lasting_388_hours),
    TT_CASE(a_20_minute_midi_is_music_not_a_sound),
    TT_CASE(sound_wav_without_sample_frames),
    TT_CASE(sound_wav_shorter_than_one_device_frame),
    TT_CASE(sound_aiff_of_0_frames),
    TT_CASE(sound_voc_is_an_unchecked_format),
    TT_CASE(a_sound_of_a_few_device_frames_loads),
    TT_CASE(image_xpm_30000x30000),
    TT_CASE(image_xpm_30000x30000_named_png),
    TT_CASE(image_xpm_10e8_colours),
    TT_CASE(image_xpm_pixel_naming_no_colour),
    TT_CASE(image_svg_40000x40000),
    TT_CASE(image_svg_40000x40000_named_png),
    TT_CASE(image_ppm_60000x60000),
    TT_CASE(image_ppm_60000x60000_named_png),
    TT_CASE(image_tga_65535x65535),
    TT_CASE(image_tga_30000x30000),
    TT_CASE(image_tga_30000x30000_named_png),
    TT_CASE(a_fifo_is_refused_without_blocking),
    TT_CASE(expected_failures_do_not_flood_the_log),
};

int main(int argc, char **argv)
{
    /* Before any SDL allocation: SDL may not change allocators later. */
    SDL_GetMemoryFunctions(&real_malloc, &real_calloc, &real_realloc, &real_free);
    SDL_SetMemoryFunctions(count_malloc, count_calloc, count_realloc, count_free);
    if (SDL_getenv("SDL_AUDIODRIVER") == NULL)
        SDL_setenv("SDL_AUDIODRIVER", "dummy", 1);
    if (SDL_Init(SDL_INIT_AUDIO) != 0) {
        printf("# SDL audio: %s (sound cases skip)\n", SDL_GetError());
    } else {
        audio_ok = Mix_OpenAudio(44100, AUDIO_S16SYS, 2, 1024) == 0;
        if (!audio_ok)
            printf("# Mix_OpenAudio: %s (sound cases skip)\n", Mix_GetError());
    }
    SDL_LogSetPriority(SDL_LOG_CATEGORY_APPLICATION, SDL_LOG_PRIORITY_ERROR);
    make_fixtures();
    int rc = TT_MAIN(argc, argv, cases);
    if (!getenv("TL_KEEP"))
        remove_fixtures();
    if (audio_ok)
        Mix_CloseAudio();
    Mix_Quit();
    IMG_Quit();
    tempo_shutdown();
    SDL_Quit();
    return rc;
}
