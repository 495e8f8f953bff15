/* The pieces of text parsing the compiled readers share (readers.pyx: svmlight and CSV;
   vw.pyx: Vowpal Wabbit's format): decimal numbers, correctly rounded, and lines.

   Numbers: [+-] digits [. digits] [(e|E) [+-] digits], at least one digit in the significand,
   ASCII only.  The value is correctly rounded: exactly when the significand has at most 19
   digits and is at most 2**53 and the power of ten is at most 22 (Clinger's fast path, one
   exact IEEE operation), otherwise by the C library's strtod (correctly rounded on glibc) on
   the already validated token.  The twins (mbref.formats, mbref.vw) define the same grammar. */

#ifndef MBCORE_TEXT_H
#define MBCORE_TEXT_H

#include <string.h>
#include <stdlib.h>
#include <stdint.h>
#include <math.h>

static const double mbt_p10[23] = {1e0, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10,
    1e11, 1e12, 1e13, 1e14, 1e15, 1e16, 1e17, 1e18, 1e19, 1e20, 1e21, 1e22};

/* [s, e) as a decimal number (the grammar above): 1 and *out, or 0. */
static int mbt_decimal(const unsigned char *s, const unsigned char *e, double *out) {
    const unsigned char *p = s;
    int neg = 0, slow = 0, digits = 0, nd = 0;
    uint64_t m = 0;
    long exp10 = 0;
    double v;
    if (p < e && (*p == '+' || *p == '-')) { neg = (*p == '-'); p++; }
    while (p < e && *p >= '0' && *p <= '9') {
        if (nd < 19) { m = m * 10 + (uint64_t)(*p - '0'); if (m) nd++; } else { slow = 1; }
        digits++; p++;
    }
    if (p < e && *p == '.') {
        p++;
        while (p < e && *p >= '0' && *p <= '9') {
            if (nd < 19) { m = m * 10 + (uint64_t)(*p - '0'); if (m) nd++; exp10--; }
            else { slow = 1; }
            digits++; p++;
        }
    }
    if (!digits) return 0;
    if (p < e && (*p == 'e' || *p == 'E')) {
        int eneg = 0, ed = 0;
        long ex = 0;
        p++;
        if (p < e && (*p == '+' || *p == '-')) { eneg = (*p == '-'); p++; }
        while (p < e && *p >= '0' && *p <= '9') {
            if (ex < 100000) ex = ex * 10 + (*p - '0');
            ed++; p++;
        }
        if (!ed) return 0;
        exp10 += eneg ? -ex : ex;
    }
    if (p != e) return 0;
    if (!slow && m <= ((uint64_t)1 << 53) && exp10 >= -22 && exp10 <= 22) {
        v = (double)m;
        v = exp10 < 0 ? v / mbt_p10[-exp10] : v * mbt_p10[exp10];
        *out = neg ? -v : v;
        return 1;
    }
    {
        char small[128];
        char *b = small, *end = NULL;
        size_t n = (size_t)(e - s);
        if (n >= sizeof(small)) { b = (char *)malloc(n + 1); if (!b) return 0; }
        memcpy(b, s, n); b[n] = 0;
        *out = strtod(b, &end);
        if (end != b + n) { if (b != small) free(b); return 0; }   /* not the "C" locale */
        if (b != small) free(b);
    }
    return 1;
}

/* The end of the line starting at pos: *ce = the end of its content; returns the start of the
   next line.  Line breaks: \n, \r\n and a lone \r; cr = 0 says the buffer holds no \r. */
static inline Py_ssize_t mbt_eol(const unsigned char *buf, Py_ssize_t n, Py_ssize_t pos,
                                 Py_ssize_t *ce, int cr) {
    const unsigned char *q = (const unsigned char *)memchr(buf + pos, '\n', (size_t)(n - pos));
    Py_ssize_t le = q ? (Py_ssize_t)(q - buf) : n;
    const unsigned char *r = cr ? (const unsigned char *)memchr(buf + pos, '\r',
                                                                (size_t)(le - pos)) : NULL;
    if (r) {
        Py_ssize_t ri = (Py_ssize_t)(r - buf);
        *ce = ri;
        if (ri == le - 1 && q) return le + 1;    /* \r\n */
        return ri + 1;                          /* a lone \r */
    }
    *ce = le;
    return q ? le + 1 : n;
}

/* The number at s when it is written [+-]digits[.digits] with at most 19 significant digits, a
   value of at most 2**53 and no exponent, and is followed by the end of its token (a byte whose
   class in the reader's table cls has a bit of end; digits have class bit 1): returns its end,
   with *out exactly as mbt_decimal gives it for that token (its fast path's steps; such a value
   is finite).  Any other form: NULL, and the caller finds the token's end and reads it the long
   way.  One pass over the bytes for the common case.  The token must lie within a line that
   ends with a line break in the buffer (the break, an end in every table, stops every loop). */
#if defined(__GNUC__) || defined(__clang__)
__attribute__((always_inline))
#endif
static inline const unsigned char *mbt_number_fast(const unsigned char *s, double *out,
                                                   const unsigned char *cls, unsigned char end)
{
    const unsigned char *p = s;
    int neg = 0, digits = 0, nd = 0;
    uint64_t m = 0;
    long exp10 = 0;
    double v;
    if (*p == '+' || *p == '-') { neg = (*p == '-'); p++; }
    if ((cls[p[0]] & 1) && (cls[p[1]] & end)) {                /* one digit: 1, 0, ... */
        v = (double)(*p - '0');
        *out = neg ? -v : v;
        return p + 1;
    }
    while ((cls[*p] & 1)) {
        if (nd >= 19) return NULL;
        m = m * 10 + (uint64_t)(*p - '0'); if (m) nd++;
        digits++; p++;
    }
    if (*p == '.') {
        p++;
        while ((cls[*p] & 1)) {
            if (nd >= 19) return NULL;
            m = m * 10 + (uint64_t)(*p - '0'); if (m) nd++; exp10--;
            digits++; p++;
        }
    }
    if (!digits || !(cls[*p] & end)) return NULL;
    if (m > ((uint64_t)1 << 53) || exp10 < -22) return NULL;
    v = (double)m;
    if (exp10 < 0)                              /* (exp10 is never above 0 here) */
        v = v / mbt_p10[-exp10];
    *out = neg ? -v : v;
    return p;
}

#endif
