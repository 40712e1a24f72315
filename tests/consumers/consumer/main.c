/* A game's first Tempo program, built by tests/consumers/consumer/meson.build (a
 * meson subproject) and tests/consumers/cmake-consumer (find_package after install).
 * It includes only <tempo/tempo.h> plus the SDL libraries the loader hands
 * results back in, which dependency('tempo') / tempo::tempo must provide:
 * compiling and linking this is most of the test. */
#include <stdio.h>

#include <SDL_image.h>
#include <SDL_mixer.h>
#include <tempo/tempo.h>
#if TEMPO_HAVE_NET
#include <SDL_net.h>
#endif

static int passed, failed;

static void check(int ok, const char *what)
{
    printf("%s: %s\n", ok ? "ok" : "FAILED", what);
    if (ok)
        passed++;
    else
        failed++;
}

int main(void)
{
    /* tempo/wait.h: a real one-shot timer and a wait. */
    tempo_handle *t = tempo_timer_create(false);
    uint64_t due = tempo_now_ns() + TEMPO_NS_PER_MS;
    tempo_timer_set(t, due, 0);
    int r = tempo_wait(&t, 1, TEMPO_INFINITE, 0);
    check(r == 0 && tempo_now_ns() >= due, "timer wait");
    tempo_timer_destroy(t);

    /* tempo/debugdraw.h through tempo.h; text_size needs no renderer. */
    int w = 0, h = 0;
    tempo_debug_text_size("tempo", 2, &w, &h);
    check(w == 5 * TEMPO_DEBUG_GLYPH_W * 2 && h == TEMPO_DEBUG_GLYPH_H * 2, "tempo_debug_text_size");

    /* What a loader result is freed with: SDL2_mixer and SDL2_image must
     * come with the dependency (NULL is a documented no-op for both). */
    Mix_FreeChunk(NULL);
    SDL_FreeSurface(NULL);
    check(IMG_Linked_Version() != NULL && Mix_Linked_Version() != NULL, "SDL2_image and SDL2_mixer linked");

#if TEMPO_HAVE_NET
    /* tempo/net.h through tempo.h, and SDL2_net with it. */
    check(TEMPO_NET_HEADER_BYTES == 8 && SDLNet_Linked_Version() != NULL, "tempo/net.h and SDL2_net");
#endif

    /* tempo/determinism.h: the probe runs in this file, with its flags. */
    char fp[256];
    tempo_fingerprint_describe(tempo_fingerprint(), fp, sizeof fp);
    printf("%s\n", fp);
    printf("build: %s\n", TEMPO_BUILD_IDENTITY);
#ifdef MYGAME_FP_OPT_OUT
    /* Tempo configured with -Ddeterministic_consumers=false: whatever the compiler does. */
    check(tempo_fingerprint() != 0, "tempo_fingerprint");
#else
    /* dependency('tempo') / tempo::tempo carry the flags by default, and
     * tempo-deterministic / tempo::deterministic always: no fusing, no x87. */
    check(tempo_fingerprint() == TEMPO_FINGERPRINT_PORTABLE, "a portable fingerprint by default");
#endif

    tempo_shutdown();
    printf("%d passed, %d failed\n", passed, failed);
    return failed ? 1 : 0;
}
