/* What the CPU offers, for the run-time choice of the vector loops (AVX2) and of the popcounts
 * (POPCNT), read with the CPUID instruction (and XGETBV: whether the operating system saves the
 * AVX registers) rather than with __builtin_cpu_supports.
 *
 * That builtin reads a table (__cpu_model) kept by the compiler's runtime library, libgcc or
 * compiler-rt.  A toolchain that links all of its compiler-rt into the module to get it (zig cc,
 * which CI uses to build the wheel for glibc 2.17) links with it compiler-rt's own exp() and
 * floor() in place of the C library's, and the RBF kernel's exp() then differs in the last bit
 * from the one the pure-Python twin calls (math.exp, the C library's): the twins part.  With no
 * reference to the runtime library every module takes its maths from the C library.
 */
#ifndef MBCORE_CPU_H
#define MBCORE_CPU_H

#if (defined(__x86_64__) || defined(__i386__)) && (defined(__GNUC__) || defined(__clang__))
#include <cpuid.h>

/* POPCNT: CPUID leaf 1, ECX bit 23. */
static inline int mb_cpu_has_popcnt(void)
{
    unsigned a, b, c, d;
    if (!__get_cpuid(1, &a, &b, &c, &d))
        return 0;
    return (int)((c >> 23) & 1u);
}

/* AVX2: the CPU has AVX and OSXSAVE (leaf 1, ECX bits 28 and 27), the operating system saves
 * the XMM and YMM registers (XCR0 bits 1 and 2), and leaf 7 reports AVX2 (EBX bit 5). */
static inline int mb_cpu_has_avx2(void)
{
    unsigned a, b, c, d, lo, hi;
    if (!__get_cpuid(1, &a, &b, &c, &d))
        return 0;
    if (!((c >> 27) & 1u) || !((c >> 28) & 1u))
        return 0;
    __asm__ __volatile__(".byte 0x0f, 0x01, 0xd0" : "=a"(lo), "=d"(hi) : "c"(0));  /* xgetbv */
    (void)hi;
    if ((lo & 6u) != 6u)
        return 0;
    if (__get_cpuid_max(0, NULL) < 7)
        return 0;
    __cpuid_count(7, 0, a, b, c, d);
    return (int)((b >> 5) & 1u);
}
#else
static inline int mb_cpu_has_popcnt(void) { return 0; }
static inline int mb_cpu_has_avx2(void) { return 0; }
#endif

#endif
