/* fma-peak: the machine's single-precision FMA peak, for scripts/bench/embed.
 *
 * Each of N processes (N = argv[1], default 1) runs twelve independent chains
 * of fused multiply-adds, one vector register each, so that latency never
 * stalls the FMA ports, for about a second, with the widest FMA the CPU has
 * (AVX-512, else AVX2+FMA). It prints the total GFLOP/s of all processes: the
 * ceiling that any fp32 matrix kernel on this machine stays under, so an
 * embedding benchmark can say how close to it a model runs. On stderr it also
 * prints the theoretical peak: FMA ports x lanes x 2 FLOP x clock.
 *
 * Each instruction set has its own loop written with its own intrinsics. An
 * earlier version used one generic 16-float vector type in target clones; GCC
 * lowered it to SSE pieces without FMA in the AVX2 clone (26 GFLOP/s for two
 * cores of a Zen 3 where ib-embed itself sustains 162).
 * Build: cc -O2 fma-peak.c -o fma-peak   (target attributes pick the ISA). */
#include <immintrin.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static double now(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return t.tv_sec + t.tv_nsec * 1e-9;
}

/* GFLOP/s of `iters` rounds of 12 independent acc = acc * b + c of LANES floats. */
#define FMA_RATE(NAME, TARGET, VEC, LANES, SET1, FMADD, STORE)                              \
__attribute__((target(TARGET))) static double NAME(long iters) {                            \
    VEC acc[12];                                                                            \
    const VEC b = SET1(1.0000001f), c = SET1(1e-7f);                                        \
    for (int i = 0; i < 12; i++) acc[i] = SET1((float)i);                                   \
    double t = now();                                                                       \
    for (long n = 0; n < iters; n++) {                                                      \
        _Pragma("GCC unroll 12")                                                            \
        for (int i = 0; i < 12; i++) acc[i] = FMADD(acc[i], b, c);                          \
    }                                                                                       \
    t = now() - t;                                                                          \
    float lanes[LANES], sink = 0;                                                           \
    for (int i = 0; i < 12; i++) {                                                          \
        STORE(lanes, acc[i]);                                                               \
        for (int j = 0; j < LANES; j++) sink += lanes[j];                                   \
    }                                                                                       \
    if (sink == 42.0f) puts("");  /* keeps the loop alive */                                \
    return iters * 12.0 * LANES * 2 / t / 1e9;                                              \
}
FMA_RATE(fma_rate_avx512, "avx512f", __m512, 16, _mm512_set1_ps, _mm512_fmadd_ps, _mm512_storeu_ps)
FMA_RATE(fma_rate_avx2, "avx2,fma", __m256, 8, _mm256_set1_ps, _mm256_fmadd_ps, _mm256_storeu_ps)

/* The widest FMA this CPU has (IB_KERNELS=avx2: AVX2 even with AVX-512, as the kernels): its name and fp32 lanes. */
static const char *best_isa(int *lanes) {
    const char *forced = getenv("IB_KERNELS");
    const int avx2_only = forced && strcmp(forced, "avx2") == 0;
    if (__builtin_cpu_supports("avx512f") && !avx2_only) { *lanes = 16; return "AVX-512"; }
    if (__builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma")) { *lanes = 8; return "AVX2"; }
    *lanes = 0;
    return "no FMA";
}

/* The highest clock the kernel reports (cpufreq's maximum, else /proc/cpuinfo's "cpu MHz"), in GHz; 0 if unknown. */
static double clock_ghz(void) {
    FILE *f = fopen("/sys/devices/system/cpu/cpu0/cpufreq/cpuinfo_max_freq", "r");
    double khz = 0;
    if (f) { if (fscanf(f, "%lf", &khz) != 1) khz = 0; fclose(f); }
    if (khz > 0) return khz / 1e6;
    if (!(f = fopen("/proc/cpuinfo", "r"))) return 0;
    char line[256];
    double mhz = 0, m;
    while (fgets(line, sizeof line, f))
        if (sscanf(line, "cpu MHz : %lf", &m) == 1 && m > mhz) mhz = m;
    fclose(f);
    return mhz / 1e3;
}

int main(int argc, char **argv) {
    int procs = argc > 1 ? atoi(argv[1]) : 1;
    if (procs < 1 || procs > 256) { fprintf(stderr, "fma-peak: processes must be 1..256\n"); return 2; }
    int lanes;
    const char *isa = best_isa(&lanes);
    if (lanes == 0) { fprintf(stderr, "fma-peak: this CPU has neither AVX-512 nor AVX2+FMA\n"); return 1; }
    const long iters = 150000000L * 16 / lanes;   /* about a second either way */
    int fds[2];
    if (pipe(fds) != 0) { perror("fma-peak: pipe"); return 1; }
    for (int p = 0; p < procs; p++) {
        if (fork() == 0) {
            double g = lanes == 16 ? fma_rate_avx512(iters) : fma_rate_avx2(iters);
            if (write(fds[1], &g, sizeof g) != sizeof g) _exit(1);
            _exit(0);
        }
    }
    close(fds[1]);
    double total = 0, g;
    while (read(fds[0], &g, sizeof g) == sizeof g) total += g;
    while (wait(NULL) > 0) {}
    printf("%.1f\n", total);
    fprintf(stderr, "fma-peak: %.1f GFLOP/s fp32 over %d process%s (%s)\n", total, procs, procs == 1 ? "" : "es", isa);
    /* 2 FMA ports: every AVX2 core since Haswell and Zen 2, and AVX-512 Xeons with two
     * FMA units (Zen 4 and one-unit Xeons reach half of it with AVX-512). */
    const double ghz = clock_ghz();
    if (ghz > 0)
        fprintf(stderr, "fma-peak: theoretical %.0f GFLOP/s = 2 FMA ports x %d lanes x 2 FLOP x %.2f GHz x %d "
                "(the highest clock the kernel reports; all-core AVX clocks are lower)\n",
                2.0 * lanes * 2 * ghz * procs, lanes, ghz, procs);
    return 0;
}
