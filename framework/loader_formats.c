/* The loader's per-format table (loader_internal.h): for each request type,
 * how it is decoded on a reader thread and finalized and freed on the loop
 * thread. A new format is one more decode function and one entry in
 * `formats` below. */
#include <string.h>

#include <SDL_image.h>

#include "asset_check.h"
#include "loader_internal.h"

/* ---- SDL_mixer's process-wide lock -------------------------------------
 * SDL_mixer 2.6 keeps its decoder registry in unlocked globals (see
 * loader.h); every loader's threads take this lock around Mix_Load*. It is
 * created by the first loader and freed with the last (loop thread only, so
 * the count needs no lock of its own). */
static plat_mutex *mix_lock;
static int mix_lock_users;

int tempo__load_formats_ref(void)
{
    if (mix_lock_users == 0 && (mix_lock = plat_mutex_create()) == NULL)
        return TEMPO_ENOMEM; /* plat_mutex_create set the detail */
    mix_lock_users++;
    /* SDL_image initialises a decoder lazily, unlocked, on its first use;
     * do it here, before any loader thread exists. */
    IMG_Init(IMG_INIT_PNG | IMG_INIT_JPG | IMG_INIT_TIF | IMG_INIT_WEBP);
    return 0;
}

void tempo__load_formats_unref(void)
{
    if (mix_lock_users > 0 && --mix_lock_users == 0) {
        plat_mutex_destroy(mix_lock);
        mix_lock = NULL;
    }
}

/* ---- Images -------------------------------------------------------------- */

static bool too_large(const tempo_loader *l, uint32_t w, uint32_t h)
{
    return w > (uint32_t)l->max_tex_w || h > (uint32_t)l->max_tex_h || (uint64_t)w * h > l->max_pixels;
}

static tempo__asset_limits limits_of(const tempo_loader *l)
{
    return (tempo__asset_limits){
        .max_w = (uint32_t)l->max_tex_w, .max_h = (uint32_t)l->max_tex_h, .max_pixels = l->max_pixels};
}

/* Records a refused check as the request's error. [loader thread] */
static int check_fail(load_req *r, int code, const tempo__asset_info *info)
{
    return tempo__loader_fail(r, code, "%s: %s", r->path, info->why);
}

/* The decoder of the format the check identified, so SDL_image's own
 * detection (and the file name's TGA hint) cannot pick another one. NULL for
 * the unchecked formats: those go to IMG_Load_RW (only when allowed), whose
 * detection order the check mirrors. */
static SDL_Surface *(*image_decoder(tempo__asset_format f))(SDL_RWops *)
{
    switch (f) {
    case TEMPO__ASSET_PNG: return IMG_LoadPNG_RW;
    case TEMPO__ASSET_JPEG: return IMG_LoadJPG_RW;
    case TEMPO__ASSET_GIF: return IMG_LoadGIF_RW;
    case TEMPO__ASSET_BMP: return IMG_LoadBMP_RW;
    case TEMPO__ASSET_QOI: return IMG_LoadQOI_RW;
    case TEMPO__ASSET_TGA: return IMG_LoadTGA_RW;
    case TEMPO__ASSET_PNM: return IMG_LoadPNM_RW;
    case TEMPO__ASSET_XPM: return IMG_LoadXPM_RW;
    case TEMPO__ASSET_WEBP: return IMG_LoadWEBP_RW;
    default: return NULL;
    }
}

static bool named_tga(const char *path)
{
    const char *ext = strrchr(path, '.');
    return ext && SDL_strcasecmp(ext, ".tga") == 0;
}

/* The texture format SDL_CreateTextureFromSurface (SDL 2.26) would pick for
 * `s`, or 0 to leave the surface alone (colour keys and palettes: SDL's own
 * conversion handles those specially). [loader thread] */
static Uint32 texture_format_for(const tempo_loader *l, const SDL_Surface *s)
{
    const SDL_PixelFormat *fmt = s->format;
    if (l->n_tex_formats == 0 || fmt->palette != NULL || SDL_HasColorKey((SDL_Surface *)s))
        return 0;
    for (int i = 0; i < l->n_tex_formats; i++)
        if (l->tex_formats[i] == fmt->format)
            return 0; /* already a match: uploaded as is */
    SDL_bool need_alpha = fmt->Amask != 0;
    for (int i = 0; i < l->n_tex_formats; i++) {
        Uint32 f = l->tex_formats[i];
        if (!SDL_ISPIXELFORMAT_FOURCC(f) && SDL_ISPIXELFORMAT_ALPHA(f) == need_alpha)
            return f;
    }
    return SDL_ISPIXELFORMAT_FOURCC(l->tex_formats[0]) ? 0 : l->tex_formats[0];
}

/* [loader thread] */
static int load_image(tempo_loader *l, load_req *r, load_scratch *sc)
{
    unsigned char *buf;
    size_t len;
    int rc = tempo__loader_read_all(l, r, sc, &buf, &len);
    if (rc < 0)
        return rc;
    if (len == 0)
        return tempo__loader_fail(r, TEMPO_EFORMAT, "%s is an empty file", r->path);
    /* Identify the format by its bytes and refuse an oversized or lying
     * header before the decoder allocates width * height * 4 bytes on its
     * word. */
    tempo__asset_limits lim = limits_of(l);
    tempo__asset_info info;
    rc = tempo__asset_check_image(buf, len, named_tga(r->path), &lim, &info);
    if (rc < 0 && !(rc == TEMPO_ENOTSUP && l->allow_unchecked))
        return check_fail(r, rc, &info);
    SDL_RWops *rw = SDL_RWFromConstMem(buf, (int)len);
    if (rw == NULL)
        return tempo__loader_fail(r, TEMPO_ENOMEM, "%s", tempo__loader_sdl_text("SDL_RWFromConstMem failed"));
    SDL_Surface *(*decode)(SDL_RWops *) = image_decoder(info.format);
    SDL_ClearError();
    SDL_Surface *s = decode ? decode(rw) : IMG_Load_RW(rw, 0);
    SDL_RWclose(rw);
    if (s == NULL)
        return tempo__loader_fail(r, TEMPO_EFORMAT, "%s: %s", r->path,
                                  tempo__loader_sdl_text("SDL_image could not decode it"));
    if (too_large(l, (uint32_t)s->w, (uint32_t)s->h)) {
        tempo__loader_fail(r, TEMPO_ERANGE, "%s is %dx%d, larger than the image limit %dx%d, %llu pixels", r->path,
                           s->w, s->h, l->max_tex_w, l->max_tex_h, (unsigned long long)l->max_pixels);
        SDL_FreeSurface(s);
        return r->error;
    }
    /* Convert here so the loop thread only uploads. If this fails (memory),
     * SDL converts on the loop thread instead: slower, still correct. */
    Uint32 f = texture_format_for(l, s);
    if (f != 0) {
        SDL_Surface *c = SDL_ConvertSurfaceFormat(s, f, 0);
        if (c != NULL) {
            SDL_BlendMode bm;
            SDL_GetSurfaceBlendMode(s, &bm);
            SDL_SetSurfaceBlendMode(c, bm);
            SDL_FreeSurface(s);
            s = c;
        }
    }
    r->surface = s;
    return 0;
}

/* ---- Sounds and music ---------------------------------------------------- */

static int require_audio(load_req *r, const char *what)
{
    if (!Mix_QuerySpec(NULL, NULL, NULL))
        return tempo__loader_fail(r, TEMPO_EINVAL,
                                  "%s: SDL_mixer audio is not open (call Mix_OpenAudio before loading %s)", r->path,
                                  what);
    return 0;
}

/* [loader thread] */
static int load_sound(tempo_loader *l, load_req *r, load_scratch *sc)
{
    int rc = require_audio(r, "sounds");
    unsigned char *buf;
    size_t len;
    if (rc < 0 || (rc = tempo__loader_read_all(l, r, sc, &buf, &len)) < 0)
        return rc;
    tempo__asset_info info;
    rc = tempo__asset_check_sound(buf, len, &info);
    if (rc < 0 && !(rc == TEMPO_ENOTSUP && l->allow_unchecked))
        return check_fail(r, rc, &info);
    SDL_RWops *rw = SDL_RWFromConstMem(buf, (int)len);
    if (rw == NULL)
        return tempo__loader_fail(r, TEMPO_ENOMEM, "%s", tempo__loader_sdl_text("SDL_RWFromConstMem failed"));
    plat_mutex_lock(mix_lock);
    /* A WAV/AIFF sound is converted to the device's rate: fewer frames
     * than one at that rate convert to 0 bytes, which SDL_mixer 2.8 frees
     * and then frees again in Mix_FreeChunk (fuzz_asset_load, Debian 13). */
    int device_hz = 0;
    Mix_QuerySpec(&device_hz, NULL, NULL);
    /* freesrc 0 below: SDL_mixer 2.6.2 does not close a source it was told
     * to close on every failure path (Mix_LoadMusic_RW returns early for
     * data it cannot identify; found by fuzz_asset_load), so Tempo closes
     * it. */
    Mix_Chunk *c = NULL;
    SDL_ClearError();
    if (info.frames > 0 && device_hz > 0 && info.frames * (uint64_t)device_hz < info.rate_hz) {
        tempo__loader_fail(r, TEMPO_EFORMAT,
                           "%s: %llu sample frame%s at %u Hz: less than one at the audio device's %d Hz, no sound",
                           r->path, (unsigned long long)info.frames, info.frames == 1 ? "" : "s",
                           (unsigned)info.rate_hz, device_hz);
    } else if ((c = Mix_LoadWAV_RW(rw, 0)) == NULL) {
        tempo__loader_fail(r, TEMPO_EFORMAT, "%s: %s", r->path,
                           tempo__loader_sdl_text("SDL_mixer could not decode it"));
    } else if (c->alen == 0) {
        /* WAV, AIFF and VOC are converted to the device's format, and one
         * converted to 0 bytes (VOC, unchecked) may hold a freed buffer, or
         * not, by the SDL_mixer and C library: dropped, never freed twice.
         * The other formats decode in the device's format (no conversion):
         * their buffer is freed. */
        if (info.format == TEMPO__ASSET_WAV || info.format == TEMPO__ASSET_AIFF || info.format == TEMPO__ASSET_VOC)
            c->abuf = NULL;
        Mix_FreeChunk(c);
        c = NULL;
        tempo__loader_fail(r, TEMPO_EFORMAT, "%s: SDL_mixer decoded no sound from it", r->path);
    }
    plat_mutex_unlock(mix_lock);
    SDL_RWclose(rw);
    r->chunk = c;
    return c ? 0 : r->error;
}

/* The decoder for the format the check identified (never the file name's:
 * a ".wav" name would send any bytes to the WAV reader). MUS_NONE lets
 * SDL_mixer detect it (only for allowed unchecked data: its MOD fallback). */
static Mix_MusicType music_type_for(tempo__asset_format f)
{
    switch (f) {
    case TEMPO__ASSET_WAV:
    case TEMPO__ASSET_AIFF: return MUS_WAV; /* one reader for both (codecs/music_wav.c) */
    case TEMPO__ASSET_OGG: return MUS_OGG;
    case TEMPO__ASSET_OPUS: return MUS_OPUS;
    case TEMPO__ASSET_FLAC: return MUS_FLAC;
    case TEMPO__ASSET_MP3: return MUS_MP3;
    case TEMPO__ASSET_MIDI: return MUS_MID;
    default: return MUS_NONE;
    }
}

/* The music check reads the file where its chunks are. [loader thread] */
static size_t rw_read_at(void *ctx, uint64_t off, void *buf, size_t len)
{
    SDL_RWops *rw = ctx;
    if (off > INT64_MAX || SDL_RWseek(rw, (Sint64)off, RW_SEEK_SET) < 0)
        return 0;
    size_t got = 0;
    while (got < len) {
        size_t k = SDL_RWread(rw, (char *)buf + got, 1, len - got);
        if (k == 0)
            break;
        got += k;
    }
    return got;
}

/* [loader thread] */
static int load_music(tempo_loader *l, load_req *r, load_scratch *sc)
{
    (void)sc; /* music streams from the file */
    int rc = require_audio(r, "music");
    SDL_RWops *rw;
    uint64_t n;
    if (rc < 0 || (rc = tempo__loader_open(l, r, &rw, &n)) < 0)
        return rc;
    r->bytes = n;
    if (n == 0) {
        SDL_RWclose(rw);
        return tempo__loader_fail(r, TEMPO_EFORMAT, "%s is an empty file", r->path);
    }
    /* Music streams, so the file is not read whole: the check seeks to
     * every chunk header SDL_mixer's reader will visit, wherever it is. */
    tempo__asset_reader rd = {.size = n, .read = rw_read_at, .ctx = rw};
    tempo__asset_info info;
    rc = tempo__asset_check_music(&rd, &info);
    if (rc < 0 && !(rc == TEMPO_ENOTSUP && l->allow_unchecked)) {
        SDL_RWclose(rw);
        return check_fail(r, rc, &info);
    }
    if (SDL_RWseek(rw, 0, RW_SEEK_SET) != 0) {
        SDL_RWclose(rw);
        return tempo__loader_fail(r, TEMPO_EIO, "cannot seek %s: %s", r->path, tempo__loader_sdl_text("seek failed"));
    }
    plat_mutex_lock(mix_lock);
    SDL_ClearError();
    Mix_Music *m = Mix_LoadMUSType_RW(rw, music_type_for(info.format), 1); /* closes rw on failure */
    if (m == NULL)
        tempo__loader_fail(r, TEMPO_EFORMAT, "%s: %s", r->path,
                           tempo__loader_sdl_text("SDL_mixer could not decode it"));
    plat_mutex_unlock(mix_lock);
    r->music = m;
    return m ? 0 : r->error;
}

/* ---- Bytes and custom jobs ---------------------------------------------- */

/* [loader thread] */
static int load_bytes(tempo_loader *l, load_req *r, load_scratch *sc)
{
    (void)sc; /* the caller gets the buffer: a fresh one */
    unsigned char *buf;
    size_t len;
    int rc = tempo__loader_read_all(l, r, NULL, &buf, &len); /* the caller gets this buffer */
    if (rc < 0)
        return rc;
    r->data = buf;
    r->size = len;
    return 0;
}

/* [loader thread] */
static int run_custom(tempo_loader *l, load_req *r, load_scratch *sc)
{
    (void)sc;
    SDL_ClearError();
    void *result = NULL;
    int rc = r->work(&r->job, &result);
    r->custom = result;
    r->bytes = r->job.bytes;
    plat_mutex_lock(l->lock);
    tempo__loader_count_bytes(l, r, r->bytes);
    plat_mutex_unlock(l->lock);
    if (rc < 0)
        return tempo__loader_fail(r, rc, "%s", tempo__loader_sdl_text(tempo_strerror(rc)));
    return 0;
}

/* [loop thread] */
static void finalize_image(tempo_loader *l, load_req *r)
{
    if (l->renderer == NULL || r->surface == NULL)
        return; /* no renderer: the surface is the result */
    if (r->texture != NULL || tempo__loader_streamable(l, r)) {
        /* The rest of the rows (all of them when no strip went up yet). */
        tempo__loader_upload_rows(l, r, r->surface->h);
        SDL_FreeSurface(r->surface);
        r->surface = NULL;
    } else {
        SDL_ClearError();
        r->texture = SDL_CreateTextureFromSurface(l->renderer, r->surface);
        SDL_FreeSurface(r->surface);
        r->surface = NULL;
        if (r->texture == NULL)
            tempo__loader_fail(r, TEMPO_EPLATFORM, "%s: SDL_CreateTextureFromSurface: %s", r->path,
                               tempo__loader_sdl_text("failed"));
    }
}

static void release_custom(load_req *r);

/* [loop thread] */
static void finalize_custom(tempo_loader *l, load_req *r)
{
    (void)l;
    if (r->finalize == NULL)
        return;
    SDL_ClearError();
    int rc = r->finalize(&r->job, &r->custom);
    if (rc < 0) {
        tempo__loader_fail(r, rc, "%s", tempo__loader_sdl_text(tempo_strerror(rc)));
        release_custom(r);
    }
}

/* ---- Freeing results [loop thread] ---------------------------------------- */

static void release_image(load_req *r)
{
    if (r->texture)
        SDL_DestroyTexture(r->texture);
    if (r->surface)
        SDL_FreeSurface(r->surface);
    r->texture = NULL;
    r->surface = NULL;
}

static void release_sound(load_req *r)
{
    if (r->chunk)
        Mix_FreeChunk(r->chunk);
    r->chunk = NULL;
}

static void release_music(load_req *r)
{
    if (r->music)
        Mix_FreeMusic(r->music);
    r->music = NULL;
}

static void release_bytes(load_req *r)
{
    SDL_free(r->data);
    r->data = NULL;
    r->size = 0;
}

static void release_custom(load_req *r)
{
    if (r->custom && r->discard)
        r->discard(&r->job, r->custom);
    r->custom = NULL;
}

/* ---- The table ------------------------------------------------------------ */

static const load_format formats[] = {
    [TEMPO_LOAD_IMAGE] = {"image", true, load_image, finalize_image, release_image},
    [TEMPO_LOAD_SOUND] = {"sound", true, load_sound, NULL, release_sound},
    [TEMPO_LOAD_MUSIC] = {"music", true, load_music, NULL, release_music},
    [TEMPO_LOAD_BYTES] = {"bytes", true, load_bytes, NULL, release_bytes},
    [TEMPO_LOAD_CUSTOM] = {"custom job", false, run_custom, finalize_custom, release_custom},
};

const load_format *tempo__load_format_of(tempo_load_type type)
{
    if ((unsigned)type >= SDL_arraysize(formats) || formats[type].decode == NULL)
        return NULL;
    return &formats[type];
}
