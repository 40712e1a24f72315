/* libFuzzer target for the whole asset load path: the input is written to a
 * file and loaded through the public loader API as an image, a sound and
 * music (the checks, then SDL_image / SDL_mixer decoding it), all in one
 * ASan+UBSan process (the Tempo sources are compiled into this target, so
 * they are instrumented; the SDL libraries are not, but ASan still sees
 * their heap through its malloc and memcpy interceptors).
 *
 *   CC=clang meson setup build-fuzz -Dsamples=disabled
 *   ninja -C build-fuzz tests/fuzz/fuzz_asset_load tests/fuzz/make_asset_seeds
 *   build-fuzz/tests/fuzz/make_asset_seeds build-fuzz/corpus-asset-load
 *   build-fuzz/tests/fuzz/fuzz_asset_load -max_total_time=30 -malloc_limit_mb=256 build-fuzz/corpus-asset-load
 *
 * A crash, a hang (-timeout) or one allocation above -malloc_limit_mb is a
 * finding: the loader promises a per-request error for every bad file. The
 * loader's image limit is lowered to 1 Mpx so valid-but-large inputs stay
 * fast; the checks judge against that limit like any other. The file is
 * named .tga so the TGA path (chosen by name) is reached as well. Music is
 * opened, not played: SDL_mixer's WAV/AIFF reader does its parsing there. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <SDL.h>
#include <SDL_image.h>
#include <SDL_mixer.h>

#include "tempo/loader.h"

int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static tempo_loader *loader;
static char path[256];

static void on_done(tempo_loader *l, const tempo_load_result *r, void *user)
{
    (void)l;
    (void)user;
    if (r->surface)
        SDL_FreeSurface(r->surface);
    if (r->chunk)
        Mix_FreeChunk(r->chunk);
    if (r->music)
        Mix_FreeMusic(r->music);
}

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
    (void)argc;
    (void)argv;
    SDL_setenv("SDL_AUDIODRIVER", "dummy", 1);
    if (SDL_Init(SDL_INIT_AUDIO) != 0 || Mix_OpenAudio(44100, AUDIO_S16SYS, 2, 1024) != 0) {
        fprintf(stderr, "fuzz_asset_load: no dummy audio: %s\n", SDL_GetError());
        exit(1);
    }
    Mix_Init(MIX_INIT_FLAC | MIX_INIT_MP3 | MIX_INIT_OGG | MIX_INIT_MID | MIX_INIT_OPUS);
    SDL_LogSetPriority(SDL_LOG_CATEGORY_APPLICATION, SDL_LOG_PRIORITY_ERROR);
    const char *dir = access("/dev/shm", W_OK) == 0 ? "/dev/shm" : "/tmp";
    snprintf(path, sizeof path, "%s/tempo-fuzz-asset-%ld.tga", dir, (long)getpid());
    loader = tempo_loader_create(&(tempo_loader_desc){.max_texture_size = 4096, .max_image_pixels = 1 << 20});
    if (loader == NULL) {
        fprintf(stderr, "fuzz_asset_load: %s\n", tempo_get_error());
        exit(1);
    }
    return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    FILE *f = fopen(path, "wb");
    if (f == NULL)
        abort();
    fwrite(data, 1, size, f);
    fclose(f);
    static const tempo_load_type types[] = {TEMPO_LOAD_IMAGE, TEMPO_LOAD_SOUND, TEMPO_LOAD_MUSIC};
    for (int i = 0; i < 3; i++)
        if (tempo_loader_submit(loader, &(tempo_load_request){.type = types[i], .path = path, .done = on_done}) == 0)
            abort();
    if (tempo_loader_wait_idle(loader, TEMPO_INFINITE) != 0)
        abort();
    while (tempo_loader_process(loader) > 0)
        ;
    remove(path);
    return 0;
}
