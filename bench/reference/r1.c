/*
 * The reference fleet R1 as a plain single-threaded C event loop with a binary heap: the
 * yardstick issue 5 names ("a careful single-threaded C event loop with a binary heap does it
 * in about 5 s here"), rebuilt so `make bench` can time it in the same hour as SyncLab. The
 * machine's speed swings by up to half from hour to hour; this loop's time says which hour it was.
 *
 * It is also an independent implementation of R1 (its own generator, normal deviates and event
 * order), so its outputs check SyncLab's within sampling noise. Not part of the Swift package.
 *
 *   cc -O2 -o r1 bench/reference/r1.c -lm && ./r1 [players]
 *
 * R1 (issue 5): N players, 24 h, each starts at Uniform(0, 60 s). A fetch: uplink delay
 * LogNormal(median 40 ms, sigma 0.5); the server stamps floor(arrival) in whole seconds and
 * counts the request in that second; downlink LogNormal(median 60 ms, sigma 0.5) plus 20,000
 * bytes at a bandwidth Uniform(50 kB/s, 2 MB/s) drawn per fetch; the client's clock is perfect;
 * its estimate is stamp + (receive - send), its error estimate - receive. Next fetch
 * Uniform(360 s, 540 s) after each receive.
 *
 * One event per fetch cycle, its send: nothing in R1 lets one player's fetch affect another's
 * (the server only counts requests per second, a sum), so a careful loop works out a fetch's
 * arrival and receive when it is sent and keeps only the next send in the heap. Timed the same
 * way with three heap events per fetch (send, arrival, receive), the loop took about twice as
 * long here (8.3-9.7 s against 4.4-4.6 s).
 */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#define SECOND 1000000000LL
#define DURATION (86400LL * SECOND)

/* A player's next send (ns). Equal times (rare, in whole nanoseconds) come out in the heap's
 * own order, which is fixed for a given input. */
typedef struct { int64_t at; int64_t player; } Event;

typedef struct { Event *e; size_t n, cap; } Heap;

static int before(const Event *a, const Event *b) { return a->at < b->at; }

static void push(Heap *h, int64_t at, int64_t player) {
    if (h->n == h->cap) {
        h->cap = h->cap ? 2 * h->cap : 1024;
        h->e = realloc(h->e, h->cap * sizeof(Event));
        if (!h->e) { perror("realloc"); exit(1); }
    }
    Event x = { at, player };
    size_t i = h->n++;
    while (i > 0) {
        size_t parent = (i - 1) / 2;
        if (!before(&x, &h->e[parent])) break;
        h->e[i] = h->e[parent];
        i = parent;
    }
    h->e[i] = x;
}

static Event pop(Heap *h) {
    Event top = h->e[0], last = h->e[--h->n];
    size_t i = 0;
    for (;;) {
        size_t child = 2 * i + 1;
        if (child >= h->n) break;
        if (child + 1 < h->n && before(&h->e[child + 1], &h->e[child])) child++;
        if (!before(&h->e[child], &last)) break;
        h->e[i] = h->e[child];
        i = child;
    }
    if (h->n > 0) h->e[i] = last;
    return top;
}

/* SplitMix64: one stream for the whole run. */
static uint64_t rng_state = 0x5EED0001ULL;
static uint64_t next64(void) {
    uint64_t z = (rng_state += 0x9E3779B97F4A7C15ULL);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
    return z ^ (z >> 31);
}
static double unit(void) { return (double)(next64() >> 11) * 0x1.0p-53; }

/* Standard normal by Marsaglia's polar method, the second deviate of each pair kept. */
static double normal(void) {
    static int have = 0;
    static double kept;
    if (have) { have = 0; return kept; }
    double u, v, s;
    do {
        u = 2 * unit() - 1;
        v = 2 * unit() - 1;
        s = u * u + v * v;
    } while (s >= 1 || s == 0);
    double f = sqrt(-2 * log(s) / s);
    kept = v * f;
    have = 1;
    return u * f;
}

static int64_t ns(double seconds) { return (int64_t)llround(seconds * 1e9); }
static int64_t lognormal_ns(double median_s, double sigma) { return ns(median_s * exp(sigma * normal())); }
static int64_t floor_second(int64_t t) { return t - ((t % SECOND) + SECOND) % SECOND; }

static int by_value(const void *a, const void *b) {
    uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
    return (x > y) - (x < y);
}

int main(int argc, char **argv) {
    long players = argc > 1 ? atol(argv[1]) : 100000;
    if (players <= 0) { fprintf(stderr, "r1: players must be positive\n"); return 2; }
    uint32_t *per_second = calloc(86400, sizeof(uint32_t));
    if (!per_second) { perror("calloc"); return 1; }

    struct timespec t0, t1;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    Heap heap = { 0 };
    for (long p = 0; p < players; p++) push(&heap, ns(60 * unit()), p);

    uint64_t events = 0, cycles = 0, over250 = 0;
    double sum_abs_ms = 0;
    while (heap.n > 0 && heap.e[0].at < DURATION) {
        Event e = pop(&heap);
        events++;
        int64_t arrival = e.at + lognormal_ns(0.040, 0.5);
        if (arrival >= DURATION) continue;   /* the server never sees it */
        int64_t stamp = floor_second(arrival);
        per_second[arrival / SECOND]++;
        double bandwidth = 50e3 + (2e6 - 50e3) * unit();
        int64_t receive = arrival + lognormal_ns(0.060, 0.5) + (int64_t)ceil(20000 / bandwidth * 1e9);
        if (receive >= DURATION) continue;
        /* estimate = stamp + (receive - send); error = estimate - receive = stamp - send. */
        int64_t error = stamp - e.at;
        int64_t magnitude = error < 0 ? -error : error;
        cycles++;
        sum_abs_ms += magnitude / 1e6;
        over250 += magnitude > 250 * 1000000LL;
        push(&heap, receive + ns(360 + 180 * unit()), e.player);
    }
    clock_gettime(CLOCK_MONOTONIC, &t1);
    double wall = (t1.tv_sec - t0.tv_sec) + (t1.tv_nsec - t0.tv_nsec) / 1e9;

    uint32_t peak = 0;
    for (int s = 0; s < 86400; s++) if (per_second[s] > peak) peak = per_second[s];
    qsort(per_second, 86400, sizeof(uint32_t), by_value);
    uint32_t p99 = per_second[(size_t)ceil(0.99 * 86400) - 1];   /* nearest rank */

    printf("r1 reference: %ld players, %llu fetch cycles, peak %u and p99 %u requests/s, "
           "mean |error| %.3f ms, |error| > 250 ms in %.2f%%\n",
           players, (unsigned long long)cycles, peak, p99, cycles ? sum_abs_ms / cycles : 0.0,
           cycles ? 100.0 * over250 / cycles : 0.0);
    /* The same line shape as `synclab run`'s stderr timing, which `make bench` reads. */
    fprintf(stderr, "simulated in %.2f s wall, %llu events, %llu fetches, 1 threads\n", wall,
            (unsigned long long)events, (unsigned long long)cycles);
    return 0;
}
