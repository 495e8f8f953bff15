# cython: boundscheck=False, wraparound=False, initializedcheck=False, cdivision=True, language_level=3
"""Compiled text readers: svmlight / libsvm and numeric CSV, one buffer of whole lines at a time.

Each parser takes a bytes-like buffer that holds whole lines (it must end with a line break:
the Python side adds one after the last line of a file) and fills preallocated NumPy arrays
for one chunk, under ``nogil``, without any Python object or allocation per token.  It stops
when the buffer is consumed, the chunk is full (rows, or stored pairs: the caller grows the
arrays and calls again) or at the first bad line, whose number and reason it reports; with
``skip`` it drops the bad line instead, counts it and goes on.  The semantics (tokens, number
grammar, errors and their order) are those of the pure-Python twin ``mbref.formats``.

Numbers follow Python's ``float()`` restricted to ASCII: ``[+-]`` then digits with an optional
``.`` and fraction (at least one digit) and an optional exponent, or ``inf``, ``infinity``,
``nan`` in any case.  Values are correctly rounded (``_text.h``, shared with the VW reader:
Clinger's fast path when exact, else the C library's ``strtod`` on the validated token).

The state array ``st`` (int64) carries the position and counters between calls; the layout is
the ``ST_*`` / ``CSV_*`` constants of ``mbcore._readers``.
"""

from libc.stdint cimport int32_t, int64_t

cdef extern from *:
    """
    #include "_text.h"

    static inline int mb_ws(unsigned char c) {
        return c == ' ' || c == '\\t' || c == '\\v' || c == '\\f';
    }

    static int mb_ci(const unsigned char *p, const char *w, size_t n) {
        size_t i;
        for (i = 0; i < n; i++) {
            unsigned char c = p[i];
            if (c >= 'A' && c <= 'Z') c = (unsigned char)(c + 32);
            if (c != (unsigned char)w[i]) return 0;
        }
        return 1;
    }

    /* [s, e) as a number (see the module docstring): a decimal (_text.h), or inf, infinity,
       nan in any case after an optional sign: 1 and *out, or 0.  Always inlined: left to the
       compiler, it stopped inlining it into the CSV parser when the svmlight parser grew (8%
       of the CSV reader's time, measured: the commit that added this). */
    #if defined(__GNUC__) || defined(__clang__)
    __attribute__((always_inline))
    #endif
    static inline int mb_number(const unsigned char *s, const unsigned char *e, double *out) {
        const unsigned char *p = s;
        int neg = 0;
        size_t n;
        if (mbt_decimal(s, e, out)) return 1;
        if (p < e && (*p == '+' || *p == '-')) { neg = (*p == '-'); p++; }
        n = (size_t)(e - p);
        if ((n == 3 && mb_ci(p, "inf", 3)) || (n == 8 && mb_ci(p, "infinity", 8))) {
            *out = neg ? -INFINITY : INFINITY; return 1;
        }
        if (n == 3 && mb_ci(p, "nan", 3)) { *out = neg ? -NAN : NAN; return 1; }
        return 0;
    }

    /* Character classes for the hot loops: 1 digit, 2 whitespace (mb_ws), 4 the end of a token
       that is not whitespace ('#', and the line breaks that end every line of a buffer). */
    static unsigned char mb_cls[256];
    static void mb_init_cls(void) {
        int c;
        for (c = '0'; c <= '9'; c++) mb_cls[c] = 1;
        mb_cls[' '] = mb_cls['\\t'] = mb_cls['\\v'] = mb_cls['\\f'] = 2;
        mb_cls['#'] = mb_cls['\\n'] = mb_cls['\\r'] = 4;
    }
    #define MB_DIGIT(c) (mb_cls[(unsigned char)(c)] & 1)
    #define MB_WS(c) (mb_cls[(unsigned char)(c)] & 2)
    #define MB_END(c) (mb_cls[(unsigned char)(c)] & 6)

    /* The number at s when it is written [+-]digits[.digits] with at most 19 significant
       digits, a value of at most 2**53 and no exponent, and is followed by the end of its token
       (whitespace, '#' or the line break): returns its end, with *out exactly as mb_number
       gives it for that token (the same steps: its fast path).  Any other form: NULL, and the
       caller finds the token's end and asks mb_number.  One pass over the bytes for the common
       case.  The token must lie within a line that ends with a line break in the buffer (the
       break stops every loop: no bound is needed). */
    #define mb_number_fast(s, out) mbt_number_fast((s), (out), mb_cls, 6)

    /* Shell sort of the keys k with their values v (a row's pairs; rows are short). */
    #define MB_SHELLSORT(NAME, IT)                                                      \\
    static void NAME(IT *k, double *v, Py_ssize_t n) {                                  \\
        static const Py_ssize_t gaps[] = {701, 301, 132, 57, 23, 10, 4, 1};             \\
        int g;                                                                          \\
        for (g = 0; g < 8; g++) {                                                       \\
            Py_ssize_t gap = gaps[g], i, j;                                             \\
            for (i = gap; i < n; i++) {                                                 \\
                IT tk = k[i]; double tv = v[i];                                         \\
                for (j = i; j >= gap && k[j - gap] > tk; j -= gap) {                    \\
                    k[j] = k[j - gap]; v[j] = v[j - gap];                               \\
                }                                                                       \\
                k[j] = tk; v[j] = tv;                                                   \\
            }                                                                           \\
        }                                                                               \\
    }
    MB_SHELLSORT(mb_shellsort64, int64_t)
    MB_SHELLSORT(mb_shellsort32, int32_t)

    /* svmlight state: */
    enum { ST_POS, ST_LINE, ST_ROW, ST_NNZ, ST_MIN, ST_MAX, ST_MAXLINE, ST_CODE, ST_ELINE,
           ST_TOK0, ST_TOK1, ST_COL, ST_SKIPPED, ST_FIRSTSKIP, ST_KIND, ST_KINDLINE };
    enum { E_LABEL = 1, E_PAIR, E_INDEX, E_VALUE, E_QID, E_ZERO, E_RANGE, E_DUP, E_BIG,
           E_KIND, E_NOLABEL };
    /* The kind of the labels, st[ST_KIND]: 0 not known yet (the first row read with a label
       decides, st[ST_KINDLINE] its line), 1 numbers, 2 text (each row's label bounds go to
       loff, labels[row] is NaN; a label that is a number is E_KIND).  A text label needs loff:
       without it, it is E_LABEL.  lmode LM_OPTIONAL: a line whose first token holds ':' is a
       row without a label (label NaN, loff -1); otherwise it is E_NOLABEL. */
    enum { LM_OPTIONAL = 2 };

    /* 0: buffer consumed, 1: rows full, 2: pairs full, 3: error (st[ST_CODE] ...).  The column
       indices go to ind64 (int64) or, when it is NULL, to ind32 (int32: the caller guarantees
       0 <= n_features <= 2**31 - 1, so every stored column fits).  lines (or NULL): the line
       of each row. */
    static int mb_svm(const unsigned char *buf, Py_ssize_t n, int64_t *st, double *labels,
                      int64_t *indptr, int64_t *ind64, int32_t *ind32, double *data,
                      Py_ssize_t max_rows, Py_ssize_t cap, int64_t shift, int64_t n_features,
                      int skip, int64_t *lines, int64_t *loff, int lmode) {
        #define MB_IND(i) (ind64 ? ind64[i] : (int64_t)ind32[i])
        Py_ssize_t pos = (Py_ssize_t)st[ST_POS], line = (Py_ssize_t)st[ST_LINE];
        Py_ssize_t row = (Py_ssize_t)st[ST_ROW], nnz = (Py_ssize_t)st[ST_NNZ];
        int status = 0, kind = (int)st[ST_KIND];
        int cr = pos < n && memchr(buf + pos, '\\r', (size_t)(n - pos)) != NULL;
        while (pos < n) {
            Py_ssize_t ce, next, p, ts, te, ls, le, start = nnz;
            const unsigned char *f;
            int code = 0, sorted = 1, lk = 0;
            int64_t prev = -1, col = 0;
            double lab;
            if (row >= max_rows) { status = 1; break; }
            next = mbt_eol(buf, n, pos, &ce, cr);
            line++;
            p = pos;
            while (MB_WS(buf[p])) p++;                    /* buf[ce] is a line break */
            if (p == ce || buf[p] == '#') { pos = next; continue; }
            ts = p;
            f = kind == 2 ? NULL : mb_number_fast(buf + p, &lab);
            if (f) {
                p = te = (Py_ssize_t)(f - buf);
                lk = 1;
            } else {
                while (p < ce && !mb_ws(buf[p]) && buf[p] != '#') p++;
                te = p;
                if (memchr(buf + ts, ':', (size_t)(te - ts))) {
                    if (lmode & LM_OPTIONAL) { lab = NAN; p = te = ts; }    /* a pair */
                    else code = E_NOLABEL;
                } else if (mb_number(buf + ts, buf + te, &lab)) {
                    lk = 1;
                    if (kind == 2) code = E_KIND;
                } else {
                    lk = 2;
                    lab = NAN;
                    if (kind == 1 || !loff) code = E_LABEL;
                }
            }
            ls = ts; le = te;
            while (!code) {
                Py_ssize_t q, colon;
                int64_t idx = 0;
                int nd = 0;
                double val;
                while (MB_WS(buf[p])) p++;
                if (p == ce || buf[p] == '#') break;
                ts = p;
                /* the common case, idx:value in one pass */
                q = p;
                while (MB_DIGIT(buf[q])) {
                    if (nd < 18) idx = idx * 10 + (buf[q] - '0');
                    nd++; q++;
                }
                if (nd > 0 && nd <= 18 && buf[q] == ':' &&
                        (f = mb_number_fast(buf + q + 1, &val)) != NULL) {
                    p = te = (Py_ssize_t)(f - buf);
                    goto pair;
                }
                /* otherwise the whole token first, then what it holds */
                idx = 0; nd = 0;
                while (p < ce && !mb_ws(buf[p]) && buf[p] != '#') p++;
                te = p;
                q = ts;
                while (q < te && buf[q] >= '0' && buf[q] <= '9') {
                    if (nd < 18) idx = idx * 10 + (buf[q] - '0');
                    nd++; q++;
                }
                if (!(q < te && buf[q] == ':' && nd > 0)) {   /* not digits:..., find why */
                    colon = q;
                    while (colon < te && buf[colon] != ':') colon++;
                    if (colon == te || colon == ts || colon == te - 1) { code = E_PAIR; break; }
                    if (colon - ts == 3 && memcmp(buf + ts, "qid", 3) == 0) {
                        Py_ssize_t r = colon + 1;
                        if (buf[r] == '+' || buf[r] == '-') r++;
                        if (r == te) { code = E_QID; break; }
                        while (r < te && buf[r] >= '0' && buf[r] <= '9') r++;
                        if (r != te) { code = E_QID; break; }
                        continue;
                    }
                    code = E_INDEX; break;
                }
                if (q == te - 1) { code = E_PAIR; break; }
                if (nd > 18) { code = E_BIG; break; }
                if (!mb_number(buf + q + 1, buf + te, &val)) { ts = q + 1; code = E_VALUE; break; }
              pair:
                if (idx < shift) { code = E_ZERO; break; }
                col = idx - shift;
                if (n_features >= 0 && col >= n_features) { code = E_RANGE; break; }
                if (nnz >= cap) {                  /* the caller grows the arrays */
                    nnz = start; line--; status = 2; break;
                }
                if (col <= prev) sorted = 0;
                prev = col;
                if (ind64) ind64[nnz] = col; else ind32[nnz] = (int32_t)col;
                data[nnz] = val; nnz++;
            }
            if (status == 2) break;
            if (!code && !sorted) {
                Py_ssize_t k;
                if (ind64) mb_shellsort64(ind64 + start, data + start, nnz - start);
                else mb_shellsort32(ind32 + start, data + start, nnz - start);
                for (k = start + 1; k < nnz; k++) {
                    if (MB_IND(k) == MB_IND(k - 1)) { code = E_DUP; col = MB_IND(k); break; }
                }
            }
            if (code) {
                nnz = start;
                if (skip) {
                    if (!st[ST_SKIPPED]) st[ST_FIRSTSKIP] = line;
                    st[ST_SKIPPED]++;
                    pos = next;
                    continue;
                }
                st[ST_CODE] = code; st[ST_ELINE] = line; st[ST_TOK0] = ts; st[ST_TOK1] = te;
                st[ST_COL] = col;
                pos = next;
                status = 3;
                break;
            }
            if (nnz > start) {
                if (MB_IND(start) < st[ST_MIN]) st[ST_MIN] = MB_IND(start);
                if (MB_IND(nnz - 1) > st[ST_MAX]) {
                    st[ST_MAX] = MB_IND(nnz - 1); st[ST_MAXLINE] = line;
                }
            }
            if (!kind && lk) { kind = lk; st[ST_KIND] = kind; st[ST_KINDLINE] = line; }
            labels[row] = lab;
            if (lines) lines[row] = line;
            if (loff) { loff[2 * row] = ls == le ? -1 : ls; loff[2 * row + 1] = le; }
            row++;
            indptr[row] = nnz;
            pos = next;
        }
        st[ST_POS] = pos; st[ST_LINE] = line; st[ST_ROW] = row; st[ST_NNZ] = nnz;
        return status;
        #undef MB_IND
    }

    /* The smallest and largest index written in the buffer (the digits just before each ':'
       outside comments); 0, or 1 with st[2] the line of an index of more than 18 digits.
       st: min, max, line (in), error line (out). */
    static int mb_svm_scan(const unsigned char *buf, Py_ssize_t n, int64_t *st) {
        Py_ssize_t pos = 0, line = (Py_ssize_t)st[2];
        int cr = memchr(buf, '\\r', (size_t)n) != NULL;
        while (pos < n) {
            Py_ssize_t ce, next = mbt_eol(buf, n, pos, &ce, cr), p;
            const unsigned char *h;
            line++;
            h = (const unsigned char *)memchr(buf + pos, '#', (size_t)(ce - pos));
            if (h) ce = (Py_ssize_t)(h - buf);
            for (p = pos; p < ce; p++) {
                if (buf[p] == ':') {
                    Py_ssize_t q = p;
                    int64_t v = 0, scale = 1;
                    int nd = 0;
                    while (q > pos && buf[q - 1] >= '0' && buf[q - 1] <= '9') {
                        q--;
                        if (nd == 18) { st[3] = line; st[2] = line; return 1; }
                        v += (buf[q] - '0') * scale; scale *= 10; nd++;
                    }
                    if (nd) {
                        if (v < st[0] || st[0] < 0) st[0] = v;
                        if (v > st[1]) st[1] = v;
                    }
                }
            }
            pos = next;
        }
        st[2] = line;
        return 0;
    }

    /* CSV state: */
    enum { C_POS, C_LINE, C_ROW, C_CODE, C_ELINE, C_TOK0, C_TOK1, C_COL, C_SKIPPED,
           C_FIRSTSKIP, C_NONNUM };
    enum { EC_RAGGED = 1, EC_CELL, EC_EMPTY, EC_LABEL };

    /* The next field of [p, ce): its stripped bounds; returns the position after it, or -1
       when there is none (only with whitespace splitting). */
    static Py_ssize_t mb_field(const unsigned char *buf, Py_ssize_t p, Py_ssize_t ce, int delim,
                               Py_ssize_t *fs, Py_ssize_t *fe) {
        Py_ssize_t s, e;
        if (delim < 0) {
            while (p < ce && mb_ws(buf[p])) p++;
            if (p == ce) return -1;
            s = p;
            while (p < ce && !mb_ws(buf[p])) p++;
            *fs = s; *fe = p;
            return p;
        }
        s = p;
        while (p < ce && buf[p] != (unsigned char)delim) p++;
        e = p;
        while (s < e && mb_ws(buf[s])) s++;
        while (e > s && mb_ws(buf[e - 1])) e--;
        *fs = s; *fe = e;
        return p < ce ? p + 1 : ce + 1;
    }

    /* 0: consumed, 1: rows full, 3: error, 4: width of the first data line (n_cols < 0:
       st[C_COL] = its fields, st[C_ELINE] = its line; nothing consumed).  label == n_cols:
       no label column (every field a feature, y NaN).  lines (or NULL): the line of each
       row. */
    static int mb_csv(const unsigned char *buf, Py_ssize_t n, int64_t *st, int delim,
                      Py_ssize_t n_cols, Py_ssize_t label, double *X, double *y, int64_t *loff,
                      Py_ssize_t max_rows, int label_numeric, int skip, int64_t *lines) {
        Py_ssize_t pos = (Py_ssize_t)st[C_POS], line = (Py_ssize_t)st[C_LINE];
        Py_ssize_t row = (Py_ssize_t)st[C_ROW];
        Py_ssize_t w = label < n_cols ? n_cols - 1 : n_cols;
        int status = 0;
        int cr = pos < n && memchr(buf + pos, '\\r', (size_t)(n - pos)) != NULL;
        while (pos < n) {
            Py_ssize_t ce, next, p, j = 0, fs = 0, fe = 0, es = 0, ee = 0, ls = 0, le = 0, ecol = 0;
            const unsigned char *h;
            int code = 0, cell_bad = 0;
            double v, lab = 0.0;
            if (n_cols >= 0 && row >= max_rows) { status = 1; break; }
            next = mbt_eol(buf, n, pos, &ce, cr);
            h = (const unsigned char *)memchr(buf + pos, '#', (size_t)(ce - pos));
            if (h) ce = (Py_ssize_t)(h - buf);
            p = pos;
            while (p < ce && mb_ws(buf[p])) p++;
            if (p == ce) { line++; pos = next; continue; }
            if (n_cols < 0) {
                p = pos;
                while ((p = mb_field(buf, p, ce, delim, &fs, &fe)) >= 0 && p <= ce + 1) {
                    j++;
                    if (p > ce) break;
                }
                st[C_COL] = j; st[C_ELINE] = line + 1;
                status = 4; break;
            }
            line++;
            p = pos;
            while (1) {
                p = mb_field(buf, p, ce, delim, &fs, &fe);
                if (p < 0) break;
                if (j < n_cols) {
                    if (j == label) {
                        ls = fs; le = fe;
                    } else if (!cell_bad) {
                        if (mb_number(buf + fs, buf + fe, &v)) {
                            X[row * w + (j < label ? j : j - 1)] = v;
                        } else {
                            cell_bad = 1; es = fs; ee = fe; ecol = j;
                        }
                    }
                }
                j++;
                if (p > ce) break;
            }
            if (j != n_cols) { code = EC_RAGGED; ecol = j; }
            else if (cell_bad) { code = EC_CELL; }
            else if (label == n_cols) { lab = NAN; }
            else if (ls == le) { code = EC_EMPTY; }
            else if (!mb_number(buf + ls, buf + le, &lab)) {
                if (label_numeric) { code = EC_LABEL; es = ls; ee = le; }
                else { lab = NAN; if (st[C_NONNUM] < 0) st[C_NONNUM] = row; }
            }
            if (code) {
                if (skip) {
                    if (!st[C_SKIPPED]) st[C_FIRSTSKIP] = line;
                    st[C_SKIPPED]++;
                    pos = next;
                    continue;
                }
                st[C_CODE] = code; st[C_ELINE] = line; st[C_TOK0] = es; st[C_TOK1] = ee;
                st[C_COL] = ecol;
                pos = next;
                status = 3;
                break;
            }
            y[row] = lab;
            loff[2 * row] = ls; loff[2 * row + 1] = le;
            if (lines) lines[row] = line;
            row++;
            pos = next;
        }
        st[C_POS] = pos; st[C_LINE] = line; st[C_ROW] = row;
        return status;
    }
    """
    int mb_svm(const unsigned char *buf, Py_ssize_t n, int64_t *st, double *labels,
               int64_t *indptr, int64_t *ind64, int32_t *ind32, double *data,
               Py_ssize_t max_rows, Py_ssize_t cap, int64_t shift, int64_t n_features,
               int skip, int64_t *lines, int64_t *loff, int lmode) nogil
    int mb_svm_scan(const unsigned char *buf, Py_ssize_t n, int64_t *st) nogil
    int mb_csv(const unsigned char *buf, Py_ssize_t n, int64_t *st, int delim,
               Py_ssize_t n_cols, Py_ssize_t label, double *X, double *y, int64_t *loff,
               Py_ssize_t max_rows, int label_numeric, int skip, int64_t *lines) nogil
    int mb_number(const unsigned char *s, const unsigned char *e, double *out) nogil
    void mb_init_cls()


mb_init_cls()


def parse_number(const unsigned char[::1] token):
    """The value of one token by the readers' number grammar, or None if it is not a number."""
    cdef double v = 0.0
    cdef int ok
    cdef Py_ssize_t n = token.shape[0]
    if n == 0:
        return None
    with nogil:
        ok = mb_number(&token[0], &token[0] + n, &v)
    return v if ok else None


ctypedef fused index_t:
    int32_t
    int64_t


def svmlight_parse(const unsigned char[::1] buf, int64_t[::1] st, double[::1] labels,
                   int64_t[::1] indptr, index_t[::1] indices, double[::1] data,
                   Py_ssize_t max_rows, int64_t shift, int64_t n_features, bint skip,
                   int64_t[::1] lines=None, int64_t[:, ::1] label_at=None, int lmode=0):
    """Parse svmlight lines of ``buf`` from ``st[ST_POS]`` into the chunk arrays.

    Rows go to ``labels[row]`` and ``indptr[row + 1]`` (``indptr[0]`` is set by the caller),
    pairs to ``indices``/``data`` (column = written index - ``shift``, sorted within the row);
    ``n_features`` < 0 means no range check.  ``indices`` is int64, or int32 when
    0 <= ``n_features`` < 2**31 (every column then fits).  ``lines`` (optional) gets the line
    of each row.  The labels' kind is ``st[ST_KIND]``: 1 numbers, 2 text, 0 decided by the
    first row read with a label (``st[ST_KINDLINE]`` its line); text labels need ``label_at``,
    whose row gets the bounds of its label in ``buf`` (-1: no label), ``labels[row]`` being
    NaN.  ``lmode`` 2: a line whose first token holds ':' is a row without a label (NaN).  Returns 0 (buffer consumed), 1 (``max_rows`` rows), 2 (``indices`` full: grow it and
    call again) or 3 (a bad line; see ``st``)."""
    cdef Py_ssize_t n = buf.shape[0]
    cdef int status
    cdef int64_t *i64 = NULL
    cdef int32_t *i32 = NULL
    cdef int64_t *lp = NULL
    cdef int64_t *op = NULL
    if lines is not None:
        if lines.shape[0] < max_rows:
            raise ValueError("svmlight_parse: inconsistent arguments")
        if lines.shape[0]:
            lp = &lines[0]
    if label_at is not None:
        if label_at.shape[0] < max_rows or label_at.shape[1] != 2:
            raise ValueError("svmlight_parse: inconsistent arguments")
        if label_at.shape[0]:
            op = &label_at[0, 0]
    if max_rows > labels.shape[0] or indptr.shape[0] < max_rows + 1 or \
            data.shape[0] < indices.shape[0] or st.shape[0] < 16 or not 0 <= st[0] <= n or \
            not 0 <= st[2] <= max_rows or not 0 <= st[3] <= indices.shape[0]:
        raise ValueError("svmlight_parse: inconsistent arguments")
    if index_t is int32_t and not 0 <= n_features <= 2147483647:
        raise ValueError("svmlight_parse: int32 indices need 0 <= n_features < 2**31")
    if n == 0:
        return 0
    if buf[n - 1] != 10 and buf[n - 1] != 13:       # the parser's loops stop at line breaks
        raise ValueError("svmlight_parse: the buffer must end with a line break")
    if indices.shape[0]:
        if index_t is int32_t:
            i32 = <int32_t *> &indices[0]
        else:
            i64 = <int64_t *> &indices[0]
    elif index_t is int32_t:                   # capacity 0: never written, never read
        i32 = <int32_t *> &st[0]
    else:
        i64 = &st[0]
    with nogil:
        status = mb_svm(&buf[0], n, &st[0], &labels[0], &indptr[0], i64, i32,
                        &data[0] if data.shape[0] else NULL,
                        max_rows, indices.shape[0], shift, n_features, skip, lp, op, lmode)
    return status


def last_line_end(const unsigned char[::1] buf, Py_ssize_t start, Py_ssize_t end):
    """Where the whole lines of ``buf[:end]`` end: the position after its last ``\\n`` (looked
    for from ``start`` on: the caller knows ``buf[:start]`` holds none), else after its last
    ``\\r`` but for a final one (the first half of ``\\r\\n``, perhaps), else 0."""
    cdef Py_ssize_t i, cut = 0
    if not 0 <= start <= end <= buf.shape[0]:
        raise ValueError("last_line_end: need 0 <= start <= end <= len(buf)")
    with nogil:
        i = end
        while i > start:
            i -= 1
            if buf[i] == 10:
                cut = i + 1
                break
        if cut == 0:
            i = end - 1
            while i > 0:
                i -= 1
                if buf[i] == 13:
                    cut = i + 1
                    break
    return cut


def svmlight_scan(const unsigned char[::1] buf, int64_t[::1] st):
    """Fold the smallest and largest index written in ``buf`` into ``st[0]``, ``st[1]``
    (``st[0]`` < 0: none yet); ``st[2]`` counts lines.  Returns 1 (``st[3]`` the line) if an
    index has more than 18 digits, else 0."""
    cdef Py_ssize_t n = buf.shape[0]
    cdef int status
    if st.shape[0] < 4:
        raise ValueError("svmlight_scan: st must have 4 entries")
    if n == 0:
        return 0
    with nogil:
        status = mb_svm_scan(&buf[0], n, &st[0])
    return status


def csv_parse(const unsigned char[::1] buf, int64_t[::1] st, int delim, Py_ssize_t n_cols,
              Py_ssize_t label, double[:, ::1] X, double[::1] y, int64_t[:, ::1] label_at,
              Py_ssize_t max_rows, bint label_numeric, bint skip, int64_t[::1] lines=None):
    """Parse delimited lines of ``buf`` from ``st[C_POS]`` into the chunk arrays.

    ``delim`` is the delimiter byte, or -1 to split on runs of whitespace.  Row ``row`` gets
    the features (every field but ``label``, in order) in ``X[row]``, the label's value in
    ``y[row]`` (NaN if it is not a number and ``label_numeric`` is false) and the label field's
    bounds in ``label_at[row]``.  With ``n_cols`` < 0 it only finds the first data line and
    returns 4 with its number of fields.  ``label`` == ``n_cols``: no label column (every field
    is a feature, ``y`` NaN).  ``lines`` (optional) gets the line of each row.  Returns 0, 1
    (``max_rows`` rows), 3 (a bad line) or 4.
    """
    cdef Py_ssize_t n = buf.shape[0]
    cdef int status
    cdef int64_t *lp = NULL
    if lines is not None:
        if lines.shape[0] < max_rows:
            raise ValueError("csv_parse: inconsistent arguments")
        if lines.shape[0]:
            lp = &lines[0]
    if n_cols >= 0 and (not 0 <= label <= n_cols or
                        X.shape[1] != (n_cols - 1 if label < n_cols else n_cols) or
                        X.shape[0] < max_rows or y.shape[0] < max_rows or
                        label_at.shape[0] < max_rows or label_at.shape[1] != 2):
        raise ValueError("csv_parse: inconsistent arguments")
    if st.shape[0] < 11 or not 0 <= st[0] <= n or not 0 <= st[2] <= max_rows:
        raise ValueError("csv_parse: inconsistent state")
    if n == 0:
        return 0
    with nogil:
        status = mb_csv(&buf[0], n, &st[0], delim, n_cols, label,
                        &X[0, 0] if X.shape[0] and X.shape[1] else NULL,
                        &y[0] if y.shape[0] else NULL,
                        &label_at[0, 0] if label_at.shape[0] else NULL,
                        max_rows, label_numeric, skip, lp)
    return status


# -- writing: the prediction lines of ``mbcore predict`` -------------------------------------------

from cpython.bytes cimport PyBytes_FromStringAndSize, PyBytes_AS_STRING, PyBytes_GET_SIZE
from cpython.mem cimport PyMem_Free
from libc.string cimport memcpy, strlen

cdef extern from "Python.h":
    char *PyOS_double_to_string(double val, char format_code, int precision, int flags,
                                int *ptype) except NULL
    int Py_DTSF_ADD_DOT_0


def join_labels(const int64_t[::1] codes, list texts):
    """``b"".join(texts[k] + b"\\n" for k in codes)``: one line per code, in one buffer.

    ``texts`` are bytes; every code must index them (checked: a ValueError otherwise)."""
    cdef Py_ssize_t n = codes.shape[0], k = len(texts), i, total = 0, at = 0, size
    cdef int64_t c
    cdef char *out
    cdef const char *src
    for t in texts:
        if not isinstance(t, bytes):
            raise TypeError("join_labels: texts must be bytes")
    for i in range(n):
        c = codes[i]
        if c < 0 or c >= k:
            raise ValueError(f"join_labels: code {c} at {i} is not in [0, {k})")
        total += PyBytes_GET_SIZE(texts[c]) + 1
    result = PyBytes_FromStringAndSize(NULL, total)
    out = PyBytes_AS_STRING(result)
    for i in range(n):
        t = texts[codes[i]]
        size = PyBytes_GET_SIZE(t)
        src = PyBytes_AS_STRING(t)
        memcpy(out + at, src, size)
        at += size
        out[at] = b'\n'
        at += 1
    return result


def join_scores(const double[:, ::1] scores):
    """Each row of ``scores`` as one line, its values as ``repr(float)`` writes them (the
    shortest text that reads back to the same float) separated by spaces."""
    cdef Py_ssize_t n = scores.shape[0], m = scores.shape[1], i, j, cap, at = 0, size
    cdef char *s
    cdef char *out
    cap = n * (m * 26 + 1) if n and m else n
    result = bytearray(cap)
    out = result
    for i in range(n):
        for j in range(m):
            s = PyOS_double_to_string(scores[i, j], b'r', 0, Py_DTSF_ADD_DOT_0, NULL)
            size = <Py_ssize_t> strlen(s)
            if size > 25:                       # cannot happen for a double; be safe
                PyMem_Free(s)
                raise ValueError("join_scores: a value's text is longer than expected")
            memcpy(out + at, s, size)
            PyMem_Free(s)
            at += size
            out[at] = b' ' if j + 1 < m else b'\n'
            at += 1
        if m == 0:
            out[at] = b'\n'
            at += 1
    return bytes(result[:at])
