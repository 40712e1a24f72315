/* A game's own SDL_mixer pointers go into Tempo's API and come out of it with no cast, on
 * SDL_mixer 2.6 (struct _Mix_Music) and 2.8 (struct Mix_Music) alike (issue 36): built with
 * -Werror=incompatible-pointer-types, and building it is the test. Before, the public headers
 * forward-declared `struct _Mix_Music`, which is not Mix_Music on 2.8 (gcc 14 makes the
 * mismatch an error even without -Werror). */
#include <tempo/tempo.h>

static int play_both(tempo_audio *au, const tempo_load_result *res)
{
    Mix_Music *music = res->music; /* what a loaded music is, as the game declares it */
    Mix_Chunk *chunk = res->chunk;
    int rc = tempo_audio_play_music(au, music, 0);
    return rc != 0 ? rc : tempo_audio_play(au, -1, chunk, 0);
}

int main(int argc, char *argv[])
{
    (void)argv;
    /* Never runs the calls (no audio device here); the types are the point. */
    return argc > 99 ? play_both(NULL, NULL) : 0;
}
