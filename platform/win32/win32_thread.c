/* Threads and mutexes of the win32 backend.
 *
 * Threads start with _beginthreadex rather than CreateThread so the C
 * runtime's per-thread state (errno, strtok, locale) is set up and freed with
 * the thread. Mutexes are SRW locks: no kernel object, no allocation in the
 * lock path, and the fast path is one interlocked instruction. */
#include <errno.h>
#include <process.h>
#include <stdlib.h>
#include <string.h>

#include "plat_thread.h"
#include "tempo_internal.h"
#include "win32_internal.h"

struct plat_thread {
    HANDLE handle;
    int (*fn)(void *arg);
    void *arg;
};

struct plat_mutex {
    SRWLOCK lock;
};

/* SetThreadDescription exists from Windows 10 1607 on (and in wine 5+): look
 * it up so the backend still runs on older systems. Names show in
 * debuggers, profilers and crash dumps. */
typedef HRESULT(WINAPI *set_description_fn)(HANDLE thread, PCWSTR name);

static void name_thread(HANDLE thread, const char *name)
{
    static set_description_fn set_description;
    static bool looked_up; /* a racy double lookup finds the same address */
    if (!looked_up) {
        HMODULE k32 = GetModuleHandleW(L"kernel32.dll");
        if (k32 != NULL)
            set_description = (set_description_fn)(void (*)(void))GetProcAddress(k32, "SetThreadDescription");
        looked_up = true;
    }
    wchar_t wide[64];
    if (set_description != NULL && name != NULL &&
        MultiByteToWideChar(CP_UTF8, 0, name, -1, wide, (int)(sizeof wide / sizeof wide[0])) > 0)
        set_description(thread, wide);
}

/* [new thread] */
static unsigned __stdcall thread_start(void *p)
{
    plat_thread *t = p;
    return (unsigned)t->fn(t->arg);
}

plat_thread *plat_thread_create(int (*fn)(void *arg), const char *name, void *arg)
{
    plat_thread *t = calloc(1, sizeof *t);
    if (t == NULL) {
        tempo__set_error(TEMPO_ENOMEM, "thread %s: out of memory", name);
        return NULL;
    }
    t->fn = fn;
    t->arg = arg;
    /* Created suspended so the handle is stored before the thread can run. */
    uintptr_t h = _beginthreadex(NULL, 0, thread_start, t, CREATE_SUSPENDED, NULL);
    if (h == 0) {
        tempo__set_error(TEMPO_EPLATFORM, "_beginthreadex(%s): %s", name, strerror(errno));
        free(t);
        return NULL;
    }
    t->handle = (HANDLE)h;
    name_thread(t->handle, name);
    ResumeThread(t->handle);
    return t;
}

int plat_thread_join(plat_thread *t)
{
    DWORD code = 0;
    if (WaitForSingleObject(t->handle, INFINITE) != WAIT_OBJECT_0 ||
        !GetExitCodeThread(t->handle, &code))
        win32__error(TEMPO_EPLATFORM, "thread join");
    CloseHandle(t->handle);
    free(t);
    return (int)code;
}

int plat_thread_set_background(void)
{
    if (!SetThreadPriority(GetCurrentThread(), THREAD_PRIORITY_LOWEST))
        return tempo__set_error_at(TEMPO_LOG_DEBUG, TEMPO_EPLATFORM,
                                   "background thread: SetThreadPriority(LOWEST): error %lu", GetLastError());
    return 0;
}

/* Windows' priorities are strict: a ready thread of a higher priority
 * always runs first, so a background thread has no turn to give up. */
void plat_thread_background_yield(bool woke)
{
    (void)woke;
}

plat_mutex *plat_mutex_create(void)
{
    plat_mutex *m = malloc(sizeof *m);
    if (m == NULL) {
        tempo__set_error(TEMPO_ENOMEM, "mutex: out of memory");
        return NULL;
    }
    InitializeSRWLock(&m->lock);
    return m;
}

void plat_mutex_destroy(plat_mutex *m)
{
    free(m); /* SRW locks hold no resources */
}

void plat_mutex_lock(plat_mutex *m)
{
    AcquireSRWLockExclusive(&m->lock);
}

void plat_mutex_unlock(plat_mutex *m)
{
    ReleaseSRWLockExclusive(&m->lock);
}

int plat_thread_cpu_ns(uint64_t *out_ns)
{
    FILETIME created, exited, kernel, user;
    if (!GetThreadTimes(GetCurrentThread(), &created, &exited, &kernel, &user))
        return win32__error(TEMPO_EPLATFORM, "GetThreadTimes");
    uint64_t k = ((uint64_t)kernel.dwHighDateTime << 32) | kernel.dwLowDateTime;
    uint64_t u = ((uint64_t)user.dwHighDateTime << 32) | user.dwLowDateTime;
    *out_ns = (k + u) * 100u; /* FILETIME counts 100 ns units */
    return 0;
}
