/* fma-peak: the machine's single-precision FMA peak, for scripts/bench/embed.
 *
 * Each of N processes (N = argv[1], default 1) runs independent chains of
 * fused multiply-adds, twelve accumulators deep so that latency never stalls
 * the FMA ports, with 512-bit vectors where the CPU has AVX-512 and 256-bit
 * ones otherwise, for about a second. It prints the total GFLOP/s of all
 * processes: the ceiling that any fp32 matrix kernel on this machine stays
 * under, so an embedding benchmark can say how close to it a model runs.
 * Build: cc -O2 fma-peak.c -o fma-peak   (target attributes pick the ISA). */
#include <immintrin.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static double now(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return t.tv_sec + t.tv_nsec * 1e-9;
}

__attribute__((target("avx512f"))) static double run512(long iters) {
    __m512 acc[12], b = _mm512_set1_ps(1.0000001f), c = _mm512_set1_ps(1e-7f);
    for (int i = 0; i < 12; i++) acc[i] = _mm512_set1_ps((float)i);
    double t = now();
    for (long n = 0; n < iters; n++) {
#pragma GCC unroll 12
        for (int i = 0; i < 12; i++) acc[i] = _mm512_fmadd_ps(acc[i], b, c);
    }
    t = now() - t;
    float sink = 0;
    for (int i = 0; i < 12; i++) sink += _mm512_reduce_add_ps(acc[i]);
    if (sink == 42.0f) puts("");  /* keeps the loop alive */
    return iters * 12.0 * 16 * 2 / t / 1e9;
}

__attribute__((target("avx2,fma"))) static double run256(long iters) {
    __m256 acc[12], b = _mm256_set1_ps(1.0000001f), c = _mm256_set1_ps(1e-7f);
    for (int i = 0; i < 12; i++) acc[i] = _mm256_set1_ps((float)i);
    double t = now();
    for (long n = 0; n < iters; n++) {
#pragma GCC unroll 12
        for (int i = 0; i < 12; i++) acc[i] = _mm256_fmadd_ps(acc[i], b, c);
    }
    t = now() - t;
    float lanes[8], sink = 0;
    for (int i = 0; i < 12; i++) { _mm256_storeu_ps(lanes, acc[i]); for (int j = 0; j < 8; j++) sink += lanes[j]; }
    if (sink == 42.0f) puts("");
    return iters * 12.0 * 8 * 2 / t / 1e9;
}

int main(int argc, char **argv) {
    int procs = argc > 1 ? atoi(argv[1]) : 1;
    if (procs < 1 || procs > 256) { fprintf(stderr, "fma-peak: processes must be 1..256\n"); return 2; }
    int wide = __builtin_cpu_supports("avx512f");
    long iters = 150000000;
    int fds[2];
    if (pipe(fds) != 0) { perror("fma-peak: pipe"); return 1; }
    for (int p = 0; p < procs; p++) {
        if (fork() == 0) {
            double g = wide ? run512(iters) : run256(iters);
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
            wide ? "AVX-512" : "AVX2");
    return 0;
}
