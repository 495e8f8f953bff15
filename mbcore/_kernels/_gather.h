/* The dot product of a sparse row with the weights, w[ix[k]] * v[k] summed over the row, by the
 * arithmetic contract of mbref._arith: four partial sums s_j over k = j (mod 4), each product
 * rounded, then added (no fused multiply-add); the last n % 4 terms go to s0, s1, s2; the result
 * is (s0 + s1) + (s2 + s3).
 *
 * With AVX2 (chosen at run time, so one wheel serves every x86-64 CPU) the four partial sums are
 * the four lanes of one vector, and the four weights of a step are fetched by one gather
 * instruction: the same products, added in the same order, hence the same value bit for bit.
 * Elsewhere (other CPUs, other architectures, MSVC) the scalar loop (the kernels' own, inlined;
 * the scalar functions here are its definition, for the tests).  The caller has checked the
 * indices (0 <= ix[k] < the length of w).
 */
#ifndef MBCORE_GATHER_H
#define MBCORE_GATHER_H

#include <stddef.h>

#if (defined(__x86_64__) || defined(__i386__)) && (defined(__GNUC__) || defined(__clang__)) && \
    !defined(MB_NO_GATHER_DISPATCH) && !defined(MBCORE_NO_SIMD)
#define MB_GATHER_DISPATCH 1
#include <immintrin.h>
#include "_cpu.h"
#endif

#define MB_GDOT_SCALAR(NAME, VT, IT)                                                        \
    static inline double NAME(const double* w, const VT* v, const IT* ix, ptrdiff_t n)      \
    {                                                                                       \
        double s0 = 0.0, s1 = 0.0, s2 = 0.0, s3 = 0.0;                                      \
        ptrdiff_t k, n4 = n - (n % 4);                                                      \
        for (k = 0; k < n4; k += 4) {                                                       \
            s0 += w[ix[k]] * (double)v[k];                                                  \
            s1 += w[ix[k + 1]] * (double)v[k + 1];                                          \
            s2 += w[ix[k + 2]] * (double)v[k + 2];                                          \
            s3 += w[ix[k + 3]] * (double)v[k + 3];                                          \
        }                                                                                   \
        if (n4 < n)                                                                         \
            s0 += w[ix[n4]] * (double)v[n4];                                                \
        if (n4 + 1 < n)                                                                     \
            s1 += w[ix[n4 + 1]] * (double)v[n4 + 1];                                        \
        if (n4 + 2 < n)                                                                     \
            s2 += w[ix[n4 + 2]] * (double)v[n4 + 2];                                        \
        return (s0 + s1) + (s2 + s3);                                                       \
    }

MB_GDOT_SCALAR(mb_gdot_d_i_scalar, double, int)
MB_GDOT_SCALAR(mb_gdot_d_l_scalar, double, long long)
MB_GDOT_SCALAR(mb_gdot_f_i_scalar, float, int)
MB_GDOT_SCALAR(mb_gdot_f_l_scalar, float, long long)

#ifdef MB_GATHER_DISPATCH

/* GATHER(k): the four weights w[ix[k..k+3]]; LOADV(k): the four values as doubles (a float
 * widens exactly). */
#define MB_GDOT_AVX2(NAME, VT, IT, GATHER, LOADV)                                           \
    __attribute__((target("avx2"))) static double NAME(const double* w, const VT* v,       \
                                                       const IT* ix, ptrdiff_t n)           \
    {                                                                                       \
        __m256d acc = _mm256_setzero_pd();                                                  \
        double s[4];                                                                        \
        ptrdiff_t k, n4 = n - (n % 4);                                                      \
        for (k = 0; k < n4; k += 4)                                                         \
            acc = _mm256_add_pd(acc, _mm256_mul_pd(GATHER(k), LOADV(k)));                   \
        _mm256_storeu_pd(s, acc);                                                           \
        if (n4 < n)                                                                         \
            s[0] += w[ix[n4]] * (double)v[n4];                                              \
        if (n4 + 1 < n)                                                                     \
            s[1] += w[ix[n4 + 1]] * (double)v[n4 + 1];                                      \
        if (n4 + 2 < n)                                                                     \
            s[2] += w[ix[n4 + 2]] * (double)v[n4 + 2];                                      \
        return (s[0] + s[1]) + (s[2] + s[3]);                                               \
    }

#define MB_G_I(k) _mm256_i32gather_pd(w, _mm_loadu_si128((const __m128i*)(ix + (k))), 8)
#define MB_G_L(k) _mm256_i64gather_pd((const double*)w,                                    \
                                      _mm256_loadu_si256((const __m256i*)(ix + (k))), 8)
#define MB_V_D(k) _mm256_loadu_pd(v + (k))
#define MB_V_F(k) _mm256_cvtps_pd(_mm_loadu_ps(v + (k)))

MB_GDOT_AVX2(mb_gdot_d_i_avx2, double, int, MB_G_I, MB_V_D)
MB_GDOT_AVX2(mb_gdot_d_l_avx2, double, long long, MB_G_L, MB_V_D)
MB_GDOT_AVX2(mb_gdot_f_i_avx2, float, int, MB_G_I, MB_V_F)
MB_GDOT_AVX2(mb_gdot_f_l_avx2, float, long long, MB_G_L, MB_V_F)

/* 1: the gathers are in use; 0: the scalar loops; -1 until the first choice. */
static int mb_gather_on = -1;

static int mb_gather_choose(int want)
{
    /* want 1: gathers (if the CPU has AVX2), 0 or -1 (the default): the scalar loop.  The
     * scalar loop is the default because it was the faster one where measured: on AMD Zen 3 a
     * pass with the gathers took 1.3-1.5x as long (bench/README.md, issue 27). */
    int has = mb_cpu_has_avx2();
    mb_gather_on = (want == 1) && has;
    return mb_gather_on;
}

static int mb_gather_dispatches(void) { return 1; }

#else

static int mb_gather_on = 0;
static int mb_gather_choose(int want) { (void)want; return 0; }
static int mb_gather_dispatches(void) { return 0; }

#endif

/* The kernels call these only when mb_gather_on is 1 (their own loop otherwise: the scalar
 * definitions above, inlined where the row is read). */
#ifdef MB_GATHER_DISPATCH
#define mb_gdot_d_i mb_gdot_d_i_avx2
#define mb_gdot_d_l mb_gdot_d_l_avx2
#define mb_gdot_f_i mb_gdot_f_i_avx2
#define mb_gdot_f_l mb_gdot_f_l_avx2
#else
#define mb_gdot_d_i mb_gdot_d_i_scalar
#define mb_gdot_d_l mb_gdot_d_l_scalar
#define mb_gdot_f_i mb_gdot_f_i_scalar
#define mb_gdot_f_l mb_gdot_f_l_scalar
#endif

/* Ask for the bytes [p, p + nbytes) to be brought into the caches (a hint: never faults, reads
 * nothing the program can see).  For dense rows a few rows ahead of the one being read. */
static inline void mb_prefetch_bytes(const void* p, ptrdiff_t nbytes)
{
#if defined(__GNUC__) || defined(__clang__)
    const char* b = (const char*)p;
    ptrdiff_t k;
    for (k = 0; k < nbytes; k += 64)
        __builtin_prefetch(b + k, 0, 0);
#else
    (void)p;
    (void)nbytes;
#endif
}

#endif  /* MBCORE_GATHER_H */
