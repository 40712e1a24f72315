/* Opening asset files without blocking (plat_file_open_read) on the win32
 * backend: through SDL's RWops (UTF-8 paths, CreateFileW), keeping only
 * disk files. */
#include <SDL.h>

#include "platform.h"
#include "win32_internal.h"

struct SDL_RWops *plat_file_open_read(const char *path, bool *not_regular)
{
    *not_regular = false;
    /* CreateFile never waits on a named pipe (a busy one fails); a read
     * from a connected one would, so only disk files are kept. */
    SDL_RWops *rw = SDL_RWFromFile(path, "rb");
    if (rw != NULL && rw->type == SDL_RWOPS_WINFILE && GetFileType(rw->hidden.windowsio.h) != FILE_TYPE_DISK) {
        SDL_RWclose(rw);
        *not_regular = true;
        return NULL;
    }
    return rw;
}
