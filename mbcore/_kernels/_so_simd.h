/* The diagonal second-order rules' score and confidence of a dense row, w . x and
 * sum_j (S_j x_j) x_j, in one loop, and their diagonal step: AVX2 when the CPU has it (chosen
 * at run time).  The score's loop also lists the blocks of four values that hold a non-zero
 * one (blk, n4 / 4 ints), so that the step visits those only.
 *
 * The arithmetic is the contract of mbref._arith: four partial sums per quantity, term k into
 * the partial k % 4, each product rounded before its addition (no fused multiply-add).  Here
 * the four partial sums of each quantity are the four lanes of one vector, so the two chains of
 * additions run side by side, four terms per addition: the same products added in the same
 * order as the scalar loops of _covariance.pxd, hence the same values bit for bit.  The first
 * n4 = n - n % 4 values only: the caller adds the tail and combines the partial sums as the
 * scalar loops do.  Elsewhere (no AVX2, other architectures, MBCORE_NO_SIMD) the functions
 * return 0 and the caller runs its scalar loops.
 */
#ifndef MBCORE_SO_SIMD_H
#define MBCORE_SO_SIMD_H

#include <stddef.h>

#if (defined(__GNUC__) || defined(__clang__)) && defined(__x86_64__) && !defined(MBCORE_NO_SIMD)
#define MB_SO_X86 1
#include <immintrin.h>
#include "_cpu.h"

/* The diagonal step over blocks of four values of a dense row, the blocks starting at blk[0..nb)
 * (blk NULL: the first nb blocks, 0, 4, 8, ...) (mbref._covariance.diag_step's body for each
 * non-zero x_j, four coordinates at a time): g = S_j x_j, w_j += ay g (w NULL:
 * the covariance alone), S_j = max(S_j / (1 + c g x_j), floor), as _covariance.pxd's diag_one
 * computes them; the coordinates whose x_j is 0.0 are left exactly as they were (blended
 * back), NaN counts as non-zero.  Distinct coordinates do not interact, so the order of the
 * scalar loop does not matter.  Returns 1 if a new value is not finite (exponent bits all
 * ones), else 0. */
#define MB_SO_STEP_AVX2(NAME, VT, LOAD4)                                                    \
    __attribute__((target("avx2"))) static int NAME(double* w, double* S, const VT* v,      \
                                                    const int* blk, ptrdiff_t nb, double ay, \
                                                    double c, double floor)                 \
    {                                                                                       \
        const __m256d Z = _mm256_setzero_pd(), ONE = _mm256_set1_pd(1.0);                   \
        const __m256d AY = _mm256_set1_pd(ay), CC = _mm256_set1_pd(c);                      \
        const __m256d FL = _mm256_set1_pd(floor);                                           \
        const __m256i EXP = _mm256_set1_epi64x(0x7ff0000000000000LL);                      \
        __m256i bad = _mm256_setzero_si256();                                               \
        ptrdiff_t q, k;                                                                     \
        for (q = 0; q < nb; q++) {                                                          \
            k = blk != NULL ? blk[q] : 4 * q;                                               \
            __m256d x = LOAD4(v + k);                                                       \
            __m256d m = _mm256_cmp_pd(x, Z, _CMP_NEQ_UQ);                                   \
            __m256i mi = _mm256_castpd_si256(m);                                            \
            __m256d s = _mm256_loadu_pd(S + k);                                             \
            __m256d g = _mm256_mul_pd(s, x);                                                \
            __m256d t;                                                                      \
            if (w != NULL) {                                                                \
                __m256d wo = _mm256_loadu_pd(w + k);                                        \
                t = _mm256_add_pd(wo, _mm256_mul_pd(AY, g));                                \
                _mm256_storeu_pd(w + k, _mm256_blendv_pd(wo, t, m));                        \
                bad = _mm256_or_si256(bad, _mm256_and_si256(mi, _mm256_cmpeq_epi64(         \
                    _mm256_and_si256(_mm256_castpd_si256(t), EXP), EXP)));                  \
            }                                                                               \
            t = _mm256_div_pd(s, _mm256_add_pd(ONE, _mm256_mul_pd(CC, _mm256_mul_pd(g, x)))); \
            bad = _mm256_or_si256(bad, _mm256_and_si256(mi, _mm256_cmpeq_epi64(             \
                _mm256_and_si256(_mm256_castpd_si256(t), EXP), EXP)));                      \
            t = _mm256_blendv_pd(FL, t, _mm256_cmp_pd(t, FL, _CMP_GE_OQ));                  \
            _mm256_storeu_pd(S + k, _mm256_blendv_pd(s, t, m));                             \
        }                                                                                   \
        return !_mm256_testz_si256(bad, bad);                                               \
    }

/* The diagonal second-order Perceptron's score over the first n4 values of a dense row: the
 * four partial sums of (theta_j x_j) / (A_j + x_j x_j), term j into partial j % 4, as
 * second_order.pyx's sop_diag_score (a zero's term is +-0.0, which changes no partial sum). */
#define MB_SO_SOP_AVX2(NAME, VT, LOAD4)                                                     \
    __attribute__((target("avx2"))) static void NAME(const double* V, const double* A,      \
                                                     const VT* v, ptrdiff_t n4, double* s)  \
    {                                                                                       \
        __m256d acc = _mm256_setzero_pd();                                                  \
        ptrdiff_t k;                                                                        \
        for (k = 0; k < n4; k += 4) {                                                       \
            __m256d x = LOAD4(v + k);                                                       \
            __m256d t = _mm256_div_pd(_mm256_mul_pd(_mm256_loadu_pd(V + k), x),             \
                                      _mm256_add_pd(_mm256_loadu_pd(A + k), _mm256_mul_pd(x, x))); \
            acc = _mm256_add_pd(acc, t);                                                    \
        }                                                                                   \
        _mm256_storeu_pd(s, acc);                                                           \
    }

/* The same step over the first n4 stored values of a CSR row (distinct column indices, as the
 * kernels check them): four coordinates fetched by index, updated as above, written back one
 * by one; a stored 0.0 leaves its coordinate as it was. */
#define MB_SO_STEP_CSR_AVX2(NAME, VT, IT, LOAD4)                                            \
    __attribute__((target("avx2"))) static int NAME(double* w, double* S, const VT* v,      \
                                                    const IT* ix, ptrdiff_t n4, double ay,  \
                                                    double c, double floor)                 \
    {                                                                                       \
        const __m256d Z = _mm256_setzero_pd(), ONE = _mm256_set1_pd(1.0);                   \
        const __m256d AY = _mm256_set1_pd(ay), CC = _mm256_set1_pd(c);                      \
        const __m256d FL = _mm256_set1_pd(floor);                                           \
        const __m256i EXP = _mm256_set1_epi64x(0x7ff0000000000000LL);                      \
        __m256i bad = _mm256_setzero_si256();                                               \
        double out[4];                                                                      \
        ptrdiff_t k;                                                                        \
        for (k = 0; k < n4; k += 4) {                                                       \
            IT j0 = ix[k], j1 = ix[k + 1], j2 = ix[k + 2], j3 = ix[k + 3];                  \
            __m256d x = LOAD4(v + k);                                                       \
            __m256d m = _mm256_cmp_pd(x, Z, _CMP_NEQ_UQ);                                   \
            __m256i mi = _mm256_castpd_si256(m);                                            \
            __m256d s = _mm256_set_pd(S[j3], S[j2], S[j1], S[j0]);                          \
            __m256d g = _mm256_mul_pd(s, x);                                                \
            __m256d t;                                                                      \
            if (w != NULL) {                                                                \
                __m256d wo = _mm256_set_pd(w[j3], w[j2], w[j1], w[j0]);                     \
                t = _mm256_add_pd(wo, _mm256_mul_pd(AY, g));                                \
                bad = _mm256_or_si256(bad, _mm256_and_si256(mi, _mm256_cmpeq_epi64(         \
                    _mm256_and_si256(_mm256_castpd_si256(t), EXP), EXP)));                  \
                _mm256_storeu_pd(out, _mm256_blendv_pd(wo, t, m));                          \
                w[j0] = out[0];                                                             \
                w[j1] = out[1];                                                             \
                w[j2] = out[2];                                                             \
                w[j3] = out[3];                                                             \
            }                                                                               \
            t = _mm256_div_pd(s, _mm256_add_pd(ONE, _mm256_mul_pd(CC, _mm256_mul_pd(g, x)))); \
            bad = _mm256_or_si256(bad, _mm256_and_si256(mi, _mm256_cmpeq_epi64(             \
                _mm256_and_si256(_mm256_castpd_si256(t), EXP), EXP)));                      \
            t = _mm256_blendv_pd(FL, t, _mm256_cmp_pd(t, FL, _CMP_GE_OQ));                  \
            _mm256_storeu_pd(out, _mm256_blendv_pd(s, t, m));                               \
            S[j0] = out[0];                                                                 \
            S[j1] = out[1];                                                                 \
            S[j2] = out[2];                                                                 \
            S[j3] = out[3];                                                                 \
        }                                                                                   \
        return !_mm256_testz_si256(bad, bad);                                               \
    }

/* 1: AVX2 is used; 0: not (no AVX2, or forced off by a test); set by mb_so_simd_init. */
static int mb_so_avx2 = 0;

#define MB_SO_SC_AVX2(NAME, VT, LOAD4)                                                      \
    __attribute__((target("avx2"))) static ptrdiff_t NAME(const double* w, const double* S, \
                                                          const VT* v, ptrdiff_t n4, double* a, \
                                                          double* b, int* blk)              \
    {                                                                                       \
        const __m256d Z = _mm256_setzero_pd();                                              \
        __m256d A = _mm256_setzero_pd(), B = _mm256_setzero_pd();                           \
        ptrdiff_t k, nb = 0;                                                                \
        for (k = 0; k < n4; k += 4) {                                                       \
            __m256d x = LOAD4(v + k);                                                       \
            blk[nb] = (int)k;                                                               \
            nb += _mm256_movemask_pd(_mm256_cmp_pd(x, Z, _CMP_NEQ_UQ)) != 0;                \
            A = _mm256_add_pd(A, _mm256_mul_pd(_mm256_loadu_pd(w + k), x));                 \
            B = _mm256_add_pd(B, _mm256_mul_pd(_mm256_mul_pd(_mm256_loadu_pd(S + k), x), x)); \
        }                                                                                   \
        _mm256_storeu_pd(a, A);                                                             \
        _mm256_storeu_pd(b, B);                                                             \
        return nb;                                                                          \
    }

#define MB_SO_LOAD_D(p) _mm256_loadu_pd(p)
#define MB_SO_LOAD_F(p) _mm256_cvtps_pd(_mm_loadu_ps(p))
MB_SO_SC_AVX2(mb_so_sc_d_avx2, double, MB_SO_LOAD_D)
MB_SO_SC_AVX2(mb_so_sc_f_avx2, float, MB_SO_LOAD_F)
MB_SO_STEP_AVX2(mb_so_step_d_avx2, double, MB_SO_LOAD_D)
MB_SO_STEP_AVX2(mb_so_step_f_avx2, float, MB_SO_LOAD_F)
MB_SO_STEP_CSR_AVX2(mb_so_cstep_di_avx2, double, int, MB_SO_LOAD_D)
MB_SO_STEP_CSR_AVX2(mb_so_cstep_dl_avx2, double, long long, MB_SO_LOAD_D)
MB_SO_STEP_CSR_AVX2(mb_so_cstep_fi_avx2, float, int, MB_SO_LOAD_F)
MB_SO_STEP_CSR_AVX2(mb_so_cstep_fl_avx2, float, long long, MB_SO_LOAD_F)
MB_SO_SOP_AVX2(mb_so_sop_d_avx2, double, MB_SO_LOAD_D)
MB_SO_SOP_AVX2(mb_so_sop_f_avx2, float, MB_SO_LOAD_F)

static inline int mb_so_sop_d(const double* V, const double* A, const double* v, ptrdiff_t n4,
                              double* s)
{
    if (!mb_so_avx2)
        return 0;
    mb_so_sop_d_avx2(V, A, v, n4, s);
    return 1;
}

static inline int mb_so_sop_f(const double* V, const double* A, const float* v, ptrdiff_t n4,
                              double* s)
{
    if (!mb_so_avx2)
        return 0;
    mb_so_sop_f_avx2(V, A, v, n4, s);
    return 1;
}

/* The step over the blocks blk[0..nb) (blk NULL: the first nb): -1 when AVX2 is not used (the
 * caller runs its scalar loop), else 1 if a value became non-finite, 0 if not.  The score:
 * -1 when AVX2 is not used, else the number of blocks it listed. */
static inline int mb_so_step_d(double* w, double* S, const double* v, const int* blk,
                               ptrdiff_t nb, double ay, double c, double floor)
{
    if (!mb_so_avx2)
        return -1;
    return mb_so_step_d_avx2(w, S, v, blk, nb, ay, c, floor);
}

static inline int mb_so_step_f(double* w, double* S, const float* v, const int* blk,
                               ptrdiff_t nb, double ay, double c, double floor)
{
    if (!mb_so_avx2)
        return -1;
    return mb_so_step_f_avx2(w, S, v, blk, nb, ay, c, floor);
}

static inline ptrdiff_t mb_so_sc_d(const double* w, const double* S, const double* v,
                                   ptrdiff_t n4, double* a, double* b, int* blk)
{
    if (!mb_so_avx2)
        return -1;
    return mb_so_sc_d_avx2(w, S, v, n4, a, b, blk);
}

static inline ptrdiff_t mb_so_sc_f(const double* w, const double* S, const float* v,
                                   ptrdiff_t n4, double* a, double* b, int* blk)
{
    if (!mb_so_avx2)
        return -1;
    return mb_so_sc_f_avx2(w, S, v, n4, a, b, blk);
}

/* The step over the first n4 stored values of a CSR row: -1 when AVX2 is not used (the caller
 * runs its scalar loop), else 1 if a value became non-finite, 0 if not. */
#define MB_SO_CSTEP(NAME, VT, IT)                                                           \
    static inline int NAME(double* w, double* S, const VT* v, const IT* ix, ptrdiff_t n4,   \
                           double ay, double c, double floor)                               \
    {                                                                                       \
        if (!mb_so_avx2)                                                                    \
            return -1;                                                                      \
        return NAME##_avx2(w, S, v, ix, n4, ay, c, floor);                                  \
    }
MB_SO_CSTEP(mb_so_cstep_di, double, int)
MB_SO_CSTEP(mb_so_cstep_dl, double, long long)
MB_SO_CSTEP(mb_so_cstep_fi, float, int)
MB_SO_CSTEP(mb_so_cstep_fl, float, long long)

/* At the module's import: AVX2 if the CPU has it.  For tests, level 0 forces the scalar loops
 * and 2 restores the default; returns the level in use (2: AVX2, 0: scalar). */
static inline int mb_so_simd_init(int level)
{
    mb_so_avx2 = level >= 2 ? mb_cpu_has_avx2() : 0;
    return mb_so_avx2 ? 2 : 0;
}

static inline int mb_so_simd_level(void)
{
    return mb_so_avx2 ? 2 : 0;
}

#else

#define MB_SO_CSTEP_NONE(NAME, VT, IT)                                                      \
    static inline int NAME(double* w, double* S, const VT* v, const IT* ix, ptrdiff_t n4,   \
                           double ay, double c, double floor)                               \
    {                                                                                       \
        (void)w; (void)S; (void)v; (void)ix; (void)n4; (void)ay; (void)c; (void)floor;      \
        return -1;                                                                          \
    }
MB_SO_CSTEP_NONE(mb_so_cstep_di, double, int)
MB_SO_CSTEP_NONE(mb_so_cstep_dl, double, long long)
MB_SO_CSTEP_NONE(mb_so_cstep_fi, float, int)
MB_SO_CSTEP_NONE(mb_so_cstep_fl, float, long long)

static inline int mb_so_sop_d(const double* V, const double* A, const double* v, ptrdiff_t n4,
                              double* s)
{
    (void)V; (void)A; (void)v; (void)n4; (void)s;
    return 0;
}

static inline int mb_so_sop_f(const double* V, const double* A, const float* v, ptrdiff_t n4,
                              double* s)
{
    (void)V; (void)A; (void)v; (void)n4; (void)s;
    return 0;
}

static inline int mb_so_step_d(double* w, double* S, const double* v, const int* blk,
                               ptrdiff_t nb, double ay, double c, double floor)
{
    (void)w; (void)S; (void)v; (void)blk; (void)nb; (void)ay; (void)c; (void)floor;
    return -1;
}

static inline int mb_so_step_f(double* w, double* S, const float* v, const int* blk,
                               ptrdiff_t nb, double ay, double c, double floor)
{
    (void)w; (void)S; (void)v; (void)blk; (void)nb; (void)ay; (void)c; (void)floor;
    return -1;
}

static inline ptrdiff_t mb_so_sc_d(const double* w, const double* S, const double* v,
                                   ptrdiff_t n4, double* a, double* b, int* blk)
{
    (void)w; (void)S; (void)v; (void)n4; (void)a; (void)b; (void)blk;
    return -1;
}

static inline ptrdiff_t mb_so_sc_f(const double* w, const double* S, const float* v,
                                   ptrdiff_t n4, double* a, double* b, int* blk)
{
    (void)w; (void)S; (void)v; (void)n4; (void)a; (void)b; (void)blk;
    return -1;
}

static inline int mb_so_simd_init(int level)
{
    (void)level;
    return 0;
}

static inline int mb_so_simd_level(void)
{
    return 0;
}

#endif

#endif
