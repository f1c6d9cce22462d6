/*
** pool.c -- resident worker threads for short parallel steps.
**
** One token of a Whisper decoder is some thirty small products of 20 to 100
** microseconds each. Handing each to a thread woken through the kernel (what
** DispatchQueue.concurrentPerform does) costs about as much as it saves, so
** a step would run on one core. Here the workers stay awake for a while
** after each job, spinning on a generation counter, and only then sleep on it
** (a futex): a busy decode loop hands work over in well under a microsecond,
** and a process with nothing to do burns nothing after WORKER_SPIN_NS.
**
** A job is published in the pool's own memory with a ticket: its generation
** and the next part to take, in one 64-bit word. The caller and the workers
** take parts by advancing the ticket (a worker with a compare-and-swap that
** names the generation it woke for, so one that wakes late cannot take a part
** of a later job), and the caller waits only for parts a worker has taken: a
** worker the scheduler has not run yet leaves its part to the caller instead
** of holding it up, which keeps a loaded machine from stalling the caller.
** One job at a time: a second thread calling while a job runs, or a part
** calling again (nesting), runs its parts itself, serially. Linux only
** (futex); elsewhere every job runs serially.
*/
#include "ib_kernels.h"

#include <stdatomic.h>
#include <stdint.h>
#include <time.h>
#ifdef __linux__
# include <limits.h>
# include <linux/futex.h>
# include <pthread.h>
# include <sched.h>
# include <sys/syscall.h>
# include <unistd.h>
#endif
#if defined(__x86_64__) || defined(__i386__)
# include <immintrin.h>
# define CPU_RELAX() _mm_pause()
#else
# define CPU_RELAX() ((void)0)
#endif

enum { MAX_WORKERS = 63 };
#define WORKER_SPIN_NS 100000LL   /* how long an idle worker spins before it sleeps */
#define CALLER_SPIN_NS 50000LL    /* how long a caller spins for a worker's part before it yields */

static struct {
    _Atomic int started;            /* workers running (set once, under the start lock) */
    _Atomic uint32_t generation;    /* bumped once per job; the futex word */
    _Atomic int sleeping;           /* workers inside futex wait */
    _Atomic uint64_t ticket;        /* generation << 32 | the next part to take */
    _Atomic int done;               /* parts finished */
    _Atomic uint64_t limit;         /* generation << 32 | the job's number of parts */
    atomic_flag busy;               /* a job is running */
    ib_pool_fn fn;                  /* written before the generation is bumped, read after a part is taken */
    void *ctx;
} pool = { .busy = ATOMIC_FLAG_INIT };

static _Thread_local int inside_pool;   /* a worker, or a caller running its parts */

static long long now_ns(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (long long)t.tv_sec * 1000000000LL + t.tv_nsec;
}

/* Takes the next part of job `generation`: its index, or -1 when none is left or a
** later job has replaced it. The number of parts is read with its generation: a
** worker late from a finished job, whose last look at the ticket was still that
** job's, must not count its parts against the next job's larger number (it would
** take a part past the end of its own job, run it with the next job's function,
** and the next job would run that part again). */
static int take_part(uint32_t generation) {
    uint64_t limit = atomic_load_explicit(&pool.limit, memory_order_acquire);
    if ((uint32_t)(limit >> 32) != generation) return -1;
    int parts = (int)(uint32_t)limit;
    uint64_t t = atomic_load_explicit(&pool.ticket, memory_order_acquire);
    for (;;) {
        if ((uint32_t)(t >> 32) != generation) return -1;
        int part = (int)(uint32_t)t;
        if (part >= parts) return -1;
        if (atomic_compare_exchange_weak_explicit(&pool.ticket, &t, t + 1, memory_order_acq_rel, memory_order_acquire))
            return part;
    }
}

static void run_parts(uint32_t generation) {
    for (int part; (part = take_part(generation)) >= 0;) {
        pool.fn(pool.ctx, part);
        atomic_fetch_add_explicit(&pool.done, 1, memory_order_release);
    }
}

static void serial(int parts, ib_pool_fn fn, void *ctx) {
    for (int part = 0; part < parts; part++) fn(ctx, part);
}

#ifdef __linux__
static void futex_wait(_Atomic uint32_t *word, uint32_t seen) {
    syscall(SYS_futex, (uint32_t *)word, FUTEX_WAIT_PRIVATE, seen, NULL, NULL, 0);
}

static void futex_wake_all(_Atomic uint32_t *word) {
    syscall(SYS_futex, (uint32_t *)word, FUTEX_WAKE_PRIVATE, INT_MAX, NULL, NULL, 0);
}

/* Waits for the generation to move past `seen`: spins for WORKER_SPIN_NS, then sleeps. */
static uint32_t await_job(uint32_t seen) {
    long long deadline = now_ns() + WORKER_SPIN_NS;
    for (int spins = 1;; spins++) {
        uint32_t g = atomic_load_explicit(&pool.generation, memory_order_acquire);
        if (g != seen) return g;
        if ((spins & 63) != 0 || now_ns() < deadline) { CPU_RELAX(); continue; }
        /* Announce the sleep before the last look: the caller bumps the generation and
        ** then reads `sleeping` (both sequentially consistent), so either it sees us
        ** and wakes us, or we see its new generation here or in the futex's own check. */
        atomic_fetch_add(&pool.sleeping, 1);
        if (atomic_load(&pool.generation) == seen) futex_wait(&pool.generation, seen);
        atomic_fetch_sub(&pool.sleeping, 1);
        deadline = now_ns() + WORKER_SPIN_NS;
    }
}

static void *worker_main(void *unused) {
    (void)unused;
    inside_pool = 1;
    uint32_t seen = 0;
    for (;;) {
        seen = await_job(seen);
        run_parts(seen);
    }
    return NULL;
}

/* Starts `workers` threads once; later calls keep the first count. Returns how many run. */
static int start_workers(int workers) {
    static pthread_mutex_t start_lock = PTHREAD_MUTEX_INITIALIZER;
    int started = atomic_load_explicit(&pool.started, memory_order_acquire);
    if (started != 0 || workers <= 0) return started;
    pthread_mutex_lock(&start_lock);
    started = atomic_load(&pool.started);
    if (started == 0) {
        if (workers > MAX_WORKERS) workers = MAX_WORKERS;
        pthread_attr_t attr;
        pthread_attr_init(&attr);
        pthread_attr_setdetachstate(&attr, PTHREAD_CREATE_DETACHED);
        pthread_attr_setstacksize(&attr, 1 << 20);
        for (int i = 0; i < workers; i++) {
            pthread_t thread;
            if (pthread_create(&thread, &attr, worker_main, NULL) != 0) break;
            started++;
        }
        pthread_attr_destroy(&attr);
        atomic_store(&pool.started, started > 0 ? started : -1);   /* -1: none could start */
    }
    pthread_mutex_unlock(&start_lock);
    return started;
}
#endif

void ib_pool_run(int threads, int parts, ib_pool_fn fn, void *ctx) {
    if (parts <= 0 || fn == NULL) return;
#ifdef __linux__
    if (parts == 1 || threads <= 1 || inside_pool || atomic_flag_test_and_set(&pool.busy)) { serial(parts, fn, ctx); return; }
    if (start_workers(threads - 1) <= 0) { atomic_flag_clear(&pool.busy); serial(parts, fn, ctx); return; }
    uint32_t generation = atomic_load_explicit(&pool.generation, memory_order_relaxed) + 1;
    /* The job's size under its own generation first: from here no late worker of the
    ** last job can take a part (take_part). */
    atomic_store_explicit(&pool.limit, (uint64_t)generation << 32 | (uint32_t)parts, memory_order_release);
    pool.fn = fn; pool.ctx = ctx;
    atomic_store_explicit(&pool.done, 0, memory_order_relaxed);
    atomic_store_explicit(&pool.ticket, (uint64_t)generation << 32, memory_order_release);
    atomic_store(&pool.generation, generation);              /* publishes the job (sequentially consistent) */
    if (atomic_load(&pool.sleeping) > 0) futex_wake_all(&pool.generation);
    inside_pool = 1;
    run_parts(generation);
    inside_pool = 0;
    long long deadline = 0;
    for (int spins = 1; atomic_load_explicit(&pool.done, memory_order_acquire) < parts; spins++) {
        if ((spins & 63) != 0) { CPU_RELAX(); continue; }
        if (deadline == 0) deadline = now_ns() + CALLER_SPIN_NS;
        else if (now_ns() >= deadline) sched_yield();       /* a worker preempted inside its part */
    }
    atomic_flag_clear(&pool.busy);
#else
    (void)threads;
    serial(parts, fn, ctx);
#endif
}
