# cython: boundscheck=False, wraparound=False, initializedcheck=False, cdivision=True, language_level=3
"""Compiled parser of Vowpal Wabbit's text format, one buffer of whole lines at a time.

``vw_parse`` takes a bytes-like buffer of whole lines (ending with a line break: the Python
side adds one after the last line of a file) and fills preallocated NumPy arrays for one CSR
chunk (labels, importance weights, indptr, columns, values) under ``nogil``, with no Python
object or allocation per token.  Features are hashed as Vowpal Wabbit hashes them (MurmurHash3
x86_32, VW's ``hashstring``), masked to ``bits`` bits, into int32 columns (bits <= 31: every
column fits); repeated columns of a line are summed in the order written and each row is sorted
by column.  The features are read in one pass over their bytes, as the svmlight parser reads
``idx:value``: an all-digit name is hashed as its digits are read (VW hashes it to its value
plus the namespace's hash), a common value (no exponent, at most 19 digits) is read in the same
pass, and a row whose columns come strictly increasing (integer names written in order, as
in a9a's text) is neither sorted nor merged: the check costs one comparison per feature.  A
row that is not is sorted stably (in place by insertion when short, else through scratch keys
that carry the position) and its repeats summed.  It stops when the buffer is consumed, the
chunk is full (rows, or stored pairs: the caller grows the arrays and calls again), the scratch
is too short for a row (likewise), or at the first bad line, whose number and reason it
reports; with ``skip`` it drops the bad line, counts it and goes on.  The semantics (grammar,
hashing, values, errors and their order) are those of the pure-Python twin ``mbref.vw``.

The state array ``st`` (int64) carries the position and counters between calls; its layout is
the ``VW_*`` constants of ``mbcore._vw_format``.
"""

from libc.stdint cimport int32_t, int64_t, uint32_t

cdef extern from *:
    """
    #include "_text.h"

    static inline uint32_t vw_rotl(uint32_t x, int r) { return (x << r) | (x >> (32 - r)); }

    /* MurmurHash3 x86_32 (Appleby), bytes read little-endian whatever the machine. */
    static uint32_t vw_murmur(const unsigned char *p, size_t n, uint32_t seed) {
        const uint32_t c1 = 0xcc9e2d51u, c2 = 0x1b873593u;
        uint32_t h = seed, k;
        size_t i, nb = n / 4;
        for (i = 0; i < nb; i++) {
            const unsigned char *b = p + 4 * i;
            k = (uint32_t)b[0] | ((uint32_t)b[1] << 8) | ((uint32_t)b[2] << 16) |
                ((uint32_t)b[3] << 24);
            k *= c1; k = vw_rotl(k, 15); k *= c2;
            h ^= k; h = vw_rotl(h, 13); h = h * 5u + 0xe6546b64u;
        }
        k = 0;
        p += 4 * nb;
        switch (n & 3u) {
            case 3: k ^= (uint32_t)p[2] << 16;   /* fall through */
            case 2: k ^= (uint32_t)p[1] << 8;    /* fall through */
            case 1: k ^= (uint32_t)p[0];
                    k *= c1; k = vw_rotl(k, 15); k *= c2; h ^= k;
        }
        h ^= (uint32_t)n;
        h ^= h >> 16; h *= 0x85ebca6bu; h ^= h >> 13; h *= 0xc2b2ae35u; h ^= h >> 16;
        return h;
    }

    /* VW's hashstring: strip bytes 0x00-0x20 at both ends; all digits: value + seed (mod
       2**32); otherwise MurmurHash3 seeded with seed. */
    static uint32_t vw_hashstring(const unsigned char *s, size_t n, uint32_t seed) {
        uint32_t v = 0;
        size_t i;
        while (n > 0 && s[0] <= 0x20) { s++; n--; }
        while (n > 0 && s[n - 1] <= 0x20) n--;
        for (i = 0; i < n; i++) {
            if (s[i] < '0' || s[i] > '9') return vw_murmur(s, n, seed);
            v = v * 10u + (uint32_t)(s[i] - '0');
        }
        return v + seed;
    }

    /* [s, e) as a finite decimal number (_text.h; no inf / nan): 1 and *out, or 0. */
    static int vw_number(const unsigned char *s, const unsigned char *e, double *out) {
        double v;
        if (!mbt_decimal(s, e, &v) || !isfinite(v)) return 0;
        *out = v;
        return 1;
    }

    /* Character classes for the hot loops: 1 a digit; 2 the end of a name (' ', '\\t', '|',
       ':' and the line breaks that end every line of a buffer); 4 the end of a value (the same
       but ':'). */
    static unsigned char vw_cls[256];
    static void vw_init_cls(void) {
        int c;
        for (c = '0'; c <= '9'; c++) vw_cls[c] = 1;
        vw_cls[' '] = vw_cls['\\t'] = 2 | 4;
        vw_cls['|'] = vw_cls['\\n'] = vw_cls['\\r'] = 2 | 4 | 8;
        vw_cls[':'] = 2;
    }
    #define VW_DIGIT(c) (vw_cls[(unsigned char)(c)] & 1)
    #define VW_NAME_END(c) (vw_cls[(unsigned char)(c)] & 2)
    #define VW_VALUE_END(c) (vw_cls[(unsigned char)(c)] & 4)
    #define VW_LABEL_END(c) (vw_cls[(unsigned char)(c)] & 8)

    /* The value at s when it is written [+-]digits[.digits] with at most 19 significant digits,
       a value of at most 2**53 and no exponent, and is followed by the end of a value (' ',
       '\\t', '|' or the line break): returns its end, with *out exactly as vw_number gives it
       for that token (the steps of mbt_decimal's fast path; such a value is finite).  Any
       other form: NULL, and the caller finds the token's end and asks vw_number.  The token
       must lie within a line that ends with a line break in the buffer (the break stops every
       loop: no bound is needed). */
    #define vw_number_fast(s, out) mbt_number_fast((s), (out), vw_cls, 4)

    /* Shell sort of distinct keys (column << 32 | position in the row). */
    static void vw_sort_keys(int64_t *k, Py_ssize_t n) {
        static const Py_ssize_t gaps[] = {701, 301, 132, 57, 23, 10, 4, 1};
        int g;
        for (g = 0; g < 8; g++) {
            Py_ssize_t gap = gaps[g], i, j;
            for (i = gap; i < n; i++) {
                int64_t tk = k[i];
                for (j = i; j >= gap && k[j - gap] > tk; j -= gap) k[j] = k[j - gap];
                k[j] = tk;
            }
        }
    }

    /* A row shorter than this that is not already strictly increasing is sorted in place by
       insertion (stable); a longer one through the scratch arrays (keys that carry the
       position, so the order of repeats is kept). */
    #define VW_INSERTION 24

    /* A namespace name of the buffer and its hash. */
    #define VW_NSCACHE 4
    typedef struct { const unsigned char *s; Py_ssize_t n; uint32_t h; } VWName;

    enum { VW_POS, VW_LINE, VW_ROW, VW_NNZ, VW_CODE, VW_ELINE, VW_TOK0, VW_TOK1, VW_AUX0,
           VW_AUX1, VW_SKIPPED, VW_FIRSTSKIP, VW_NEED };
    enum { EV_NOBAR = 1, EV_NOLABEL, EV_SHARED, EV_LDF, EV_WORDS, EV_LABEL, EV_WEIGHT, EV_BASE,
           EV_NSNAME, EV_NSWEIGHT, EV_VALUE, EV_OVERFLOW };

    static inline int vw_sep(unsigned char c) { return c == ' ' || c == '\\t' || c == '|'; }
    static inline int vw_name_end(unsigned char c) {
        return c == ' ' || c == '\\t' || c == '|' || c == ':';
    }
    static inline int vw_blank(unsigned char c) {
        return c == ' ' || c == '\\t' || c == '\\v' || c == '\\f';
    }
    /* The start of the next line, after the line break at buf[q] (\\n, \\r\\n or \\r). */
    static inline Py_ssize_t vw_next(const unsigned char *buf, Py_ssize_t n, Py_ssize_t q) {
        return q + 1 + (buf[q] == '\\r' && q + 1 < n && buf[q + 1] == '\\n');
    }

    /* 0: buffer consumed, 1: rows full, 2: pairs full, 3: error (st[VW_CODE] ...), 4: the
       scratch arrays (keys, vals: room for nscratch pairs) are too short for a row to sort:
       st[VW_NEED] pairs are needed.  Statuses 2 and 4 leave the line unread (the caller grows
       the arrays and calls again).  The columns are int32 (every column fits: bits <= 31).
       The buffer ends with a line break. */
    static int vw_parse_c(const unsigned char *buf, Py_ssize_t n, int64_t *st, double *labels,
                          double *weights, int64_t *indptr, int32_t *ind, double *data,
                          int64_t *keys, double *vals, Py_ssize_t nscratch, Py_ssize_t max_rows,
                          Py_ssize_t cap, uint64_t mask, uint32_t seed, int skip,
                          int64_t *lines) {
        Py_ssize_t pos = (Py_ssize_t)st[VW_POS], line = (Py_ssize_t)st[VW_LINE];
        Py_ssize_t row = (Py_ssize_t)st[VW_ROW], nnz = (Py_ssize_t)st[VW_NNZ];
        uint32_t anon_hash = seed == 0 ? 0u : vw_murmur((const unsigned char *)"", 0, seed);
        VWName nscache[VW_NSCACHE];
        int status = 0;
        memset(nscache, 0, sizeof(nscache));
        while (pos < n) {
            Py_ssize_t ce, next, p, q, ls, le, ts = 0, te = 0, a0 = 0, a1 = 0, start = nnz;
            Py_ssize_t ws[3] = {0, 0, 0}, we[3] = {0, 0, 0}, last_s = 0;
            const unsigned char *tab;
            int code = 0, nw = 0, bare_tag = 0, sorted = 1;
            int64_t prev = -1;
            Py_ssize_t k;
            double lab = 0.0, wt = 1.0, base;
            if (row >= max_rows) { status = 1; break; }
            line++;
            p = pos;
            /* (the buffer ends with a line break: each test below stops at it) */
            if (buf[p] == 0xef && buf[p + 1] == 0xbb && buf[p + 2] == 0xbf) p += 3;
            /* a blank line is skipped; the label part goes up to the first '|' (its first tab
               noted on the way); the line's end is found when the features are read (or, for
               a bad line, by mbt_eol) */
            q = p;
            while (vw_blank(buf[q])) q++;
            if (buf[q] == '\\n' || buf[q] == '\\r') { pos = vw_next(buf, n, q); continue; }
            tab = NULL;
            q = p;
            while (!VW_LABEL_END(buf[q])) {
                if (buf[q] == '\\t' && !tab) tab = buf + q;
                q++;
            }
            if (buf[q] != '|') { code = EV_NOBAR; goto done; }      /* a line break */
            ls = p; le = q;
            if (tab) ls = (Py_ssize_t)(tab - buf) + 1;
            q = ls;
            while (q < le) {
                Py_ssize_t s;
                while (q < le && buf[q] == ' ') q++;
                if (q == le) break;
                s = q;
                while (q < le && buf[q] != ' ') q++;
                if (nw < 3) { ws[nw] = s; we[nw] = q; }
                last_s = s;
                nw++;
            }
            if (nw && (buf[le - 1] != ' ' || buf[last_s] == '\\'')) {
                bare_tag = buf[last_s] != '\\'';
                nw--;
            }
            if (!nw) { code = EV_NOLABEL; a0 = bare_tag; goto done; }
            ts = ws[0]; te = we[0];
            if (te - ts == 6 && memcmp(buf + ts, "shared", 6) == 0) { code = EV_SHARED; goto done; }
            if (memchr(buf + ts, ':', (size_t)(te - ts))) { code = EV_LDF; goto done; }
            if (nw > 3) { code = EV_WORDS; a0 = nw; goto done; }
            if (vw_number_fast(buf + ts, &lab) != buf + te &&      /* ("1" or "-1": one pass) */
                    !vw_number(buf + ts, buf + te, &lab)) {
                code = EV_LABEL; goto done;
            }
            if (nw >= 2) {
                ts = ws[1]; te = we[1];
                if (!vw_number(buf + ts, buf + te, &wt) || wt < 0) { code = EV_WEIGHT; goto done; }
            }
            if (nw == 3) {
                ts = ws[2]; te = we[2];
                if (!vw_number(buf + ts, buf + te, &base) || base != 0) {
                    code = EV_BASE; goto done;
                }
            }
            /* the features, in one pass over their bytes: an all-digit name is hashed as it is
               read (its value plus the namespace hash), any other goes to vw_hashstring; a
               common value is read by vw_number_fast; the row is sorted and its repeats summed
               only when its columns do not come strictly increasing */
            p = le;
            for (k = 0; buf[p] == '|'; k++) {
                uint32_t h;
                uint64_t anon = 0;
                double w = 1.0;
                int wzero;
                p++;
                if (VW_VALUE_END(buf[p])) {              /* ' ', '\\t', '|', the end */
                    h = anon_hash;
                } else if (buf[p] == ':') {
                    code = EV_NSNAME; goto done;
                } else {
                    /* the k-th namespace of a line is often the k-th of the line before: its
                       hash is kept (per call, for the first VW_NSCACHE) */
                    VWName *cached = k < VW_NSCACHE ? &nscache[k] : NULL;
                    q = p;
                    while (!VW_NAME_END(buf[q])) q++;
                    if (cached && cached->s && cached->n == q - p &&
                            memcmp(cached->s, buf + p, (size_t)(q - p)) == 0) {
                        h = cached->h;
                    } else {
                        h = vw_hashstring(buf + p, (size_t)(q - p), seed);
                        if (cached) { cached->s = buf + p; cached->n = q - p; cached->h = h; }
                    }
                    p = q;
                    if (buf[p] == ':') {
                        q = p + 1;
                        while (!VW_VALUE_END(buf[q])) q++;
                        if (!vw_number(buf + p + 1, buf + q, &w)) {
                            ts = p + 1; te = q; code = EV_NSWEIGHT; goto done;
                        }
                        p = q;
                    }
                }
                wzero = w == 0;
                while (buf[p] == ' ' || buf[p] == '\\t') {
                    Py_ssize_t ns, ne;
                    uint32_t col, num = 0, d;
                    double x, v;
                    unsigned char c;
                    p++;
                    c = buf[p];
                    if (VW_VALUE_END(c)) continue;               /* ' ', '\\t', '|', the end */
                    ns = p;
                    d = (uint32_t)c - '0';
                    while (d < 10) { num = num * 10u + d; c = buf[++p]; d = (uint32_t)c - '0'; }
                    if (VW_NAME_END(c)) {
                        if (p == ns) {                           /* :value, anonymous */
                            col = (uint32_t)(((uint64_t)h + anon) & mask);
                            anon++;
                        } else {                                 /* VW's hashstring of digits */
                            col = (num + h) & (uint32_t)mask;
                        }
                    } else {
                        while (!VW_NAME_END(c)) c = buf[++p];
                        col = vw_hashstring(buf + ns, (size_t)(p - ns), h) & (uint32_t)mask;
                    }
                    if (c == ':') {
                        const unsigned char *f = vw_number_fast(buf + p + 1, &x);
                        ne = p;
                        if (f) {
                            p = (Py_ssize_t)(f - buf);
                        } else {
                            q = p + 1;
                            while (!VW_VALUE_END(buf[q])) q++;
                            if (!vw_number(buf + p + 1, buf + q, &x)) {
                                ts = p + 1; te = q; a0 = ns; a1 = ne; code = EV_VALUE; goto done;
                            }
                            p = q;
                        }
                        v = w * x;
                        if (!isfinite(v)) { code = EV_OVERFLOW; goto done; }
                        if (v == 0) continue;
                    } else {                                     /* the value 1: w * 1 = w */
                        if (wzero) continue;
                        v = w;
                    }
                    if (nnz >= cap) {              /* the caller grows the arrays */
                        nnz = start; line--; status = 2; goto out;
                    }
                    sorted &= (int64_t)col > prev;
                    prev = (int64_t)col;
                    ind[nnz] = (int32_t)col;
                    data[nnz] = v;
                    nnz++;
                }
            }
            next = vw_next(buf, n, p);                 /* buf[p]: the line break */
            if (!sorted) {
                /* sort by column (stable: repeats stay in the order written), sum repeats */
                Py_ssize_t i, j, o = start, m = nnz - start;
                int summed = 0;
                if (m < VW_INSERTION) {
                    for (i = start + 1; i < nnz; i++) {
                        int32_t tk = ind[i];
                        double tv = data[i];
                        for (j = i; j > start && ind[j - 1] > tk; j--) {
                            ind[j] = ind[j - 1]; data[j] = data[j - 1];
                        }
                        ind[j] = tk; data[j] = tv;
                    }
                } else {
                    if (m > nscratch) {            /* the caller grows the scratch arrays */
                        st[VW_NEED] = m; nnz = start; line--; status = 4; goto out;
                    }
                    for (i = 0; i < m; i++) {
                        keys[i] = (int64_t)(((uint64_t)ind[start + i] << 32) | (uint64_t)i);
                        vals[i] = data[start + i];
                    }
                    vw_sort_keys(keys, m);
                    for (i = 0; i < m; i++) {
                        ind[start + i] = (int32_t)((uint64_t)keys[i] >> 32);
                        data[start + i] = vals[(Py_ssize_t)((uint64_t)keys[i] & 0xffffffffu)];
                    }
                }
                for (i = start + 1; i < nnz; i++) {
                    int32_t c = ind[i];
                    if (c == ind[o]) { data[o] += data[i]; summed = 1; }
                    else { o++; ind[o] = c; data[o] = data[i]; }
                }
                nnz = o + 1;
                if (summed) {
                    for (i = start; i < nnz; i++) {
                        if (!isfinite(data[i])) { code = EV_OVERFLOW; goto done; }
                    }
                }
            }
        done:
            if (code) {
                nnz = start;
                next = mbt_eol(buf, n, pos, &ce, 1);
                if (skip) {
                    if (!st[VW_SKIPPED]) st[VW_FIRSTSKIP] = line;
                    st[VW_SKIPPED]++;
                    pos = next;
                    continue;
                }
                st[VW_CODE] = code; st[VW_ELINE] = line; st[VW_TOK0] = ts; st[VW_TOK1] = te;
                st[VW_AUX0] = a0; st[VW_AUX1] = a1;
                pos = next;
                status = 3;
                break;
            }
            labels[row] = lab;
            weights[row] = wt;
            if (lines) lines[row] = line;
            row++;
            indptr[row] = nnz;
            pos = next;
        }
    out:
        st[VW_POS] = pos; st[VW_LINE] = line; st[VW_ROW] = row; st[VW_NNZ] = nnz;
        return status;
    }
    """
    uint32_t vw_murmur(const unsigned char *p, size_t n, uint32_t seed) nogil
    uint32_t vw_hashstring(const unsigned char *s, size_t n, uint32_t seed) nogil
    void vw_init_cls()
    int vw_parse_c(const unsigned char *buf, Py_ssize_t n, int64_t *st, double *labels,
                   double *weights, int64_t *indptr, int32_t *ind, double *data,
                   int64_t *keys, double *vals, Py_ssize_t nscratch, Py_ssize_t max_rows,
                   Py_ssize_t cap, unsigned long long mask, uint32_t seed, int skip,
                   int64_t *lines) nogil

vw_init_cls()


def murmurhash3_32(const unsigned char[::1] data, uint32_t seed=0):
    """MurmurHash3 x86_32 of ``data`` (bytes-like), an int in [0, 2**32)."""
    cdef Py_ssize_t n = data.shape[0]
    cdef uint32_t h
    cdef const unsigned char *p = &data[0] if n else <const unsigned char *>b""
    with nogil:
        h = vw_murmur(p, <size_t>n, seed)
    return h


def hashstring(const unsigned char[::1] data, uint32_t seed):
    """Vowpal Wabbit's hash of a name (see ``mbref.vw.hashstring``)."""
    cdef Py_ssize_t n = data.shape[0]
    cdef uint32_t h
    cdef const unsigned char *p = &data[0] if n else <const unsigned char *>b""
    with nogil:
        h = vw_hashstring(p, <size_t>n, seed)
    return h


def vw_parse(const unsigned char[::1] buf, int64_t[::1] st, double[::1] labels,
             double[::1] weights, int64_t[::1] indptr, int32_t[::1] indices, double[::1] data,
             int64_t[::1] keys, double[::1] vals, Py_ssize_t max_rows, int bits, uint32_t seed,
             bint skip, int64_t[::1] lines=None):
    """Parse VW lines of ``buf`` (whole lines: it ends with a line break) from ``st[VW_POS]``
    into the chunk arrays.

    Rows go to ``labels[row]``, ``weights[row]`` and ``indptr[row + 1]`` (``indptr[0]`` is set
    by the caller), pairs to ``indices``/``data`` (int32 columns < 2**bits, sorted within the
    row).  ``keys``/``vals`` are scratch for sorting a long row whose columns do not come in
    increasing order (their contents are not kept).  Returns 0 (buffer consumed), 1
    (``max_rows`` rows), 2 (``indices`` full: grow it and call again; a line needs at most as
    many pairs as it has features), 3 (a bad line; see ``st``) or 4 (the scratch is too short
    for a row: grow ``keys`` and ``vals`` to ``st[VW_NEED]`` and call again).  ``lines``
    (optional) gets the line of each row."""
    cdef Py_ssize_t n = buf.shape[0]
    cdef int status
    cdef int64_t *lp = NULL
    if lines is not None:
        if lines.shape[0] < max_rows:
            raise ValueError("vw_parse: inconsistent arguments")
        if lines.shape[0]:
            lp = &lines[0]
    cdef unsigned long long mask
    cdef Py_ssize_t nscratch = min(keys.shape[0], vals.shape[0])
    if not 1 <= bits <= 31:
        raise ValueError("vw_parse: bits must be in [1, 31]")
    mask = (1ULL << bits) - 1
    if max_rows > labels.shape[0] or max_rows > weights.shape[0] or \
            indptr.shape[0] < max_rows + 1 or data.shape[0] < indices.shape[0] or \
            st.shape[0] < 13 or not 0 <= st[0] <= n or not 0 <= st[2] <= max_rows or \
            not 0 <= st[3] <= indices.shape[0]:
        raise ValueError("vw_parse: inconsistent arguments")
    if n == 0:
        return 0
    if buf[n - 1] != 10 and buf[n - 1] != 13:       # the parser's loops stop at line breaks
        raise ValueError("vw_parse: the buffer must end with a line break")
    with nogil:
        status = vw_parse_c(&buf[0], n, &st[0], &labels[0] if labels.shape[0] else NULL,
                            &weights[0] if weights.shape[0] else NULL, &indptr[0],
                            &indices[0] if indices.shape[0] else NULL,
                            &data[0] if data.shape[0] else NULL,
                            &keys[0] if keys.shape[0] else NULL,
                            &vals[0] if vals.shape[0] else NULL,
                            nscratch, max_rows, indices.shape[0], mask, seed, skip, lp)
    return status
