/* File watches on the win32 backend: ReadDirectoryChangesW on the directory,
 * overlapped, whose OVERLAPPED event is the handle's kernel object
 * (win32__handle_wrap), so the wait has it in its MsgWaitForMultipleObjectsEx
 * set like any event. The kernel signals it when a read completes; reading
 * the notices issues the next read, which resets it.
 *
 * Notices: names changed (created, deleted, renamed: FILE_NAME), and
 * writes (LAST_WRITE, SIZE). Windows reports a save in progress as several
 * of these; the framework waits for them to settle. */
#include <stdlib.h>

#include "plat_file.h"
#include "plat_wait.h"
#include "tempo_internal.h"
#include "win32_internal.h"

#define NOTIFY_FILTER (FILE_NOTIFY_CHANGE_FILE_NAME | FILE_NOTIFY_CHANGE_LAST_WRITE | FILE_NOTIFY_CHANGE_SIZE)
#define BUF_BYTES 16384 /* under 64 KiB: the limit for directories on a network share */

typedef struct filewatch {
    HANDLE dir;
    OVERLAPPED ov; /* hEvent: the handle's event */
    bool pending;  /* a read is issued and not yet collected */
    DWORD buf[BUF_BYTES / sizeof(DWORD)]; /* FILE_NOTIFY_INFORMATION needs DWORD alignment */
} filewatch;

/* Issues the next read; the kernel resets the event as it starts. */
static int issue(filewatch *fw)
{
    if (!ReadDirectoryChangesW(fw->dir, fw->buf, sizeof fw->buf, FALSE, NOTIFY_FILTER, NULL, &fw->ov, NULL)) {
        fw->pending = false;
        return win32__error(TEMPO_EPLATFORM, "ReadDirectoryChangesW");
    }
    fw->pending = true;
    return 0;
}

/* [plat_handle_destroy] Cancels the read in flight and waits for it to end
 * (the kernel writes into buf until then), then closes the directory. */
static void filewatch_close(void *ext)
{
    filewatch *fw = ext;
    if (fw->pending) {
        DWORD n;
        CancelIoEx(fw->dir, &fw->ov);
        GetOverlappedResult(fw->dir, &fw->ov, &n, TRUE);
    }
    CloseHandle(fw->dir);
    free(fw);
}

static wchar_t *widen(const char *utf8)
{
    int n = MultiByteToWideChar(CP_UTF8, 0, utf8, -1, NULL, 0);
    wchar_t *w = n > 0 ? malloc((size_t)n * sizeof *w) : NULL;
    if (w != NULL && MultiByteToWideChar(CP_UTF8, 0, utf8, -1, w, n) != n) {
        free(w);
        w = NULL;
    }
    return w;
}

plat_handle *plat_filewatch_create(const char *dir)
{
    wchar_t *wdir = widen(dir);
    if (wdir == NULL) {
        tempo__set_error(TEMPO_EINVAL, "file watch: %s is not valid UTF-8 (or out of memory)", dir);
        return NULL;
    }
    filewatch *fw = calloc(1, sizeof *fw);
    if (fw == NULL) {
        free(wdir);
        tempo__set_error(TEMPO_ENOMEM, "file watch: out of memory");
        return NULL;
    }
    fw->dir = CreateFileW(wdir, FILE_LIST_DIRECTORY, FILE_SHARE_READ | FILE_SHARE_WRITE | FILE_SHARE_DELETE, NULL,
                          OPEN_EXISTING, FILE_FLAG_BACKUP_SEMANTICS | FILE_FLAG_OVERLAPPED, NULL);
    free(wdir);
    if (fw->dir == INVALID_HANDLE_VALUE) {
        DWORD err = GetLastError();
        free(fw);
        if (err == ERROR_FILE_NOT_FOUND || err == ERROR_PATH_NOT_FOUND || err == ERROR_DIRECTORY)
            tempo__set_error_at(TEMPO_LOG_DEBUG, TEMPO_ENOENT, "file watch: no directory %s", dir);
        else
            win32__error(TEMPO_EPLATFORM, "CreateFileW (file watch directory)");
        return NULL;
    }
    fw->ov.hEvent = CreateEventW(NULL, TRUE, FALSE, NULL);
    if (fw->ov.hEvent == NULL) {
        win32__error(TEMPO_EPLATFORM, "CreateEventW");
        CloseHandle(fw->dir);
        free(fw);
        return NULL;
    }
    HANDLE ev = fw->ov.hEvent;
    if (issue(fw) < 0) {
        CloseHandle(ev);
        CloseHandle(fw->dir);
        free(fw);
        return NULL;
    }
    plat_handle *h = win32__handle_wrap(PLAT_HANDLE_FILEWATCH, ev, fw, filewatch_close);
    if (h == NULL) {
        filewatch_close(fw);
        CloseHandle(ev);
    }
    return h;
}

int plat_filewatch_read(plat_handle *h, plat_filewatch_fn fn, void *user)
{
    filewatch *fw = win32__handle_ext(h);
    if (fw == NULL)
        return 0; /* destroyed meanwhile */
    if (!fw->pending)
        return issue(fw); /* an earlier re-issue failed: try again */
    DWORD got = 0;
    if (!GetOverlappedResult(fw->dir, &fw->ov, &got, FALSE)) {
        DWORD err = GetLastError();
        if (err == ERROR_IO_INCOMPLETE)
            return 0; /* nothing yet */
        fw->pending = false;
        if (err != ERROR_NOTIFY_ENUM_DIR) {
            int r = win32__error(TEMPO_EPLATFORM, "ReadDirectoryChangesW (result)");
            issue(fw);
            return r;
        }
        got = 0; /* the kernel's buffer overflowed: anything may have changed */
    }
    fw->pending = false;
    int count = 0;
    if (got == 0) {
        fn(NULL, user);
        count++;
    } else {
        const char *p = (const char *)fw->buf;
        for (;;) {
            const FILE_NOTIFY_INFORMATION *info = (const FILE_NOTIFY_INFORMATION *)(const void *)p;
            int wlen = (int)(info->FileNameLength / sizeof(WCHAR));
            char name[MAX_PATH * 4];
            int n = WideCharToMultiByte(CP_UTF8, 0, info->FileName, wlen, name, (int)sizeof name - 1, NULL, NULL);
            if (n > 0) {
                name[n] = '\0';
                fn(name, user);
                count++;
            }
            if (info->NextEntryOffset == 0)
                break;
            p += info->NextEntryOffset;
        }
    }
    int r = issue(fw);
    return r < 0 ? r : count;
}
