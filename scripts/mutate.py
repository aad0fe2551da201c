#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""Mutation check of the boundary code (`make mutate`).

One-line mutants of the boundary comparisons of the geometry, eligibility,
zone descriptor, discard range and ublk mapping code and of the dm table
length (znp_dm_table_len):

  rel    a relational operator swapped: < for <=, <= for <, > for >=, >= for >
  unit   an integer literal beside a comparison moved by one unit (+1, -1)
  drop   a guard dropped: the condition of an `if (...)` whose body returns
         an error (return -E...) replaced by 0
  shift  an expression without a literal moved by one unit: a side of a
         comparison (a < b -> a < b - 1: the direction the rel swap does not
         take, which a < b + 1 would repeat; the left side, a + 1 < b, when
         the right one is a constant; both directions for == and !=) and a
         sum or difference (a + b -> a + b + 1, a + b - 1; a - b -> a - b - 1,
         a - b + 1); not in for (...) headers (loop counters), and in
         discard.c, zdesc.c and ublk-map.c only in the range, descriptor and
         mapping functions (SHIFT_FUNCS)

Each mutant is built in a private copy of the tree (build-mutate/tree, its
build directory build-mutate/tree/build; ccache makes the rebuilds cheap)
and the fast suite is run against it (`meson test --suite fast --maxfail 1`):
a failing suite kills the mutant. The unit tests of the mutated file
(FIRST_TESTS, part of the fast suite) are built and run first, alone: most
mutants die there without relinking every program. The source tree itself is never modified.

Survivors are listed with file, line and the mutated line, and the script
exits 1 when any survive, unless the mutant is listed in
scripts/mutate-equivalent.txt (mutants that cannot change behaviour, each
with the reason). Exit 2: the tree does not build or the fast suite fails
without a mutant.

Options: --list (print the mutants, run nothing), --file PATH (only mutants
of that file, repeatable), --only ID (one mutant, repeatable), --workdir DIR (instead of
build-mutate/, e.g. for two runs at once), --timeout-multiplier N (of the
tests' meson timeouts, 4 unless given: a loaded machine's slow test is no kill). The work directory is kept and
reused by the next run (make clean removes build-*).
"""
import argparse
import os
import re
import shutil
import subprocess
import sys
import time

TARGETS = [
    'src/core/geometry.c',
    'src/core/check.c',
    'src/zone/zdesc.c',
    'src/aio/discard.c',
    'src/ublk/ublk-map.c',
    'src/dm/dmtext.c',
]
REL_SWAP = {'<': '<=', '<=': '<', '>': '>=', '>=': '>'}
ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
WORK = TREE = BUILD = None


def set_workdir(d):
    global WORK, TREE, BUILD
    WORK = os.path.abspath(d)
    TREE = os.path.join(WORK, 'tree')
    BUILD = os.path.join(TREE, 'build')


set_workdir(os.path.join(ROOT, 'build-mutate'))


def blank_comments_strings(text):
    """text with comments, string and char literals and preprocessor lines
    replaced by spaces (offsets and newlines kept)"""
    out = list(text)
    i, n = 0, len(text)
    while i < n:
        c = text[i]
        if text.startswith('/*', i):
            j = text.find('*/', i + 2)
            j = n if j < 0 else j + 2
        elif text.startswith('//', i) or (c == '#' and (i == 0 or text[i - 1] == '\n')):
            j = text.find('\n', i)
            j = n if j < 0 else j
        elif c in '"\'':
            j = i + 1
            while j < n and text[j] != c:
                j += 2 if text[j] == '\\' else 1
            j += 1
        else:
            i += 1
            continue
        for k in range(i, min(j, n)):
            if out[k] != '\n':
                out[k] = ' '
        i = j
    return ''.join(out)


def matching_paren(code, i):
    """index of the ')' matching the '(' at code[i]"""
    depth = 0
    for j in range(i, len(code)):
        if code[j] == '(':
            depth += 1
        elif code[j] == ')':
            depth -= 1
            if depth == 0:
                return j
    return -1


REL_RE = re.compile(r'(?<![<>=!\-])(<=|>=|<|>)(?![<>=])')
LIT_RE = re.compile(r'(?:(?<![<>=!\-])(?:[<>]=?|[=!]=)(?![<>])\s*(\d+)u?\b)|(?:\b(\d+)u?\s*(?:[<>]=?|[=!]=)(?![<>]))')
IF_RE = re.compile(r'\bif\s*\(')
# a function definition's name: at the start of a line, "type name(" or "name("
FUNC_RE = re.compile(r'^[A-Za-z_][^;\n=]*?\b([A-Za-z_]\w*)\s*\(', re.M)

TOK_RE = re.compile(r'\s*(?:([A-Za-z_]\w*)|((?:0[xX][0-9a-fA-F]+|\d+)[uUlL]*)|'
                    r'(<<=|>>=|->|\+\+|--|<<|>>|<=|>=|==|!=|&&|\|\||[-+*/%&|^]=|\S))')
# binary operators that bind less tightly than + and -: they end a sum
BELOW_ADD = {'<<', '>>', '<', '<=', '>', '>=', '==', '!=', '&', '^', '|', '&&', '||', '?', ':',
             '=', '+=', '-=', '*=', '/=', '%=', '&=', '|=', '^=', '<<=', '>>=', ',', ';'}
# ... and than the comparisons: they end a side of one
BELOW_REL = BELOW_ADD - {'<<', '>>', '<', '<=', '>', '>='}
REL = {'<', '<=', '>', '>='}
EQ = {'==', '!='}
KEYWORDS = {'return', 'if', 'while', 'for', 'else', 'case', 'do', 'switch'}
# the shift operator's scope in the files that are not all boundary code:
# the functions it mutates (the other files: every function)
SHIFT_FUNCS = {
    'src/dm/dmtext.c': {'znp_dm_table_len'},
    'src/zone/zdesc.c': {'zdesc_parse_one', 'znp_zdesc_parse'},
    'src/aio/discard.c': {'cmp_by_start', 'znp_discard_validate', 'znp_discard_plan'},
    'src/ublk/ublk-map.c': {'geom_zones', 'geom_limits', 'znp_ublk_map_rw', 'znp_ublk_map_zone',
                            'znp_ublk_map_alba', 'znp_ublk_zone_to_blk'},
}
# files of which only some functions are boundary code: every operator keeps to them
FILE_FUNCS = {
    'src/dm/dmtext.c': {'znp_dm_table_len'},
}
# the direction a side of a comparison moves: the one that the rel swap
# (< for <=, ...) does not take (a < b: the rel swap accepts b, a < b - 1
# refuses b - 1); the left side moves only when the right is a constant
REL_MOVE = {'<': '-', '<=': '+', '>': '+', '>=': '-'}
REL_MOVE_LEFT = {'<': '+', '<=': '-', '>': '-', '>=': '+'}



def tokens(code):
    """(kind, text, start, end) of the C tokens of code (comments and
    strings blanked): kind 'id', 'num' or 'op'"""
    out, pos = [], 0
    while True:
        m = TOK_RE.match(code, pos)
        if not m:
            break
        pos = m.end()
        g = m.lastindex
        out.append((('id', 'num', 'op')[g - 1], m.group(g), m.start(g), m.end(g)))
    return out


def side_end(toks, i, stop):
    """index of the last token of the operand that starts at toks[i]"""
    depth, last = 0, i - 1
    for j in range(i, len(toks)):
        t = toks[j][1]
        if toks[j][0] == 'op':
            if t in '([{':
                depth += 1
            elif t in ')]}':
                if not depth:
                    break
                depth -= 1
            elif not depth and t in stop:
                break
        last = j
    return last


def side_start(toks, i, stop):
    """index of the first token of the operand that ends at toks[i]"""
    depth, first = 0, i + 1
    for j in range(i, -1, -1):
        k, t = toks[j][0], toks[j][1]
        if k == 'op':
            if t in ')]}':
                depth += 1
            elif t in '([{':
                if not depth:
                    break
                depth -= 1
            elif not depth and t in stop:
                break
        elif k == 'id' and t in KEYWORDS and not depth:
            break
        first = j
    return first


def top_ops(toks, a, b):
    """the operators of toks[a..b] outside brackets, with their indices"""
    depth, ops = 0, []
    for j in range(a, b + 1):
        k, t = toks[j][0], toks[j][1]
        if k != 'op':
            continue
        if t in '([{':
            depth += 1
        elif t in ')]}':
            depth -= 1
        elif not depth:
            ops.append((j, t))
    return ops


def is_binary(toks, j):
    """toks[j] (+ or -) follows an operand"""
    if j == 0:
        return False
    k, t = toks[j - 1][0], toks[j - 1][1]
    return k == 'num' or (k == 'id' and t not in KEYWORDS) or t in (')', ']', '++', '--')


def for_headers(toks):
    """indices of the tokens inside the parentheses of a for (...)"""
    inside = set()
    for j, tk in enumerate(toks):
        if tk[1] == 'for' and j + 1 < len(toks) and toks[j + 1][1] == '(':
            inside.update(range(j + 1, side_end(toks, j + 2, set()) + 2))
    return inside


def shift_sites(code, funcs=None):
    """(start, end, wrap) of the expressions the shift operator moves by one
    unit: each side of a comparison (both of <, <=, >, >=; the right one of
    == and !=, where moving the left one is the same) and each sum or
    difference, unless it is a bare integer literal (the unit operator's)
    or a sum with one (a literal term moved is the unit operator's kind);
    not in for (...) headers (loop counters, not bounds); wrap: the
    expression needs parentheses to be moved"""
    toks = tokens(code)
    skip = for_headers(toks)
    sites = set()

    def const(a, b):
        """toks[a..b] is a constant: numbers and macros (upper case) only"""
        return all(tk[0] == 'num' or tk[0] == 'op' or tk[1].isupper() for tk in toks[a:b + 1])

    def add(a, b, d):
        if a <= b and not const(a, b):
            wrap = any(o in ('<<', '>>', '?', '&', '|', '^') for _, o in top_ops(toks, a, b))
            sites.add((toks[a][2], toks[b][3], wrap, d))

    for i, (k, t, s, e) in enumerate(toks):
        if k != 'op' or i in skip:
            continue
        if funcs is not None:
            fn = FUNC_RE.findall(code, 0, s)
            if not fn or fn[-1] not in funcs:
                continue
        if t in REL or t in EQ:
            ra, rb = i + 1, side_end(toks, i + 1, BELOW_REL)
            la, lb = side_start(toks, i - 1, BELOW_REL), i - 1
            if const(la, lb) and t in EQ:
                continue
            if t in EQ:
                add(ra, rb, '+')
                add(ra, rb, '-')
            elif not const(ra, rb):
                add(ra, rb, REL_MOVE[t])
            else:
                add(la, lb, REL_MOVE_LEFT[t])
        elif t in '+-' and is_binary(toks, i):
            a, b = side_start(toks, i - 1, BELOW_ADD), side_end(toks, i + 1, BELOW_ADD)
            cuts = [j for j, o in top_ops(toks, a, b) if o in '+-' and is_binary(toks, j)]
            bounds = [a - 1] + cuts + [b + 1]
            if any(const(bounds[n] + 1, bounds[n + 1] - 1) for n in range(len(bounds) - 1)):
                continue
            # a sum in parentheses that is a term of a sum: moving the outer one is the same
            if (a > 0 and b + 1 < len(toks) and toks[a - 1][1] == '(' and toks[b + 1][1] == ')' and
                    ((a > 1 and toks[a - 2][1] in '+-' and is_binary(toks, a - 2)) or
                     (b + 2 < len(toks) and toks[b + 2][1] in '+-'))):
                continue
            add(a, b, '+')
            add(a, b, '-')
    return sorted(sites)


def mutants_of(path, text=None):
    if text is None:
        text = open(os.path.join(ROOT, path)).read()
    code = blank_comments_strings(text)
    muts = []

    def add(kind, start, end, new):
        line = text.count('\n', 0, start) + 1
        ls = text.rfind('\n', 0, start) + 1
        le = text.find('\n', end)
        le = len(text) if le < 0 else le
        fn = FUNC_RE.findall(code, 0, start)
        muts.append({
            'file': path, 'line': line, 'kind': kind,
            'func': fn[-1] if fn else '',
            'start': start, 'end': end, 'new': new,
            'before': ' '.join(text[ls:le].split()),
            'after': ' '.join((text[ls:start] + new + text[end:le]).split()),
        })

    for m in REL_RE.finditer(code):
        add('rel', m.start(1), m.end(1), REL_SWAP[m.group(1)])
    for m in LIT_RE.finditer(code):
        g = 1 if m.group(1) is not None else 2
        v = int(m.group(g))
        add('unit', m.start(g), m.end(g), str(v + 1))
        if v > 0:
            add('unit', m.start(g), m.end(g), str(v - 1))
    for m in IF_RE.finditer(code):
        o = m.end() - 1
        c = matching_paren(code, o)
        if c < 0:
            continue
        body = code[c + 1:c + 400].lstrip()
        if body.startswith('{'):
            body = body[1:body.find('}')] if '}' in body else ''
        else:
            body = body.split(';', 1)[0]
        if not re.search(r'\breturn\s+-\s*E[A-Z0-9]+', body):
            continue
        add('drop', o + 1, c, '0')
    for a, b, wrap, d in shift_sites(code, SHIFT_FUNCS.get(path)):
        e = text[a:b]
        add('shift', a, b, '%s %s 1' % ('(%s)' % e if wrap else e, d))
    if path in FILE_FUNCS:
        muts = [mu for mu in muts if mu['func'] in FILE_FUNCS[path]]
    muts.sort(key=lambda x: (x['start'], x['kind'], x['new']))
    for i, mu in enumerate(muts, 1):
        mu['id'] = '%s:%d:%s%d' % (os.path.basename(path), mu['line'], mu['kind'], i)
    return text, muts


def run(cmd, log, timeout=None):
    with open(log, 'a') as f:
        f.write('$ %s\n' % ' '.join(cmd))
        f.flush()
        try:
            return subprocess.run(cmd, stdout=f, stderr=subprocess.STDOUT,
                                  timeout=timeout).returncode
        except subprocess.TimeoutExpired:
            return 124


def prepare(log, rev=None):
    """copy the tracked files (as they are in the work tree, or at commit
    REV) to TREE, set up its build directory"""
    src_root = ROOT.encode()
    if rev:
        src_root = os.path.join(WORK, 'rev').encode()
        shutil.rmtree(src_root, ignore_errors=True)
        os.makedirs(src_root)
        subprocess.run('git -C "%s" archive "%s" | tar -x -C "%s"' % (ROOT, rev, src_root.decode()),
                       shell=True, check=True)
    files = subprocess.run(['git', '-C', ROOT, 'ls-files', '-z'] if not rev else
                           ['git', '-C', ROOT, 'ls-tree', '-r', '-z', '--name-only', rev],
                           check=True, stdout=subprocess.PIPE).stdout.split(b'\0')
    os.makedirs(TREE, exist_ok=True)
    for f in files:
        if not f:
            continue
        src = os.path.join(src_root, f)
        dst = os.path.join(TREE.encode(), f)
        if not os.path.isfile(src):
            continue
        if os.path.exists(dst):
            with open(src, 'rb') as a, open(dst, 'rb') as b:
                if a.read() == b.read():
                    continue
        os.makedirs(os.path.dirname(dst), exist_ok=True)
        shutil.copy(src, dst)   # a new mtime: ninja rebuilds what the copy changed
    if not os.path.exists(os.path.join(BUILD, 'build.ninja')):
        if run(['meson', 'setup', BUILD, TREE, '--buildtype=debugoptimized'], log):
            return False
    return True


def build(log):
    return run(['nice', '-n', '10', 'ninja', '-C', BUILD], log) == 0


# The fast suite's unit tests of each target, built alone and run first: a
# one-file change relinks every program and regenerates the documentation,
# which a mutant that its own unit test kills does not need.
FIRST_TESTS = {
    'src/core/geometry.c': ['geometry', 'zdesc', 'ublk-map', 'async', 'dmtext'],
    'src/core/check.c': ['check'],
    'src/zone/zdesc.c': ['zdesc'],
    'src/aio/discard.c': ['async'],
    'src/ublk/ublk-map.c': ['ublk-map'],
    'src/dm/dmtext.c': ['dmtext'],
}


def first_tests(path, log):
    """0: the unit tests of path pass (or it has none listed); -1: they
    do not compile; otherwise one fails, which kills the mutant (they are
    tests of the fast suite)"""
    names = FIRST_TESTS.get(path)
    if not names:
        return 0
    if run(['nice', '-n', '10', 'ninja', '-C', BUILD] + ['tests/unit/test-' + n for n in names],
           log):
        return -1
    return run(['nice', '-n', '10', 'meson', 'test', '-C', BUILD, '--no-rebuild',
                '--maxfail', '1', '--num-processes', '2',
                '--timeout-multiplier', str(TIMEOUT_MULTIPLIER)] + names,
               log, timeout=900 * TIMEOUT_MULTIPLIER)


TIMEOUT_MULTIPLIER = 4


def suite(log):
    """0: the fast suite passes; otherwise the mutant is killed. The
    tests' meson timeouts count TIMEOUT_MULTIPLIER times (--timeout-multiplier):
    on a loaded machine a slow test is no kill, and a mutant that hangs is
    still caught"""
    return run(['nice', '-n', '10', 'meson', 'test', '-C', BUILD, '--no-rebuild',
                '--suite', 'fast', '--maxfail', '1', '--num-processes', '2',
                '--timeout-multiplier', str(TIMEOUT_MULTIPLIER)],
               log, timeout=900 * TIMEOUT_MULTIPLIER)


def load_equivalent():
    """keys "FILE FUNCTION: LINE -> MUTATED LINE" (whitespace runs as one
    space) of the mutants no fast test can kill, each line "KEY<TAB># reason";
    no line numbers, so that edits elsewhere keep the list valid"""
    eq = set()
    p = os.path.join(ROOT, 'scripts', 'mutate-equivalent.txt')
    if os.path.exists(p):
        for ln in open(p):
            ln = ln.rstrip('\n')
            if ln and not ln.startswith('#'):
                eq.add(ln.split('\t', 1)[0].strip())
    return eq


def key(mu):
    return '%s %s: %s -> %s' % (mu['file'], mu['func'], mu['before'], mu['after'])


def main():
    ap = argparse.ArgumentParser(description=__doc__.split('\n')[0])
    ap.add_argument('--list', action='store_true')
    ap.add_argument('--file', action='append')
    ap.add_argument('--only', action='append')
    ap.add_argument('--workdir')
    ap.add_argument('--rev')
    ap.add_argument('--all', action='store_true')
    ap.add_argument('--timeout-multiplier', type=int)
    a = ap.parse_args()
    if a.workdir:
        set_workdir(a.workdir)
    if a.timeout_multiplier:
        global TIMEOUT_MULTIPLIER
        TIMEOUT_MULTIPLIER = a.timeout_multiplier

    files = a.file or TARGETS
    all_muts = []
    originals = {}
    for f in files:
        if a.rev:
            text = subprocess.run(['git', '-C', ROOT, 'show', '%s:%s' % (a.rev, f)], check=True,
                                  stdout=subprocess.PIPE, universal_newlines=True).stdout
            originals[f], ms = mutants_of(f, text)
        else:
            originals[f], ms = mutants_of(f)
        all_muts += ms
    if a.only:
        all_muts = [m for m in all_muts if m['id'] in a.only]
    if a.list:
        for m in all_muts:
            print('%-28s %s\n%28s -> %s\n%28s key: %s' % (m['id'], m['before'], '', m['after'],
                                                         '', key(m)))
        print('%d mutants' % len(all_muts))
        return 0

    os.makedirs(WORK, exist_ok=True)
    log = os.path.join(WORK, 'mutate.log')
    open(log, 'w').close()
    t0 = time.time()
    if not prepare(log, a.rev) or not build(log):
        print('mutate: the unmutated tree does not build (log %s)' % log)
        return 2
    if suite(log):
        print('mutate: the fast suite fails without a mutant (log %s)' % log)
        return 2
    equivalent = load_equivalent()
    if not a.file and not a.only:
        # an entry whose line changed names no mutant: the mutant runs again
        for k in sorted(equivalent - set(key(m) for m in all_muts)):
            print('mutate: stale entry in scripts/mutate-equivalent.txt (no such mutant): %s' % k)
    listed = [m for m in all_muts if key(m) in equivalent]
    if not a.all:
        all_muts = [m for m in all_muts if key(m) not in equivalent]
    print('mutate: baseline passes (%d s); %d mutants to run%s' %
          (time.time() - t0, len(all_muts),
           '' if a.all else ', %d listed as equivalent not run (--all runs them)' % len(listed)),
          flush=True)
    survived, killed, broken, eq_survived = [], 0, 0, []
    try:
        for n, mu in enumerate(all_muts, 1):
            src = originals[mu['file']]
            mutated = src[:mu['start']] + mu['new'] + src[mu['end']:]
            with open(os.path.join(TREE, mu['file']), 'w') as f:
                f.write(mutated)
            t = time.time()
            with open(log, 'a') as f:
                f.write('\n### mutant %s: %s\n' % (mu['id'], mu['after']))
            first = first_tests(mu['file'], log)
            if first < 0 or (not first and not build(log)):
                broken += 1
                verdict = 'does not compile'
            elif first:
                killed += 1
                verdict = 'killed (unit tests)'
            elif suite(log):
                killed += 1
                verdict = 'killed'
            elif key(mu) in equivalent:
                eq_survived.append(mu)
                verdict = 'survived (listed as equivalent)'
            else:
                survived.append(mu)
                verdict = 'SURVIVED'
            print('[%d/%d] %-28s %s (%d s)' % (n, len(all_muts), mu['id'], verdict,
                                              time.time() - t), flush=True)
    finally:
        for f, src in originals.items():
            with open(os.path.join(TREE, f), 'w') as fh:
                fh.write(src)
    total = len(all_muts)
    print('\nmutate: %d mutants run, %d killed, %d survived, %d survived listed as equivalent, '
          '%d not compiling; %d listed as equivalent%s; %d s' %
          (total, killed, len(survived), len(eq_survived), broken, len(listed),
           '' if a.all else ' not run', time.time() - t0))
    for mu in survived:
        print('survivor %s:%d (%s): %s\n    was: %s' % (mu['file'], mu['line'], mu['kind'],
                                                    mu['after'], mu['before']))
    return 1 if survived else 0


if __name__ == '__main__':
    sys.exit(main())
