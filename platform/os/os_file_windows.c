/* The file seam of os.h on Windows: CreateFileW on the UTF-16 form of the
 * path, keeping only disk files. */
#define WIN32_LEAN_AND_MEAN
#include <windows.h>

#include <errno.h>
#include <stdlib.h>

#include "os.h"

struct os_file {
    HANDLE h;
};

/* The errno value for a Win32 error, for the reasons an open or read fails
 * in practice; 0 for the rest. */
static int errno_of(DWORD e)
{
    switch (e) {
    case ERROR_FILE_NOT_FOUND:
    case ERROR_PATH_NOT_FOUND:
    case ERROR_INVALID_DRIVE:
    case ERROR_BAD_NETPATH:
        return ENOENT;
    case ERROR_ACCESS_DENIED:
    case ERROR_SHARING_VIOLATION:
    case ERROR_LOCK_VIOLATION:
        return EACCES;
    case ERROR_FILENAME_EXCED_RANGE:
        return ENAMETOOLONG;
    case ERROR_INVALID_NAME:
        return EINVAL;
    case ERROR_TOO_MANY_OPEN_FILES:
        return EMFILE;
    case ERROR_NOT_ENOUGH_MEMORY:
    case ERROR_OUTOFMEMORY:
        return ENOMEM;
    default:
        return 0;
    }
}

os_file *os_file_open_read(const char *path, int *err)
{
    *err = 0;
    int n = MultiByteToWideChar(CP_UTF8, MB_ERR_INVALID_CHARS, path, -1, NULL, 0);
    if (n <= 0) {
        *err = EINVAL; /* not UTF-8 */
        return NULL;
    }
    WCHAR *wpath = malloc((size_t)n * sizeof *wpath);
    if (wpath == NULL) {
        *err = ENOMEM;
        return NULL;
    }
    MultiByteToWideChar(CP_UTF8, 0, path, -1, wpath, n);
    /* Share mode and flags as SDL_RWFromFile(path, "rb") used them. CreateFile
     * never waits on a named pipe (a busy one fails); a read from a connected
     * one would, so only disk files are kept. */
    HANDLE h = CreateFileW(wpath, GENERIC_READ, FILE_SHARE_READ, NULL, OPEN_EXISTING, FILE_ATTRIBUTE_NORMAL, NULL);
    if (h == INVALID_HANDLE_VALUE) {
        DWORD e = GetLastError();
        /* A directory cannot be opened this way (access denied): report it
         * as what it is, as on POSIX. */
        DWORD attr = GetFileAttributesW(wpath);
        free(wpath);
        if (e == ERROR_ACCESS_DENIED && attr != INVALID_FILE_ATTRIBUTES && (attr & FILE_ATTRIBUTE_DIRECTORY))
            *err = OS_FILE_NOT_REGULAR;
        else
            *err = errno_of(e);
        return NULL;
    }
    free(wpath);
    if (GetFileType(h) != FILE_TYPE_DISK) {
        CloseHandle(h);
        *err = OS_FILE_NOT_REGULAR;
        return NULL;
    }
    os_file *f = malloc(sizeof *f);
    if (f == NULL) {
        CloseHandle(h);
        *err = ENOMEM;
        return NULL;
    }
    f->h = h;
    return f;
}

int64_t os_file_read(os_file *f, void *buf, size_t len, int *err)
{
    DWORD want = len > 0x40000000u ? 0x40000000u : (DWORD)len; /* ReadFile counts in a DWORD */
    DWORD got = 0;
    if (!ReadFile(f->h, buf, want, &got, NULL)) {
        *err = errno_of(GetLastError());
        if (*err == 0)
            *err = EIO;
        return -1;
    }
    return got;
}

int64_t os_file_seek(os_file *f, int64_t offset, int whence)
{
    static const DWORD how[3] = {FILE_BEGIN, FILE_CURRENT, FILE_END};
    if (whence < 0 || whence > 2)
        return -1;
    LARGE_INTEGER to, at;
    to.QuadPart = offset;
    if (!SetFilePointerEx(f->h, to, &at, how[whence]))
        return -1;
    return at.QuadPart;
}

void os_file_close(os_file *f)
{
    if (f == NULL)
        return;
    CloseHandle(f->h);
    free(f);
}
