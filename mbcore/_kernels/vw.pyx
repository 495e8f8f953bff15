# cython: boundscheck=False, wraparound=False, initializedcheck=False, cdivision=True, language_level=3
"""Compiled parser of Vowpal Wabbit's text format, one buffer of whole lines at a time.

``vw_parse`` takes a bytes-like buffer of whole lines (ending with a line break: the Python
side adds one after the last line of a file) and fills preallocated NumPy arrays for one CSR
chunk (labels, importance weights, indptr, columns, values) under ``nogil``, with no Python
object or allocation per token.  Features are hashed as Vowpal Wabbit hashes them (MurmurHash3
x86_32, VW's ``hashstring``), masked to ``bits`` bits; repeated columns of a line are summed in
the order written and each row is sorted by column.  It stops when the buffer is consumed, the
chunk is full (rows, or stored pairs: the caller grows the arrays and calls again), or at the
first bad line, whose number and reason it reports; with ``skip`` it drops the bad line, counts
it and goes on.  The semantics (grammar, hashing, values, errors and their order) are those of
the pure-Python twin ``mbref.vw``.

The state array ``st`` (int64) carries the position and counters between calls; its layout is
the ``VW_*`` constants of ``mbcore._vw_format``.
"""

from libc.stdint cimport int64_t, uint32_t

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

    /* Sort keys (column << 32 | position in the line, all distinct) with their values. */
    static void vw_sort(int64_t *k, double *v, Py_ssize_t n) {
        static const Py_ssize_t gaps[] = {701, 301, 132, 57, 23, 10, 4, 1};
        int g;
        for (g = 0; g < 8; g++) {
            Py_ssize_t gap = gaps[g], i, j;
            for (i = gap; i < n; i++) {
                int64_t tk = k[i]; double tv = v[i];
                for (j = i; j >= gap && k[j - gap] > tk; j -= gap) {
                    k[j] = k[j - gap]; v[j] = v[j - gap];
                }
                k[j] = tk; v[j] = tv;
            }
        }
    }

    enum { VW_POS, VW_LINE, VW_ROW, VW_NNZ, VW_CODE, VW_ELINE, VW_TOK0, VW_TOK1, VW_AUX0,
           VW_AUX1, VW_SKIPPED, VW_FIRSTSKIP };
    enum { EV_NOBAR = 1, EV_NOLABEL, EV_SHARED, EV_LDF, EV_WORDS, EV_LABEL, EV_WEIGHT, EV_BASE,
           EV_NSNAME, EV_NSWEIGHT, EV_VALUE, EV_OVERFLOW };

    static inline int vw_sep(unsigned char c) { return c == ' ' || c == '\\t' || c == '|'; }
    static inline int vw_name_end(unsigned char c) {
        return c == ' ' || c == '\\t' || c == '|' || c == ':';
    }
    static inline int vw_blank(unsigned char c) {
        return c == ' ' || c == '\\t' || c == '\\v' || c == '\\f';
    }

    /* 0: buffer consumed, 1: rows full, 2: pairs full, 3: error (st[VW_CODE] ...). */
    static int vw_parse_c(const unsigned char *buf, Py_ssize_t n, int64_t *st, double *labels,
                          double *weights, int64_t *indptr, int64_t *ind, double *data,
                          Py_ssize_t max_rows, Py_ssize_t cap, uint64_t mask, uint32_t seed,
                          int skip) {
        Py_ssize_t pos = (Py_ssize_t)st[VW_POS], line = (Py_ssize_t)st[VW_LINE];
        Py_ssize_t row = (Py_ssize_t)st[VW_ROW], nnz = (Py_ssize_t)st[VW_NNZ];
        uint32_t anon_hash = seed == 0 ? 0u : vw_murmur((const unsigned char *)"", 0, seed);
        int status = 0;
        while (pos < n) {
            Py_ssize_t ce, next, p, q, ls, le, ts = 0, te = 0, a0 = 0, a1 = 0, start = nnz;
            Py_ssize_t ws[3] = {0, 0, 0}, we[3] = {0, 0, 0}, last_s = 0, last_e = 0;
            const unsigned char *bar, *tab;
            int code = 0, nw = 0, bare_tag = 0;
            int64_t k = 0;
            double lab = 0.0, wt = 1.0, base;
            if (row >= max_rows) { status = 1; break; }
            next = mbt_eol(buf, n, pos, &ce, 1);
            line++;
            p = pos;
            if (ce - p >= 3 && buf[p] == 0xef && buf[p + 1] == 0xbb && buf[p + 2] == 0xbf) p += 3;
            q = p;
            while (q < ce && vw_blank(buf[q])) q++;
            if (q == ce) { pos = next; continue; }
            bar = (const unsigned char *)memchr(buf + p, '|', (size_t)(ce - p));
            if (!bar) { code = EV_NOBAR; goto done; }
            /* the label part */
            ls = p; le = (Py_ssize_t)(bar - buf);
            tab = (const unsigned char *)memchr(buf + ls, '\\t', (size_t)(le - ls));
            if (tab) ls = (Py_ssize_t)(tab - buf) + 1;
            q = ls;
            while (q < le) {
                Py_ssize_t s;
                while (q < le && buf[q] == ' ') q++;
                if (q == le) break;
                s = q;
                while (q < le && buf[q] != ' ') q++;
                if (nw < 3) { ws[nw] = s; we[nw] = q; }
                last_s = s; last_e = q;
                nw++;
            }
            if (nw && (buf[le - 1] != ' ' || buf[last_s] == '\\'')) {
                bare_tag = buf[last_s] != '\\'';
                nw--;
            }
            (void)last_e;
            if (!nw) { code = EV_NOLABEL; a0 = bare_tag; goto done; }
            ts = ws[0]; te = we[0];
            if (te - ts == 6 && memcmp(buf + ts, "shared", 6) == 0) { code = EV_SHARED; goto done; }
            if (memchr(buf + ts, ':', (size_t)(te - ts))) { code = EV_LDF; goto done; }
            if (nw > 3) { code = EV_WORDS; a0 = nw; goto done; }
            if (!vw_number(buf + ts, buf + te, &lab)) { code = EV_LABEL; goto done; }
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
            /* the features */
            p = le;
            while (p < ce && buf[p] == '|') {
                uint32_t h;
                uint64_t anon = 0;
                double w = 1.0;
                p++;
                if (p == ce || vw_sep(buf[p])) {
                    h = anon_hash;
                } else if (buf[p] == ':') {
                    code = EV_NSNAME; goto done;
                } else {
                    q = p;
                    while (q < ce && !vw_name_end(buf[q])) q++;
                    h = vw_hashstring(buf + p, (size_t)(q - p), seed);
                    p = q;
                    if (p < ce && buf[p] == ':') {
                        q = p + 1;
                        while (q < ce && !vw_sep(buf[q])) q++;
                        if (!vw_number(buf + p + 1, buf + q, &w)) {
                            ts = p + 1; te = q; code = EV_NSWEIGHT; goto done;
                        }
                        p = q;
                    }
                }
                while (p < ce && (buf[p] == ' ' || buf[p] == '\\t')) {
                    Py_ssize_t ns, ne;
                    uint64_t col;
                    double x = 1.0, v;
                    p++;
                    if (p == ce || vw_sep(buf[p])) continue;
                    ns = p;
                    while (p < ce && !vw_name_end(buf[p])) p++;
                    ne = p;
                    if (p < ce && buf[p] == ':') {
                        q = p + 1;
                        while (q < ce && !vw_sep(buf[q])) q++;
                        if (!vw_number(buf + p + 1, buf + q, &x)) {
                            ts = p + 1; te = q; a0 = ns; a1 = ne; code = EV_VALUE; goto done;
                        }
                        p = q;
                    }
                    if (ne > ns) {
                        col = (uint64_t)vw_hashstring(buf + ns, (size_t)(ne - ns), h) & mask;
                    } else {
                        col = ((uint64_t)h + anon) & mask;
                        anon++;
                    }
                    v = w * x;
                    if (!isfinite(v)) { code = EV_OVERFLOW; goto done; }
                    if (v == 0) continue;
                    if (nnz >= cap) {              /* the caller grows the arrays */
                        nnz = start; line--; status = 2; goto out;
                    }
                    ind[nnz] = (int64_t)((col << 32) | (uint64_t)k);
                    data[nnz] = v;
                    k++; nnz++;
                }
            }
            /* sort by column (stable: the position breaks ties), sum repeated columns */
            if (nnz - start > 1) {
                Py_ssize_t i, o = start;
                vw_sort(ind + start, data + start, nnz - start);
                ind[start] = (int64_t)((uint64_t)ind[start] >> 32);
                for (i = start + 1; i < nnz; i++) {
                    int64_t c = (int64_t)((uint64_t)ind[i] >> 32);
                    if (c == ind[o]) { data[o] += data[i]; }
                    else { o++; ind[o] = c; data[o] = data[i]; }
                }
                nnz = o + 1;
                for (i = start; i < nnz; i++) {
                    if (!isfinite(data[i])) { code = EV_OVERFLOW; goto done; }
                }
            } else if (nnz > start) {
                ind[start] = (int64_t)((uint64_t)ind[start] >> 32);
            }
        done:
            if (code) {
                nnz = start;
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
    int vw_parse_c(const unsigned char *buf, Py_ssize_t n, int64_t *st, double *labels,
                   double *weights, int64_t *indptr, int64_t *ind, double *data,
                   Py_ssize_t max_rows, Py_ssize_t cap, unsigned long long mask, uint32_t seed,
                   int skip) nogil


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
             double[::1] weights, int64_t[::1] indptr, int64_t[::1] indices, double[::1] data,
             Py_ssize_t max_rows, int bits, uint32_t seed, bint skip):
    """Parse VW lines of ``buf`` from ``st[VW_POS]`` into the chunk arrays.

    Rows go to ``labels[row]``, ``weights[row]`` and ``indptr[row + 1]`` (``indptr[0]`` is set
    by the caller), pairs to ``indices``/``data`` (columns < 2**bits, sorted within the row).
    Returns 0 (buffer consumed), 1 (``max_rows`` rows), 2 (``indices`` full: grow it and call
    again; a line needs at most as many pairs as it has features) or 3 (a bad line; see
    ``st``)."""
    cdef Py_ssize_t n = buf.shape[0]
    cdef int status
    cdef unsigned long long mask
    if not 1 <= bits <= 31:
        raise ValueError("vw_parse: bits must be in [1, 31]")
    mask = (1ULL << bits) - 1
    if max_rows > labels.shape[0] or max_rows > weights.shape[0] or \
            indptr.shape[0] < max_rows + 1 or data.shape[0] < indices.shape[0] or \
            st.shape[0] < 12 or not 0 <= st[0] <= n or not 0 <= st[2] <= max_rows or \
            not 0 <= st[3] <= indices.shape[0]:
        raise ValueError("vw_parse: inconsistent arguments")
    if n == 0:
        return 0
    with nogil:
        status = vw_parse_c(&buf[0], n, &st[0], &labels[0] if labels.shape[0] else NULL,
                            &weights[0] if weights.shape[0] else NULL, &indptr[0],
                            &indices[0] if indices.shape[0] else NULL,
                            &data[0] if data.shape[0] else NULL,
                            max_rows, indices.shape[0], mask, seed, skip)
    return status
