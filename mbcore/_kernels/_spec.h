/* Speculative block passes: the exact online pass on several cores.
 *
 * A mistake-driven learner changes its state only on some rows (a mistake, a margin mistake).
 * Between two such rows every prediction is a pure function of the same state, so a block of
 * rows ahead can be judged at once, split between threads, each row by the very arithmetic the
 * sequential pass would use on it.  The first row of the block that would change the state (or
 * that is bad) is the only place where the sequential pass would do anything but predict: the
 * driver lets the sequential code process that row (predict, update, count), then judges the
 * next block from the row after it.  Rows judged after a changing row are judged again later,
 * from the new state.  Every prediction used therefore comes from the state, and the arithmetic,
 * of the sequential pass: the results are the same, bit for bit, whatever the number of threads.
 *
 * The learner supplies two functions of its context:
 *   scan(ctx, slot, lo, hi, stop): judge rows lo..hi-1 with the current state (read only; slot
 *       is the thread's index, for its scratch), write the outputs of the rows that change
 *       nothing (prediction, update flag 0), and return the first row that would change the
 *       state or is bad, or hi.  It may return hi early once *stop < lo (an earlier row was
 *       found: this slice cannot matter); it must never write the state.
 *   run(ctx, lo, hi, bad): the sequential pass over rows lo..hi-1 (outputs, counts, updates);
 *       returns the number of rows that changed the state, or -1 with *bad = the failing row.
 * The driver (mb_spec_pass) alternates them; with one thread it is run(ctx, 0, n).  While the
 * mistakes are dense (the first stretch of a stream) it runs the sequential pass in stretches
 * and speculates again once they thin out, so nothing is lost where speculation cannot pay.
 *
 * Threads: a team lives for one pass (created at its start, joined at its end); the workers
 * spin briefly between blocks, then sleep on a condition variable.  When they fall behind
 * (their cores busy with other work), the pass runs sequentially for a while.  No global state: passes in
 * several Python threads at once each have their own team.  Without POSIX threads (MSVC) the
 * pass runs on one thread.
 *
 * Row splitting (mb_spec_pass_split, for learners whose rows are large: K classes).  While the
 * changes are dense, the sequential stretches can still use the other threads, inside each
 * row: the learner cuts the row's work into `parts` independent parts (each computed by the same
 * arithmetic, whoever computes it: partial sums of their own), and its run calls mb_split_row
 * for each row whose work is to be split.  The driver lends the team to the stretch (job kind
 * 2: the workers spin on the row counter `seq` and claim their part of each new row); the
 * caller computes part 0, then each other part its worker has not claimed yet (a worker that
 * is late, its core busy, loses its part: "stolen"), and waits for the claimed ones.  A part
 * is claimed once per row (an atomic exchange), so every part is computed exactly once, by the
 * same arithmetic, and the results do not depend on who computed it.  When parts keep being
 * stolen, the stretches run without splitting for a while (the back-off of late blocks).
 */
#ifndef MBCORE_SPEC_H
#define MBCORE_SPEC_H

#include <stddef.h>
#include <stdlib.h>
#include <string.h>
/* (included after Python.h by the generated C: Py_ssize_t is the kernels' index type) */

#if !defined(_WIN32) && (defined(__GNUC__) || defined(__clang__))
#define MB_SPEC_THREADS 1
#include <pthread.h>
#include <sched.h>
#include <time.h>
#else
#define MB_SPEC_THREADS 0
#endif

#define MB_SPEC_MAXT 64

/* A read of the shared "stop" row that the compiler may not hoist out of a loop. */
static inline Py_ssize_t mb_volatile_load(const Py_ssize_t* p)
{
#if defined(__GNUC__) || defined(__clang__)
    return __atomic_load_n(p, __ATOMIC_RELAXED);
#else
    return *(const volatile Py_ssize_t*)p;
#endif
}

/* A value one thread publishes for another: the store after the writes it stands for, the load
 * before the reads that rely on them (the read-ahead's checked rows). */
static inline void mb_store_release(Py_ssize_t* p, Py_ssize_t v)
{
#if defined(__GNUC__) || defined(__clang__)
    __atomic_store_n(p, v, __ATOMIC_RELEASE);
#else
    *(volatile Py_ssize_t*)p = v;
#endif
}

static inline Py_ssize_t mb_load_acquire(const Py_ssize_t* p)
{
#if defined(__GNUC__) || defined(__clang__)
    return __atomic_load_n(p, __ATOMIC_ACQUIRE);
#else
    return *(const volatile Py_ssize_t*)p;
#endif
}

/* A counter several passes may add to at once (statistics for the tests). */
static inline void mb_atomic_add(Py_ssize_t* p, Py_ssize_t v)
{
#if defined(__GNUC__) || defined(__clang__)
    __atomic_fetch_add(p, v, __ATOMIC_RELAXED);
#else
    *(volatile Py_ssize_t*)p += v;
#endif
}

typedef Py_ssize_t (*mb_scan_fn)(void* ctx, int slot, Py_ssize_t lo, Py_ssize_t hi,
                                const Py_ssize_t* stop);
typedef Py_ssize_t (*mb_run_fn)(void* ctx, Py_ssize_t lo, Py_ssize_t hi, Py_ssize_t* bad);
typedef void (*mb_touch_fn)(void* ctx, Py_ssize_t lo, Py_ssize_t hi);

/* Read nbytes from p, a load per cache line, so that they are in the caches when needed. */
static void mb_touch_bytes(const void* p, Py_ssize_t nbytes)
{
    const volatile unsigned char* b = (const volatile unsigned char*)p;
    Py_ssize_t k;
    unsigned char acc = 0;
    for (k = 0; k < nbytes; k += 64)
        acc ^= b[k];
    if (nbytes > 0)
        acc ^= b[nbytes - 1];
    (void)acc;
}

typedef Py_ssize_t (*mb_part_fn)(void* ctx, int part);

/* The channel of row splitting (see the header comment); one per pass, made by mb_split_new. */
typedef struct {
    long long claim;                    /* the last row whose part was claimed (atomic) */
    long long done;                     /* the last row whose part is done (atomic) */
    char pad[64 - 2 * sizeof(long long)];
} mb_split_slot;

typedef struct {
    mb_split_slot slot[MB_SPEC_MAXT];   /* per part (cache-line aligned, one line each) */
    long long seq;                      /* the row being split (atomic; only the caller writes) */
    int stop;                           /* end of the workers' service (read after seq) */
    char pad[64 - sizeof(long long) - sizeof(int)];
    /* the caller's (and the driver's) */
    mb_part_fn part;                    /* part(ctx, p): compute part p of the current row */
    void* ctx;
    int parts;                          /* parts per row (2 .. MB_SPEC_MAXT) */
    int serving;                        /* whether the team serves the current stretch */
    int bail;                           /* a worker kept the caller waiting: split no more rows
                                         * of this stretch (mb_split_serving says 0) */
    long long rows;                     /* rows split */
    long long steals;                   /* parts that the caller computed for a late worker */
    long long stretches;                /* stretches served (and those refused: late) */
    long long late;
} mb_split;

#if MB_SPEC_THREADS

typedef struct mb_team mb_team;
typedef struct {
    mb_team* team;
    int slot;
} mb_slot;

struct mb_team {
    int n;                              /* threads at work, the caller's included */
    mb_scan_fn scan;
    mb_touch_fn touch;                  /* or NULL */
    int kind;                           /* this job: 0 judge rows, 1 touch rows, 2 split rows */
    mb_split* split;                    /* (kind 2) the channel, and its row count at the start */
    long long split_seen;
    void* ctx;
    Py_ssize_t bounds[MB_SPEC_MAXT + 1]; /* slice k is rows bounds[k]..bounds[k+1]-1 */
    Py_ssize_t res[MB_SPEC_MAXT];
    long gen;                           /* the job's number (atomic) */
    int done;                           /* workers done with this job (atomic) */
    int quit;
    int sleepers;
    Py_ssize_t stop;                     /* the earliest changing row found in this job */
    pthread_mutex_t mu;
    pthread_cond_t cv;
    pthread_t tid[MB_SPEC_MAXT];
    mb_slot slots[MB_SPEC_MAXT];
};

/* Waits: MB_SPIN pauses (a block takes microseconds), then yields (more threads than free
 * cores: let the one being waited for run), then a worker sleeps until the next block. */
#ifndef MB_SPIN
#define MB_SPIN 512
#endif
#ifndef MB_YIELDS
#define MB_YIELDS 4096
#endif

static inline void mb_pause(void)
{
#if defined(__x86_64__) || defined(__i386__)
    __builtin_ia32_pause();
#elif defined(__aarch64__)
    __asm__ __volatile__("yield");
#endif
}

static inline void mb_stop_at(Py_ssize_t* stop, Py_ssize_t r)
{
    Py_ssize_t cur = __atomic_load_n(stop, __ATOMIC_RELAXED);
    while (r < cur && !__atomic_compare_exchange_n(stop, &cur, r, 1, __ATOMIC_RELAXED,
                                                   __ATOMIC_RELAXED)) {
    }
}

/* A worker's service of a split stretch (job kind 2): claim and compute part `slot` of each new
 * row until the caller stops the service. */
static void mb_split_serve(mb_split* sp, int slot, long long seen)
{
    long long s, c;
    int spins;
    for (;;) {
        spins = 0;
        while ((s = __atomic_load_n(&sp->seq, __ATOMIC_ACQUIRE)) == seen) {
            if (++spins < MB_SPIN)
                mb_pause();
            else
                sched_yield();          /* (the caller's core may be this one) */
        }
        if (__atomic_load_n(&sp->stop, __ATOMIC_ACQUIRE))
            return;
        seen = s;
        if (slot >= sp->parts)
            continue;
        c = __atomic_load_n(&sp->slot[slot].claim, __ATOMIC_ACQUIRE);
        if (c < s && __atomic_compare_exchange_n(&sp->slot[slot].claim, &c, s, 0,
                                                 __ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE)) {
            sp->part(sp->ctx, slot);
            __atomic_store_n(&sp->slot[slot].done, s, __ATOMIC_RELEASE);
        }
    }
}

static void* mb_worker(void* arg)
{
    mb_slot* s = (mb_slot*)arg;
    mb_team* t = s->team;
    long seen = 0, g;
    int k, spins;
    Py_ssize_t lo, hi, r;
    for (;;) {
        spins = 0;
        while ((g = __atomic_load_n(&t->gen, __ATOMIC_ACQUIRE)) == seen) {
            if (++spins < MB_SPIN) {
                mb_pause();
            } else if (spins < MB_SPIN + MB_YIELDS) {
                sched_yield();
            } else {
                pthread_mutex_lock(&t->mu);
                __atomic_fetch_add(&t->sleepers, 1, __ATOMIC_SEQ_CST);
                while (__atomic_load_n(&t->gen, __ATOMIC_SEQ_CST) == seen)
                    pthread_cond_wait(&t->cv, &t->mu);
                __atomic_fetch_sub(&t->sleepers, 1, __ATOMIC_SEQ_CST);
                pthread_mutex_unlock(&t->mu);
                spins = 0;
            }
        }
        seen = g;
        if (__atomic_load_n(&t->quit, __ATOMIC_ACQUIRE))
            return NULL;
        k = s->slot;
        lo = t->bounds[k];
        hi = t->bounds[k + 1];
        if (t->kind == 1) {
            if (lo < hi)
                t->touch(t->ctx, lo, hi);
            __atomic_fetch_add(&t->done, 1, __ATOMIC_RELEASE);
            continue;
        }
        if (t->kind == 2) {
            mb_split_serve(t->split, k, t->split_seen);
            __atomic_fetch_add(&t->done, 1, __ATOMIC_RELEASE);
            continue;
        }
        r = lo < hi ? t->scan(t->ctx, k, lo, hi, &t->stop) : hi;
        t->res[k] = r;
        if (r < hi)
            mb_stop_at(&t->stop, r);
        __atomic_fetch_add(&t->done, 1, __ATOMIC_RELEASE);
    }
}

static void mb_team_publish(mb_team* t)
{
    __atomic_fetch_add(&t->gen, 1, __ATOMIC_SEQ_CST);
    if (__atomic_load_n(&t->sleepers, __ATOMIC_SEQ_CST) > 0) {
        pthread_mutex_lock(&t->mu);
        pthread_cond_broadcast(&t->cv);
        pthread_mutex_unlock(&t->mu);
    }
}

/* Start n - 1 workers (fewer if the system refuses some); t->n says how many threads work. */
static void mb_team_start(mb_team* t, int n, mb_scan_fn scan, mb_touch_fn touch, void* ctx)
{
    int k;
    t->n = 1;
    t->scan = scan;
    t->touch = touch;
    t->kind = 0;
    t->ctx = ctx;
    t->gen = 0;
    t->done = 0;
    t->quit = 0;
    t->sleepers = 0;
    t->stop = 0;
    pthread_mutex_init(&t->mu, NULL);
    pthread_cond_init(&t->cv, NULL);
    if (n > MB_SPEC_MAXT)
        n = MB_SPEC_MAXT;
    for (k = 1; k < n; k++) {
        t->slots[k].team = t;
        t->slots[k].slot = k;
        if (pthread_create(&t->tid[k], NULL, mb_worker, &t->slots[k]) != 0)
            break;
        t->n = k + 1;
    }
    __atomic_store_n(&t->done, t->n - 1, __ATOMIC_RELEASE);     /* (no job outstanding) */
}

/* Whether every worker is done with the last job. */
static int mb_team_idle(mb_team* t)
{
    return __atomic_load_n(&t->done, __ATOMIC_ACQUIRE) == t->n - 1;
}

static double mb_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static void mb_team_stop(mb_team* t)
{
    int k;
    __atomic_store_n(&t->quit, 1, __ATOMIC_RELEASE);
    mb_team_publish(t);
    for (k = 1; k < t->n; k++)
        pthread_join(t->tid[k], NULL);
    pthread_mutex_destroy(&t->mu);
    pthread_cond_destroy(&t->cv);
}

static void mb_team_wait(mb_team* t)
{
    int spins = 0;
    while (__atomic_load_n(&t->done, __ATOMIC_ACQUIRE) != t->n - 1) {
        if (++spins < MB_SPIN)
            mb_pause();
        else
            sched_yield();
    }
}

/* Wait for the workers until the time `deadline` (mb_now); whether they are done. */
static int mb_team_wait_until(mb_team* t, double deadline)
{
    int spins = 0;
    while (!mb_team_idle(t)) {
        if (++spins < MB_SPIN) {
            mb_pause();
        } else {
            if (mb_now() > deadline)
                return 0;
            sched_yield();
        }
    }
    return 1;
}

/* The workers read rows lo..hi-1 into the caches (the caller goes on meanwhile; the next job
 * is published only once they are done, mb_team_idle): while the sequential pass runs, the
 * next stretch of rows is brought in by the other cores. */
static void mb_team_touch(mb_team* t, Py_ssize_t lo, Py_ssize_t hi)
{
    int k, n = t->n - 1;
    Py_ssize_t len = hi - lo;
    t->bounds[0] = lo;
    for (k = 1; k <= n; k++)
        t->bounds[k] = lo + (Py_ssize_t)((len * (k - 1)) / n);
    t->bounds[n + 1] = hi;
    t->kind = 1;
    __atomic_store_n(&t->done, 0, __ATOMIC_RELAXED);
    mb_team_publish(t);
}

/* Lend the workers to the split rows of the stretch to come (job kind 2). */
static void mb_team_serve(mb_team* t, mb_split* sp)
{
    __atomic_store_n(&sp->stop, 0, __ATOMIC_RELAXED);
    sp->serving = 1;
    sp->bail = 0;
    t->split = sp;
    t->split_seen = sp->seq;
    t->kind = 2;
    __atomic_store_n(&t->done, 0, __ATOMIC_RELAXED);
    mb_team_publish(t);
}

/* End the service (the workers go back to waiting for jobs; mb_team_idle tells when). */
static void mb_split_end(mb_split* sp)
{
    sp->serving = 0;
    __atomic_store_n(&sp->stop, 1, __ATOMIC_RELAXED);
    __atomic_store_n(&sp->seq, sp->seq + 1, __ATOMIC_RELEASE);
}

#endif  /* MB_SPEC_THREADS */

/* Whether the caller's rows can be split now (the team serves this stretch, and no worker
 * has kept the caller waiting in it: a worker descheduled half-way through its part). */
static inline int mb_split_serving(const mb_split* sp)
{
    return sp != NULL && sp->serving && !sp->bail;
}

/* A wait for a claimed part longer than this (seconds) ends the splitting of the stretch. */
#define MB_SPLIT_LATE 5e-5

/* Compute every part of the current row (the learner wrote what the parts read before the
 * call): part 0 here, the others by the workers that claim them in time, else here too.
 * Returns when all are done (their results visible to the caller). */
static inline void mb_split_row(mb_split* sp)
{
#if MB_SPEC_THREADS
    long long s = sp->seq + 1, c;
    int p, spins;
    double t0 = 0.0;
    __atomic_store_n(&sp->seq, s, __ATOMIC_RELEASE);    /* (publishes the row) */
    sp->part(sp->ctx, 0);
    for (p = 1; p < sp->parts; p++) {
        c = __atomic_load_n(&sp->slot[p].claim, __ATOMIC_ACQUIRE);
        if (c < s && __atomic_compare_exchange_n(&sp->slot[p].claim, &c, s, 0,
                                                 __ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE)) {
            sp->part(sp->ctx, p);       /* (its worker is late: computed here) */
            sp->steals++;
            continue;
        }
        spins = 0;
        while (__atomic_load_n(&sp->slot[p].done, __ATOMIC_ACQUIRE) < s) {
            if (++spins < MB_SPIN) {
                mb_pause();
            } else {
                if (spins == MB_SPIN)
                    t0 = mb_now();
                else if (!sp->bail && mb_now() - t0 > MB_SPLIT_LATE)
                    sp->bail = 1;
                sched_yield();
            }
        }
    }
    sp->rows++;
#else
    int p;
    for (p = 0; p < sp->parts; p++)
        sp->part(sp->ctx, p);
    sp->rows++;
#endif
}

/* A channel for `parts` parts (clamped to [2, MB_SPEC_MAXT]), or NULL (no memory, or no
 * threads: then the learner does not split). */
static inline mb_split* mb_split_new(mb_part_fn part, void* ctx, int parts)
{
#if MB_SPEC_THREADS
    void* mem = NULL;
    mb_split* sp;
    if (posix_memalign(&mem, 64, sizeof(mb_split)) != 0 || mem == NULL)
        return NULL;
    sp = (mb_split*)mem;
    memset(sp, 0, sizeof(mb_split));
    sp->part = part;
    sp->ctx = ctx;
    sp->parts = parts < 2 ? 2 : parts > MB_SPEC_MAXT ? MB_SPEC_MAXT : parts;
    return sp;
#else
    (void)part;
    (void)ctx;
    (void)parts;
    return NULL;
#endif
}

static inline void mb_split_free(mb_split* sp)
{
    free(sp);
}

#if MB_SPEC_THREADS

/* Judge rows lo..hi-1 on all the team's threads; the first changing (or bad) row, or hi.
 * *late is set when the caller waited for the workers longer than its own slice took (they
 * were not running: another program, or more threads than free cores). */
static Py_ssize_t mb_team_scan(mb_team* t, Py_ssize_t lo, Py_ssize_t hi, int* late)
{
    int k, n = t->n;
    Py_ssize_t r, len = hi - lo;
    double t0, t1, t2;
    mb_team_wait(t);                    /* (a touch job still outstanding) */
    for (k = 0; k <= n; k++)
        t->bounds[k] = lo + (Py_ssize_t)((len * k) / n);
    t->kind = 0;
    t->stop = hi;
    __atomic_store_n(&t->done, 0, __ATOMIC_RELAXED);
    mb_team_publish(t);                 /* (a release: the workers see bounds, stop and done) */
    t0 = mb_now();
    r = t->bounds[1] > lo ? t->scan(t->ctx, 0, lo, t->bounds[1], &t->stop) : t->bounds[1];
    t->res[0] = r;
    if (r < t->bounds[1])
        mb_stop_at(&t->stop, r);
    t1 = mb_now();
    mb_team_wait(t);
    t2 = mb_now();
    *late = (t2 - t1) > (t1 - t0) + 2e-5;
    for (k = 0; k < n; k++)
        if (t->res[k] < t->bounds[k + 1])
            return t->res[k];
    return hi;
}

#endif  /* MB_SPEC_THREADS */

/* Block sizes (rows): a block is judged when the recent gap between changing rows is at least
 * seq_gap rows per thread; its size is a quarter of that gap (a block then holds a changing
 * row about one time in five), within [min_rows, max_rows] per thread.  While the gaps are
 * shorter, the sequential pass runs `stretch` rows at a time.  (The tests set other values
 * through each kernel module's spec_tuning, to make every row go through the blocks.) */
typedef struct {
    Py_ssize_t seq_gap;
    Py_ssize_t min_rows;
    Py_ssize_t max_rows;
    Py_ssize_t stretch;
} mb_spec_cfg;

static mb_spec_cfg mb_spec_tuning = {48, 16, 4096, 256};

static void mb_spec_set_tuning(Py_ssize_t seq_gap, Py_ssize_t min_rows, Py_ssize_t max_rows,
                               Py_ssize_t stretch)
{
    mb_spec_tuning.seq_gap = seq_gap < 0 ? 0 : seq_gap;
    mb_spec_tuning.min_rows = min_rows < 1 ? 1 : min_rows;
    mb_spec_tuning.max_rows = max_rows < mb_spec_tuning.min_rows ? mb_spec_tuning.min_rows
                                                                 : max_rows;
    mb_spec_tuning.stretch = stretch < 1 ? 1 : stretch;
}

/* After a block whose workers were late, the pass runs sequentially for `backoff` rows, from
 * MB_SPEC_MIN_BACKOFF, doubled after each late block up to MB_SPEC_MAX_BACKOFF and halved after
 * each block on time: a pass whose other cores are busy stays close to the sequential speed. */
#define MB_SPEC_MIN_BACKOFF 4096
/* The least work per thread in a judged block (see mb_spec_pass); the tests' forced tuning
 * (seq_gap 0) lifts it. */
#define MB_SPEC_BLOCK_SECONDS 4e-6
#define MB_SPEC_MAX_BACKOFF (1 << 20)

/* The pass over rows 0..n-1 on up to `threads` threads (0 or 1: the sequential pass).
 * Returns the number of rows that changed the state, or -1 with *bad = the failing row.
 * sp (or NULL): the learner's row splitting; the sequential stretches then lend it the team
 * (run splits rows while mb_split_serving(sp)), unless its workers were late lately. */
static Py_ssize_t mb_spec_pass_split(int threads, Py_ssize_t n, void* ctx, mb_scan_fn scan,
                                     mb_run_fn run, mb_touch_fn touch, mb_split* sp,
                                     Py_ssize_t* bad)
{
#if MB_SPEC_THREADS
    mb_team* t;
    Py_ssize_t pos = 0, last = 0, gap, est, block, hi, r, c, total = 0;
    Py_ssize_t seq_until = 0, backoff = MB_SPEC_MIN_BACKOFF;
    Py_ssize_t touch_until = 0, touch_backoff = MB_SPEC_MIN_BACKOFF;
    Py_ssize_t min_block;
    Py_ssize_t split_until = 0, split_backoff = MB_SPEC_MIN_BACKOFF;
    long long rows0, steals0;
    double t0, t1, rows_per_s = 0.0;
    int T, late = 0, touched, serving;
    const mb_spec_cfg cfg = mb_spec_tuning;
    if (threads <= 1 || n < 2)
        return run(ctx, 0, n, bad);
    t = (mb_team*)malloc(sizeof(mb_team));
    if (t == NULL)
        return run(ctx, 0, n, bad);
    mb_team_start(t, threads, scan, touch, ctx);
    T = t->n;
    if (T < 2) {
        mb_team_stop(t);
        free(t);
        return run(ctx, 0, n, bad);
    }
    est = 0;                            /* the recent gap between changing rows */
    while (pos < n) {
        gap = pos - last;
        if (gap < est)
            gap = est;
        /* the smallest block worth judging: MB_SPEC_BLOCK_SECONDS of work per thread at the
         * speed of the sequential stretches (rows_per_s), so that starting and joining a
         * block costs little; a block is a quarter of the gap, so the gap must be 4 blocks */
        min_block = cfg.min_rows * (Py_ssize_t)T;
        if (cfg.seq_gap > 0 && rows_per_s > 0.0 &&
                min_block < (Py_ssize_t)(MB_SPEC_BLOCK_SECONDS * rows_per_s) * T)
            min_block = (Py_ssize_t)(MB_SPEC_BLOCK_SECONDS * rows_per_s) * T;
        if (gap < cfg.seq_gap * (Py_ssize_t)T || (cfg.seq_gap > 0 && gap < 4 * min_block) ||
                pos < seq_until) {
            /* dense changes (or late workers): a stretch of the sequential pass, then look
             * again; the workers read the next stretch meanwhile, if they are free */
            hi = pos + cfg.stretch;
            if (hi > n)
                hi = n;
            serving = sp != NULL && pos >= split_until && mb_team_idle(t);
            touched = !serving && touch != NULL && hi < n && pos >= touch_until &&
                mb_team_idle(t);
            if (touched)
                mb_team_touch(t, hi, hi + cfg.stretch < n ? hi + cfg.stretch : n);
            rows0 = serving ? sp->rows : 0;
            steals0 = serving ? sp->steals : 0;
            if (serving)
                mb_team_serve(t, sp);
            t0 = mb_now();
            c = run(ctx, pos, hi, bad);
            t1 = mb_now();
            if (serving) {
                /* the workers served the stretch; when they lost a quarter of their parts
                 * (their cores busy), the next stretches run unsplit for a while (longer
                 * each time), as after late blocks */
                mb_split_end(sp);
                sp->stretches++;
                /* (the workers leave the service at once, unless their cores are busy: then
                 * the next stretch runs unsplit, or is read ahead, as the team allows) */
                mb_team_wait_until(t, t1 + 2e-5);
                if (sp->bail || (4 * (sp->steals - steals0) >
                                 (sp->rows - rows0) * (sp->parts - 1) &&
                                 sp->rows - rows0 >= 8)) {
                    sp->late++;
                    split_until = hi + split_backoff;
                    if (split_backoff < MB_SPEC_MAX_BACKOFF)
                        split_backoff *= 2;
                } else if (split_backoff > MB_SPEC_MIN_BACKOFF) {
                    split_backoff /= 2;
                }
            }
            if (t1 > t0 && c >= 0)          /* (the speed of this stretch, smoothed) */
                rows_per_s = rows_per_s > 0.0 ?
                    0.75 * rows_per_s + 0.25 * (double)(hi - pos) / (t1 - t0) :
                    (double)(hi - pos) / (t1 - t0);
            if (touched) {
                /* wait for the next rows to be read (they usually are by now), but no longer
                 * than the stretch took: past that the workers are not running (their cores
                 * are busy), and the pass goes on without reading ahead for a while */
                if (!mb_team_wait_until(t, t1 + (t1 - t0) + 2e-5)) {
                    touch_until = hi + touch_backoff;
                    if (touch_backoff < MB_SPEC_MAX_BACKOFF)
                        touch_backoff *= 2;
                } else if (touch_backoff > MB_SPEC_MIN_BACKOFF) {
                    touch_backoff /= 2;
                }
            }
            if (c < 0) {
                total = -1;
                break;
            }
            total += c;
            est = (hi - pos) / (c + 1);
            if (c > 0)
                last = hi;              /* (the gap is measured from the stretch's end) */
            pos = hi;
            continue;
        }
        block = gap / 4;
        if (block < min_block)
            block = min_block;
        if (block > cfg.max_rows * (Py_ssize_t)T)
            block = cfg.max_rows * (Py_ssize_t)T;
        hi = pos + block;
        if (hi > n)
            hi = n;
        r = mb_team_scan(t, pos, hi, &late);
        if (late) {
            /* the workers did not keep up: sequential for a while (longer each time) */
            seq_until = pos + backoff;
            if (backoff < MB_SPEC_MAX_BACKOFF)
                backoff *= 2;
        } else if (backoff > MB_SPEC_MIN_BACKOFF) {
            backoff /= 2;
        }
        if (r == hi) {
            pos = hi;
            continue;
        }
        c = run(ctx, r, r + 1, bad);    /* the changing (or bad) row, by the sequential code */
        if (c < 0) {
            total = -1;
            break;
        }
        total += c;
        if (c > 0) {
            est = (3 * est + (r + 1 - last)) / 4;
            last = r + 1;
        }
        pos = r + 1;
    }
    mb_team_stop(t);
    free(t);
    return total;
#else
    (void)threads;
    (void)scan;
    (void)touch;
    (void)sp;
    return run(ctx, 0, n, bad);
#endif
}

static Py_ssize_t mb_spec_pass(int threads, Py_ssize_t n, void* ctx, mb_scan_fn scan,
                               mb_run_fn run, mb_touch_fn touch, Py_ssize_t* bad)
{
    return mb_spec_pass_split(threads, n, ctx, scan, run, touch, NULL, bad);
}

#endif  /* MBCORE_SPEC_H */
