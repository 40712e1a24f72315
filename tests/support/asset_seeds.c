/* Generated seed files (asset_seeds.h). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <SDL.h>
#include <SDL_image.h>

#include "asset_seeds.h"

static const asset_seed seeds[] = {
    {"seed.png", TEMPO_LOAD_IMAGE, false, 8, 4, false, IMG_INIT_PNG},
    {"seed.jpg", TEMPO_LOAD_IMAGE, false, 8, 4, false, IMG_INIT_JPG},
    {"seed.bmp", TEMPO_LOAD_IMAGE, false, 8, 4, false, 0},
    {"seed.gif", TEMPO_LOAD_IMAGE, false, 1, 1, false, 0},
    {"seed.qoi", TEMPO_LOAD_IMAGE, false, 2, 2, false, 0},
    {"seed.tga", TEMPO_LOAD_IMAGE, false, 2, 2, false, 0},
    {"seed_p1.pbm", TEMPO_LOAD_IMAGE, false, 2, 2, false, 0},
    {"seed_p2.pgm", TEMPO_LOAD_IMAGE, false, 2, 2, false, 0},
    {"seed_p3.ppm", TEMPO_LOAD_IMAGE, false, 2, 2, false, 0},
    {"seed_p4.pbm", TEMPO_LOAD_IMAGE, false, 2, 2, false, 0},
    {"seed_p5.pgm", TEMPO_LOAD_IMAGE, false, 2, 2, false, 0},
    {"seed_p6.ppm", TEMPO_LOAD_IMAGE, false, 2, 2, false, 0},
    {"seed.xpm", TEMPO_LOAD_IMAGE, false, 2, 2, false, 0},
    {"seed.webp", TEMPO_LOAD_IMAGE, false, 1, 1, false, IMG_INIT_WEBP},
    {"seed.wav", TEMPO_LOAD_SOUND, true, 0, 0, false, 0},
    {"seed_list.wav", TEMPO_LOAD_SOUND, true, 0, 0, false, 0},
    {"seed.aiff", TEMPO_LOAD_SOUND, true, 0, 0, false, 0},
    {"seed.flac", TEMPO_LOAD_MUSIC, false, 0, 0, true, 0},
    {"seed.mp3", TEMPO_LOAD_MUSIC, false, 0, 0, true, 0},
    {"seed.mid", TEMPO_LOAD_MUSIC, false, 0, 0, true, 0},
};

typedef struct out {
    unsigned char b[8192];
    size_t n;
} out;

static void put(out *o, const void *p, size_t k)
{
    memcpy(o->b + o->n, p, k);
    o->n += k;
}
static void str(out *o, const char *s) { put(o, s, strlen(s)); }
static void u8(out *o, unsigned v) { o->b[o->n++] = (unsigned char)v; }
static void le16(out *o, unsigned v) { u8(o, v & 0xff); u8(o, (v >> 8) & 0xff); }
static void le32(out *o, uint32_t v) { le16(o, v & 0xffff); le16(o, v >> 16); }
static void be16(out *o, unsigned v) { u8(o, (v >> 8) & 0xff); u8(o, v & 0xff); }
static void be32(out *o, uint32_t v) { be16(o, v >> 16); be16(o, v & 0xffff); }

static bool save(const char *dir, const char *name, const void *b, size_t n)
{
    char path[1024];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    FILE *f = fopen(path, "wb");
    if (f == NULL)
        return false;
    bool ok = fwrite(b, 1, n, f) == n;
    return fclose(f) == 0 && ok;
}

static bool save_out(const char *dir, const char *name, const out *o)
{
    return save(dir, name, o->b, o->n);
}

static bool save_text(const char *dir, const char *name, const char *text)
{
    return save(dir, name, text, strlen(text));
}

/* 16-bit mono PCM at 22050 Hz, 64 frames; with a LIST INFO chunk that
 * names the title if `list`. */
static void wav(out *o, bool list)
{
    o->n = 0;
    str(o, "RIFF");
    le32(o, 0);
    str(o, "WAVE");
    str(o, "fmt ");
    le32(o, 16);
    le16(o, 1);
    le16(o, 1);
    le32(o, 22050);
    le32(o, 44100);
    le16(o, 2);
    le16(o, 16);
    if (list) {
        str(o, "LIST");
        le32(o, 4 + 8 + 6);
        str(o, "INFO");
        str(o, "INAM");
        le32(o, 6);
        put(o, "tempo\0", 6);
    }
    str(o, "data");
    le32(o, 128);
    for (int i = 0; i < 64; i++)
        le16(o, (unsigned)(uint16_t)(i & 8 ? 3000 : -3000));
    uint32_t len = (uint32_t)o->n - 8;
    memcpy(o->b + 4, (unsigned char[]){len & 0xff, (len >> 8) & 0xff, (len >> 16) & 0xff, len >> 24}, 4);
}

static void aiff(out *o)
{
    o->n = 0;
    str(o, "FORM");
    be32(o, 0);
    str(o, "AIFF");
    str(o, "COMM");
    be32(o, 18);
    be16(o, 1);
    be32(o, 64);
    be16(o, 16);
    be16(o, 16383 + 14); /* 22050 Hz */
    be32(o, 22050u << 17);
    be32(o, 0);
    str(o, "SSND");
    be32(o, 8 + 128);
    be32(o, 0);
    be32(o, 0);
    for (int i = 0; i < 64; i++)
        be16(o, (unsigned)(uint16_t)(i & 8 ? 3000 : -3000));
    uint32_t len = (uint32_t)o->n - 8;
    memcpy(o->b + 4, (unsigned char[]){len >> 24, (len >> 16) & 0xff, (len >> 8) & 0xff, len & 0xff}, 4);
}

/* FLAC: the signature and a STREAMINFO block (44.1 kHz, mono, 16 bit, no
 * frames): a valid header for the decoders to open. */
static void flac(out *o)
{
    o->n = 0;
    str(o, "fLaC");
    u8(o, 0x80); /* last metadata block, type 0 STREAMINFO */
    u8(o, 0);
    u8(o, 0);
    u8(o, 34);
    be16(o, 4096); /* min block size */
    be16(o, 4096); /* max block size */
    u8(o, 0), u8(o, 0), u8(o, 0); /* min frame size: unknown */
    u8(o, 0), u8(o, 0), u8(o, 0); /* max frame size: unknown */
    /* 20 bits rate 44100, 3 bits channels-1 = 0, 5 bits bps-1 = 15, 36 bits samples = 0 */
    uint32_t rate = 44100;
    u8(o, (rate >> 12) & 0xff);
    u8(o, (rate >> 4) & 0xff);
    u8(o, ((rate & 0xf) << 4) | (0 << 1) | (15 >> 4));
    u8(o, (15 & 0xf) << 4);
    be32(o, 0);
    for (int i = 0; i < 16; i++)
        u8(o, 0); /* MD5: unknown */
}

/* MPEG-1 Layer III, 128 kbit/s, 44.1 kHz, mono: four frames of silence
 * (all-zero side information), 417 bytes each. */
static void mp3(out *o)
{
    o->n = 0;
    for (int f = 0; f < 4; f++) {
        u8(o, 0xFF);
        u8(o, 0xFB);
        u8(o, 0x90);
        u8(o, 0xC4);
        for (int i = 4; i < 417; i++)
            u8(o, 0);
    }
}

/* MIDI format 0: one note on and off. */
static void midi(out *o)
{
    o->n = 0;
    str(o, "MThd");
    be32(o, 6);
    be16(o, 0);
    be16(o, 1);
    be16(o, 96);
    static const unsigned char track[] = {0x00, 0x90, 0x3C, 0x40, 0x60, 0x80, 0x3C, 0x40, 0x00, 0xFF, 0x2F, 0x00};
    str(o, "MTrk");
    be32(o, sizeof track);
    put(o, track, sizeof track);
}

const asset_seed *asset_seeds_write(const char *dir, int *n)
{
    *n = (int)(sizeof seeds / sizeof seeds[0]);
    char path[1024];
    bool ok = true;
    SDL_Surface *s = SDL_CreateRGBSurfaceWithFormat(0, 8, 4, 32, SDL_PIXELFORMAT_RGBA32);
    if (s == NULL)
        return NULL;
    for (int y = 0; y < 4; y++)
        for (int x = 0; x < 8; x++)
            ((Uint32 *)((Uint8 *)s->pixels + y * s->pitch))[x] = SDL_MapRGBA(s->format, (Uint8)(x * 30), (Uint8)(y * 60), 90, 255);
    snprintf(path, sizeof path, "%s/seed.png", dir);
    ok &= IMG_SavePNG(s, path) == 0;
    snprintf(path, sizeof path, "%s/seed.jpg", dir);
    if (IMG_SaveJPG(s, path, 80) != 0 && (IMG_Init(IMG_INIT_JPG) & IMG_INIT_JPG))
        ok = false; /* it can decode JPEG but not save one: unexpected */
    snprintf(path, sizeof path, "%s/seed.bmp", dir);
    ok &= SDL_SaveBMP(s, path) == 0;
    SDL_FreeSurface(s);

    /* The classic 1x1 GIF: two-colour global table, one LZW-coded pixel. */
    static const unsigned char gif[] = {'G', 'I', 'F', '8', '9', 'a', 1, 0, 1, 0, 0x80, 0, 0, 0, 0, 0, 0xFF, 0xFF,
                                        0xFF, ',', 0, 0, 0, 0, 1, 0, 1, 0, 0, 2, 2, 0x44, 0x01, 0, ';'};
    ok &= save(dir, "seed.gif", gif, sizeof gif);
    /* QOI 2x2 RGBA: one RGBA op, a run of 3, the end marker. */
    static const unsigned char qoi[] = {'q', 'o', 'i', 'f', 0, 0, 0, 2, 0, 0, 0, 2, 4, 0, 0xFF, 200, 100, 50, 255,
                                        0xC2, 0, 0, 0, 0, 0, 0, 0, 1};
    ok &= save(dir, "seed.qoi", qoi, sizeof qoi);
    /* TGA 2x2 24-bit, top-left origin. */
    static const unsigned char tga[18 + 12] = {0, 0, 2, 0, 0, 0, 0, 0, 0, 0, 0, 0, 2, 0, 2, 0, 24, 0x20,
                                               0, 0, 255, 0, 255, 0, 255, 0, 0, 255, 255, 255};
    ok &= save(dir, "seed.tga", tga, sizeof tga);
    ok &= save_text(dir, "seed_p1.pbm", "P1\n# a comment\n2 2\n0 1\n1 0\n");
    ok &= save_text(dir, "seed_p2.pgm", "P2\n2 2\n255\n0 64\n128 255\n");
    ok &= save_text(dir, "seed_p3.ppm", "P3\n2 2\n255\n255 0 0  0 255 0\n0 0 255  255 255 255\n");
    ok &= save(dir, "seed_p4.pbm", "P4\n2 2\n\x40\x80", 9);
    ok &= save(dir, "seed_p5.pgm", "P5\n2 2\n255\n\x00\x40\x80\xff", 15);
    ok &= save(dir, "seed_p6.ppm", "P6\n2 2\n255\n\xff\x00\x00\x00\xff\x00\x00\x00\xff\xff\xff\xff", 23);
    ok &= save_text(dir, "seed.xpm", "/* XPM */\nstatic char *seed[] = {\n\"2 2 2 1\",\n\"a c #000000\",\n"
                                     "\"b c #FFFFFF\",\n\"ab\",\n\"ba\"\n};\n");
    /* WebP lossless 1x1 (VP8L). */
    static const unsigned char webp[] = {'R', 'I', 'F', 'F', 0x1a, 0, 0, 0, 'W', 'E', 'B', 'P', 'V', 'P', '8', 'L',
                                         0x0d, 0, 0, 0, 0x2f, 0, 0, 0, 0x10, 0x07, 0x10, 0x11, 0x11, 0x88, 0x88,
                                         0xfe, 0x07, 0};
    ok &= save(dir, "seed.webp", webp, sizeof webp);

    static out o;
    wav(&o, false);
    ok &= save_out(dir, "seed.wav", &o);
    wav(&o, true);
    ok &= save_out(dir, "seed_list.wav", &o);
    aiff(&o);
    ok &= save_out(dir, "seed.aiff", &o);
    flac(&o);
    ok &= save_out(dir, "seed.flac", &o);
    mp3(&o);
    ok &= save_out(dir, "seed.mp3", &o);
    midi(&o);
    ok &= save_out(dir, "seed.mid", &o);
    return ok ? seeds : NULL;
}
