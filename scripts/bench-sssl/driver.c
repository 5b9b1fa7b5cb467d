/*
 * A plain C driver for sssl-ftlsim's greedy simulation (github pjd-nu/sssl-ftlsim), for
 * scripts/bench-sssl/run.sh. It makes the calls greedy-high.py makes through SWIG, in the
 * same order, without Python in the loop (the peer's SWIG wrappers only forward to these
 * functions; its ftl.run is do_ftl_run):
 *
 *   ftl = ftl_new(T, Np), minfree, first-pool selectors     ftlsim.ftl(T, Np)
 *   pool = greedy_pool_new(ftl, Np), next_pool = itself     ftlsim.pool(ftl, "greedy", Np)
 *   one segment as the frontier, T - 1 on the free list     add_segment / put_blk
 *   fill(T - minfree, U) for (T - minfree) Np - 1 writes    getaddr.fill, ftl.run
 *   uniform(logical pages), ftl.run in chunks, counters     getaddr.uniform, ftl.run,
 *   read and reset after each chunk                         ftl.int_writes / ext_writes
 *
 * Differences, all outside the simulated FTL: maxfree = minfree (greedy-high.py leaves it
 * 0, with which do_ftl_run's cleaning loop never ends at this commit); the logical size is
 * a page count (the uniform generator takes one; U need not be whole segments); counts are
 * summed in 64 bits (the peer's are int and would overflow at 128 GiB); and the pool's
 * victim call is wrapped to sample the written pages at each victim choice, which gives
 * the effective alpha the way flashgc measures it (one extra indirect call per victim).
 *
 * Usage: driver LOGICAL_PAGES PAGES_PER_SEGMENT SEGMENTS MINFREE WARMUP MEASURED SEED
 * (WARMUP and MEASURED in multiples of the logical pages). Prints one JSON object.
 * Exit 2 on bad arguments.
 */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ftlsim.h"
#include "getaddr.h"

/* The Python API ftlsim.c names (see Python.h here). */
PyObject *PyExc_RuntimeError;
void PyErr_SetString(PyObject *type, const char *message)
{
    (void)type;
    fprintf(stderr, "sssl-ftlsim error: %s\n", message);
    exit(1);
}
PyObject *PyErr_Occurred(void) { return NULL; }
PyObject *Py_BuildValue(const char *format, ...)
{
    (void)format;
    fprintf(stderr, "driver: a Python callback was reached (none is set)\n");
    abort();
}
PyObject *PyEval_CallObject(PyObject *callable, PyObject *args)
{
    (void)callable;
    (void)args;
    fprintf(stderr, "driver: a Python callback was reached (none is set)\n");
    abort();
}

/* Effective alpha: pages written (sealed segments of the pool plus the frontier's) at each
 * victim choice, as flashgc's `effective_alpha` (mean over victims / logical pages). */
static struct segment *(*peer_getseg)(struct pool *);
static uint64_t alpha_sum, alpha_samples;
static struct segment *sampling_getseg(struct pool *pool)
{
    alpha_sum += (uint64_t)pool->pages_valid + (uint64_t)pool->pages_invalid + (uint64_t)pool->i;
    alpha_samples++;
    return peer_getseg(pool);
}

/* User writes and flash programs of a phase. */
struct counts {
    uint64_t user, programs;
};

/* Runs `n` writes from `gen` in chunks small enough for the peer's int counters, resetting
 * them after each chunk as greedy-high.py does between its ftl.run calls. */
static struct counts run(struct ftl *ftl, struct getaddr *gen, uint64_t n)
{
    const uint64_t chunk = 1u << 22;
    struct counts c = {0, 0};
    while (n > 0) {
        int k = (int)(n < chunk ? n : chunk);
        do_ftl_run(ftl, gen, k);
        if (err_occurred) {
            fprintf(stderr, "driver: the peer's run failed\n");
            exit(1);
        }
        c.user += (uint64_t)ftl->ext_writes;
        c.programs += (uint64_t)ftl->int_writes;
        ftl->ext_writes = ftl->int_writes = 0;
        n -= (uint64_t)k;
    }
    return c;
}

static long long arg_int(const char *s, const char *name, long long lo, long long hi)
{
    char *end;
    errno = 0;
    long long v = strtoll(s, &end, 10);
    if (errno || *end || end == s || v < lo || v > hi) {
        fprintf(stderr, "driver: %s must be an integer in %lld..%lld, got '%s'\n", name, lo, hi, s);
        exit(2);
    }
    return v;
}

static double arg_volume(const char *s, const char *name)
{
    char *end;
    double v = strtod(s, &end);
    if (*end || end == s || !(v >= 0 && v <= 1000)) {
        fprintf(stderr, "driver: %s must be a multiple of the logical pages in 0..1000, got '%s'\n", name, s);
        exit(2);
    }
    return v;
}

int main(int argc, char **argv)
{
    if (argc != 8) {
        fprintf(stderr, "usage: driver LOGICAL_PAGES PAGES_PER_SEGMENT SEGMENTS MINFREE WARMUP MEASURED SEED\n");
        return 2;
    }
    long long logical = arg_int(argv[1], "LOGICAL_PAGES", 1, 1LL << 30);
    int np = (int)arg_int(argv[2], "PAGES_PER_SEGMENT", 2, 1 << 16);
    int segments = (int)arg_int(argv[3], "SEGMENTS", 3, 1 << 28);
    int minfree = (int)arg_int(argv[4], "MINFREE", 1, 1 << 20);
    double warmup = arg_volume(argv[5], "WARMUP");
    double measured = arg_volume(argv[6], "MEASURED");
    unsigned seed = (unsigned)arg_int(argv[7], "SEED", 0, 4294967295LL);
    /* The peer indexes its map by LBA < T Np in int arithmetic. */
    if ((long long)segments * np > 2147483647LL) {
        fprintf(stderr, "driver: SEGMENTS x PAGES_PER_SEGMENT must stay below 2^31 (the peer's int LBAs)\n");
        return 2;
    }
    /* Greedy needs room beyond the data, the reserve and the frontier, or the peer stops
     * with "greedy: pool full". */
    if ((long long)(segments - minfree - 1) * np <= logical) {
        fprintf(stderr, "driver: SEGMENTS - MINFREE - 1 segments must hold more than LOGICAL_PAGES pages\n");
        return 2;
    }

    srand(seed);
    struct ftl *ftl = ftl_new(segments, np);
    ftl->get_input_pool = write_select_first;
    ftl->get_pool_to_clean = clean_select_first;
    ftl->minfree = minfree;
    ftl->maxfree = minfree;
    struct pool *pool = greedy_pool_new(ftl, np);
    pool->next_pool = pool;
    peer_getseg = pool->getseg;
    pool->getseg = sampling_getseg;
    pool->addseg(pool, segment_new(np));
    for (int i = 1; i < segments; i++)
        do_put_blk(ftl, segment_new(np));

    /* greedy-high.py's fill: every segment but the reserve written once, the logical
     * pages in order, each once or twice. */
    int t0 = segments - minfree;
    struct fill *fill = fill_new((double)t0, (double)logical / np);
    struct counts fc = run(ftl, &fill->handle, (uint64_t)t0 * np - 1);

    struct uniform *uniform = uniform_new((int)logical);
    struct counts wc = run(ftl, &uniform->handle, (uint64_t)(warmup * (double)logical + 0.5));
    alpha_sum = alpha_samples = 0;
    struct counts mc = run(ftl, &uniform->handle, (uint64_t)(measured * (double)logical + 0.5));

    printf("{\"logical_pages\": %lld, \"pages_per_segment\": %d, \"segments\": %d, \"minfree\": %d, "
           "\"seed\": %u, \"fill_writes\": %llu, \"warmup_user_writes\": %llu, \"warmup_programs\": %llu, "
           "\"measured_user_writes\": %llu, \"measured_programs\": %llu, \"measured_victims\": %llu, ",
           logical, np, segments, minfree, seed, (unsigned long long)fc.user, (unsigned long long)wc.user,
           (unsigned long long)wc.programs, (unsigned long long)mc.user, (unsigned long long)mc.programs,
           (unsigned long long)alpha_samples);
    if (mc.user > 0 && alpha_samples > 0)
        printf("\"waf\": %.9f, \"effective_alpha\": %.9f}\n", (double)mc.programs / (double)mc.user,
               (double)alpha_sum / (double)alpha_samples / (double)logical);
    else
        printf("\"waf\": null, \"effective_alpha\": null}\n");
    return 0;
}
