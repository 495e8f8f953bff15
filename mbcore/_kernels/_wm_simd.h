/* Weighted Majority's two inner loops over the experts: AVX2 when the CPU has it (chosen at run
 * time), SSE2 (the x86-64 baseline) otherwise, and a scalar fallback on other machines.
 *
 * Every path produces exactly the values of the scalar definitions in mbref.experts:
 *   votes:  t1 = c * p and t0 = c - t1 for p in {0, 1} and a finite c >= 0 are c or +0.0, i.e.
 *           c masked by p (bitwise).  Expert i goes into partial sum s[i % 16], in expert order;
 *           u_j = (s[j] + s[4 + j]) + (s[8 + j] + s[12 + j]) and q = (u0 + u1) + (u2 + u3).
 *           (Four 4-lane accumulators hold s[0..15]; sixteen independent sums keep the adds
 *           from waiting on each other.)
 *   update: a wrong expert's cache becomes c * beta (exact mode: beta a power of two), a right
 *           one's stays c; its mistake count grows by one.
 */
#ifndef MBCORE_WM_SIMD_H
#define MBCORE_WM_SIMD_H

#include <stddef.h>
#include <string.h>

static inline double mb_fold16(const double* s)
{
    double u0 = (s[0] + s[4]) + (s[8] + s[12]);
    double u1 = (s[1] + s[5]) + (s[9] + s[13]);
    double u2 = (s[2] + s[6]) + (s[10] + s[14]);
    double u3 = (s[3] + s[7]) + (s[11] + s[15]);
    return (u0 + u1) + (u2 + u3);
}

static void mb_wm_votes_scalar(const double* c, const unsigned char* p, ptrdiff_t n,
                               double* q0, double* q1, ptrdiff_t from, double* s, double* r)
{
    ptrdiff_t k;
    for (k = from; k < n; k++) {
        double t1 = c[k] * (double)p[k];
        s[k & 15] += t1;
        r[k & 15] += c[k] - t1;
    }
    *q1 = mb_fold16(s);
    *q0 = mb_fold16(r);
}

static int mb_wm_update_scalar(double* c, long long* m, const unsigned char* p, ptrdiff_t n,
                               int y, double beta, ptrdiff_t from)
{
    int wrong = 0;
    ptrdiff_t k;
    for (k = from; k < n; k++) {
        if (p[k] != y) {
            wrong = 1;
            m[k] += 1;
            c[k] = c[k] * beta;
        }
    }
    return wrong;
}

/* q_v for one class v of byte codes: expert i into s[i % 16] when p[i] == v (the masked sum:
 * adding +0.0 for the others leaves every partial sum as it is). */
static double mb_wm_class_sum_scalar(const double* c, const unsigned char* p, ptrdiff_t n,
                                     int v, ptrdiff_t from, double* s)
{
    ptrdiff_t k;
    for (k = from; k < n; k++)
        if (p[k] == v)
            s[k & 15] += c[k];
    return mb_fold16(s);
}

#if (defined(__GNUC__) || defined(__clang__)) && defined(__x86_64__) && !defined(MBCORE_NO_SIMD)
#define MB_X86 1
#include <immintrin.h>
#include "_cpu.h"

/* -- AVX2 ---------------------------------------------------------------------------------- */

__attribute__((target("avx2")))
static inline __m256d mb_mask4(const unsigned char* p, __m128i cmp, int invert)
{
    int word;
    __m128i b;
    memcpy(&word, p, 4);
    b = _mm_cmpeq_epi8(_mm_cvtsi32_si128(word), cmp);
    if (invert)
        b = _mm_xor_si128(b, _mm_set1_epi8((char)0xFF));
    return _mm256_castsi256_pd(_mm256_cvtepi8_epi64(b));   /* 0x00 -> 0, 0xFF -> -1 */
}

__attribute__((target("avx2")))
static void mb_wm_votes_avx2(const double* c, const unsigned char* p, ptrdiff_t n,
                             double* q0, double* q1)
{
    __m256d a[4], b[4];
    const __m128i one = _mm_set1_epi8(1);
    ptrdiff_t k, j, n16 = n - n % 16;
    double s[16], r[16];
    for (j = 0; j < 4; j++) {
        a[j] = _mm256_setzero_pd();
        b[j] = _mm256_setzero_pd();
    }
    for (k = 0; k < n16; k += 16) {
        for (j = 0; j < 4; j++) {
            __m256d mk = mb_mask4(p + k + 4 * j, one, 0);
            __m256d cv = _mm256_loadu_pd(c + k + 4 * j);
            a[j] = _mm256_add_pd(a[j], _mm256_and_pd(mk, cv));
            b[j] = _mm256_add_pd(b[j], _mm256_andnot_pd(mk, cv));
        }
    }
    for (j = 0; j < 4; j++) {
        _mm256_storeu_pd(s + 4 * j, a[j]);
        _mm256_storeu_pd(r + 4 * j, b[j]);
    }
    mb_wm_votes_scalar(c, p, n, q0, q1, n16, s, r);
}

__attribute__((target("avx2")))
static int mb_wm_update_avx2(double* c, long long* m, const unsigned char* p, ptrdiff_t n,
                             int y, double beta)
{
    const __m256d bb = _mm256_set1_pd(beta);
    const __m128i yv = _mm_set1_epi8((char)y);
    __m256d any = _mm256_setzero_pd();
    ptrdiff_t k, n4 = n - n % 4;
    for (k = 0; k < n4; k += 4) {
        __m256d w = mb_mask4(p + k, yv, 1);
        __m256d cv = _mm256_loadu_pd(c + k);
        __m256d nc = _mm256_blendv_pd(cv, _mm256_mul_pd(cv, bb), w);
        __m256i mv = _mm256_loadu_si256((const __m256i*)(m + k));
        _mm256_storeu_pd(c + k, nc);
        _mm256_storeu_si256((__m256i*)(m + k), _mm256_sub_epi64(mv, _mm256_castpd_si256(w)));
        any = _mm256_or_pd(any, w);
    }
    return (_mm256_movemask_pd(any) != 0) | mb_wm_update_scalar(c, m, p, n, y, beta, n4);
}

__attribute__((target("avx2")))
static double mb_wm_class_sum_avx2(const double* c, const unsigned char* p, ptrdiff_t n, int v)
{
    __m256d a[4];
    const __m128i cmp = _mm_set1_epi8((char)v);
    ptrdiff_t k, j, n16 = n - n % 16;
    double s[16];
    for (j = 0; j < 4; j++)
        a[j] = _mm256_setzero_pd();
    for (k = 0; k < n16; k += 16)
        for (j = 0; j < 4; j++)
            a[j] = _mm256_add_pd(a[j], _mm256_and_pd(mb_mask4(p + k + 4 * j, cmp, 0),
                                                     _mm256_loadu_pd(c + k + 4 * j)));
    for (j = 0; j < 4; j++)
        _mm256_storeu_pd(s + 4 * j, a[j]);
    return mb_wm_class_sum_scalar(c, p, n, v, n16, s);
}

/* -- SSE2 ---------------------------------------------------------------------------------- */

static inline void mb_mask2x2(const unsigned char* p, __m128i cmp, int invert, __m128i* m01,
                              __m128i* m23)
{
    int word;
    __m128i b, lo, d;
    memcpy(&word, p, 4);
    b = _mm_cmpeq_epi8(_mm_cvtsi32_si128(word), cmp);
    if (invert)
        b = _mm_xor_si128(b, _mm_set1_epi8((char)0xFF));
    lo = _mm_unpacklo_epi8(b, b);
    d = _mm_unpacklo_epi16(lo, lo);
    *m01 = _mm_unpacklo_epi32(d, d);
    *m23 = _mm_unpackhi_epi32(d, d);
}

static void mb_wm_votes_sse2(const double* c, const unsigned char* p, ptrdiff_t n,
                             double* q0, double* q1)
{
    __m128d a[8], b[8];
    const __m128i one = _mm_set1_epi8(1);
    ptrdiff_t k, j, n16 = n - n % 16;
    double s[16], r[16];
    for (j = 0; j < 8; j++) {
        a[j] = _mm_setzero_pd();
        b[j] = _mm_setzero_pd();
    }
    for (k = 0; k < n16; k += 16) {
        for (j = 0; j < 8; j += 2) {
            __m128i i01, i23;
            __m128d m01, m23, c01, c23;
            mb_mask2x2(p + k + 2 * j, one, 0, &i01, &i23);
            m01 = _mm_castsi128_pd(i01);
            m23 = _mm_castsi128_pd(i23);
            c01 = _mm_loadu_pd(c + k + 2 * j);
            c23 = _mm_loadu_pd(c + k + 2 * j + 2);
            a[j] = _mm_add_pd(a[j], _mm_and_pd(m01, c01));
            a[j + 1] = _mm_add_pd(a[j + 1], _mm_and_pd(m23, c23));
            b[j] = _mm_add_pd(b[j], _mm_andnot_pd(m01, c01));
            b[j + 1] = _mm_add_pd(b[j + 1], _mm_andnot_pd(m23, c23));
        }
    }
    for (j = 0; j < 8; j++) {
        _mm_storeu_pd(s + 2 * j, a[j]);
        _mm_storeu_pd(r + 2 * j, b[j]);
    }
    mb_wm_votes_scalar(c, p, n, q0, q1, n16, s, r);
}

static double mb_wm_class_sum_sse2(const double* c, const unsigned char* p, ptrdiff_t n, int v)
{
    __m128d a[8];
    const __m128i cmp = _mm_set1_epi8((char)v);
    ptrdiff_t k, j, n16 = n - n % 16;
    double s[16];
    for (j = 0; j < 8; j++)
        a[j] = _mm_setzero_pd();
    for (k = 0; k < n16; k += 16) {
        for (j = 0; j < 8; j += 2) {
            __m128i i01, i23;
            mb_mask2x2(p + k + 2 * j, cmp, 0, &i01, &i23);
            a[j] = _mm_add_pd(a[j], _mm_and_pd(_mm_castsi128_pd(i01), _mm_loadu_pd(c + k + 2 * j)));
            a[j + 1] = _mm_add_pd(a[j + 1], _mm_and_pd(_mm_castsi128_pd(i23),
                                                       _mm_loadu_pd(c + k + 2 * j + 2)));
        }
    }
    for (j = 0; j < 8; j++)
        _mm_storeu_pd(s + 2 * j, a[j]);
    return mb_wm_class_sum_scalar(c, p, n, v, n16, s);
}

static int mb_wm_update_sse2(double* c, long long* m, const unsigned char* p, ptrdiff_t n,
                             int y, double beta)
{
    const __m128d bb = _mm_set1_pd(beta);
    const __m128i yv = _mm_set1_epi8((char)y);
    __m128i any = _mm_setzero_si128();
    ptrdiff_t k, j, n4 = n - n % 4;
    for (k = 0; k < n4; k += 4) {
        __m128i w[2];
        mb_mask2x2(p + k, yv, 1, &w[0], &w[1]);
        for (j = 0; j < 2; j++) {
            __m128d mask = _mm_castsi128_pd(w[j]);
            __m128d cv = _mm_loadu_pd(c + k + 2 * j);
            __m128d nc = _mm_or_pd(_mm_and_pd(mask, _mm_mul_pd(cv, bb)),
                                   _mm_andnot_pd(mask, cv));
            _mm_storeu_pd(c + k + 2 * j, nc);
            _mm_storeu_si128((__m128i*)(m + k + 2 * j),
                             _mm_sub_epi64(_mm_loadu_si128((const __m128i*)(m + k + 2 * j)),
                                           w[j]));
            any = _mm_or_si128(any, w[j]);
        }
    }
    return (_mm_movemask_epi8(any) != 0) | mb_wm_update_scalar(c, m, p, n, y, beta, n4);
}

static int mb_cpu_avx2 = -1;

static inline int mb_has_avx2(void)
{
    if (mb_cpu_avx2 < 0)
        mb_cpu_avx2 = mb_cpu_has_avx2();
    return mb_cpu_avx2;
}
#endif

/* -- the entry points ---------------------------------------------------------------------- */

static inline void mb_wm_votes(const double* c, const unsigned char* p, ptrdiff_t n,
                               double* q0, double* q1)
{
#ifdef MB_X86
    if (mb_has_avx2())
        mb_wm_votes_avx2(c, p, n, q0, q1);
    else
        mb_wm_votes_sse2(c, p, n, q0, q1);
#else
    double s[16] = {0.0}, r[16] = {0.0};
    mb_wm_votes_scalar(c, p, n, q0, q1, 0, s, r);
#endif
}

static inline int mb_wm_update_exact(double* c, long long* m, const unsigned char* p,
                                     ptrdiff_t n, int y, double beta)
{
#ifdef MB_X86
    if (mb_has_avx2())
        return mb_wm_update_avx2(c, m, p, n, y, beta);
    return mb_wm_update_sse2(c, m, p, n, y, beta);
#else
    return mb_wm_update_scalar(c, m, p, n, y, beta, 0);
#endif
}

static inline double mb_wm_class_sum(const double* c, const unsigned char* p, ptrdiff_t n,
                                     int v)
{
#ifdef MB_X86
    if (mb_has_avx2())
        return mb_wm_class_sum_avx2(c, p, n, v);
    return mb_wm_class_sum_sse2(c, p, n, v);
#else
    double s[16] = {0.0};
    return mb_wm_class_sum_scalar(c, p, n, v, 0, s);
#endif
}

/* For tests: which path runs (2 = AVX2, 1 = SSE2, 0 = scalar), and a way to force one. */
static inline int mb_wm_simd_level(void)
{
#ifdef MB_X86
    return mb_has_avx2() ? 2 : 1;
#else
    return 0;
#endif
}

static inline void mb_wm_force_level(int level)
{
#ifdef MB_X86
    mb_has_avx2();
    mb_cpu_avx2 = level >= 2 ? mb_cpu_has_avx2() : 0;
#else
    (void)level;
#endif
}

#endif
