/* fma-peak: the machine's single-precision FMA peak, for scripts/bench/embed.
 *
 * Each of N processes (N = argv[1], default 1) runs independent chains of
 * fused multiply-adds on 16-float vectors, twelve accumulators deep so that
 * latency never stalls the FMA ports, for about a second; the compiler makes
 * one copy of the loop per instruction set (AVX-512, AVX2+FMA, baseline) and
 * the CPU picks its best at start-up. It prints the total GFLOP/s of all
 * processes: the ceiling that any fp32 matrix kernel on this machine stays
 * under, so an embedding benchmark can say how close to it a model runs.
 * Build: cc -O2 fma-peak.c -o fma-peak   (target attributes pick the ISA). */
#include <stdio.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

typedef float v16 __attribute__((vector_size(64)));

static double now(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return t.tv_sec + t.tv_nsec * 1e-9;
}

/* GFLOP/s of `iters` rounds of 12 independent a = a * b + c on 16 floats. */
__attribute__((target_clones("avx512f", "arch=haswell", "default")))
double fma_rate(long iters) {
    v16 acc[12], b, c;
    for (int j = 0; j < 16; j++) { b[j] = 1.0000001f; c[j] = 1e-7f; }
    for (int i = 0; i < 12; i++)
        for (int j = 0; j < 16; j++) acc[i][j] = (float)i;
    double t = now();
    for (long n = 0; n < iters; n++) {
#pragma GCC unroll 12
        for (int i = 0; i < 12; i++) acc[i] = acc[i] * b + c;
    }
    t = now() - t;
    float sink = 0;
    for (int i = 0; i < 12; i++)
        for (int j = 0; j < 16; j++) sink += acc[i][j];
    if (sink == 42.0f) puts("");  /* keeps the loop alive */
    return iters * 12.0 * 16 * 2 / t / 1e9;
}

int main(int argc, char **argv) {
    int procs = argc > 1 ? atoi(argv[1]) : 1;
    if (procs < 1 || procs > 256) { fprintf(stderr, "fma-peak: processes must be 1..256\n"); return 2; }
    const char *isa = __builtin_cpu_supports("avx512f") ? "AVX-512"
                    : __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma") ? "AVX2" : "baseline";
    long iters = 150000000;
    int fds[2];
    if (pipe(fds) != 0) { perror("fma-peak: pipe"); return 1; }
    for (int p = 0; p < procs; p++) {
        if (fork() == 0) {
            double g = fma_rate(iters);
            if (write(fds[1], &g, sizeof g) != sizeof g) _exit(1);
            _exit(0);
        }
    }
    close(fds[1]);
    double total = 0, g;
    while (read(fds[0], &g, sizeof g) == sizeof g) total += g;
    while (wait(NULL) > 0) {}
    printf("%.1f\n", total);
    fprintf(stderr, "fma-peak: %.1f GFLOP/s fp32 over %d process%s (%s)\n", total, procs, procs == 1 ? "" : "es",
            isa);
    return 0;
}
