#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""Lay out the library copy of the upstream series in nvme-cli's columns.

    format-copy.py format  STYLE DIR   rewrite DIR's .c/.h files in place
    format-copy.py compare SRC DIR     the copy in DIR equals SRC but for layout

nvme-cli checks pull requests with checkpatch.pl and its .checkpatch.conf
(80 columns); the project writes up to 100. The series does not carry a
second, hand-kept layout of src/: it lays out the copy mechanically, each
step touching only what checkpatch would flag:

1. a string literal continued on the next line ("..." / "...") becomes one
   literal, so that it can be grepped for (SPLIT_STRING);
2. a comment after code that runs past column 80 moves above its line;
   comment lines past column 80 are wrapped at word boundaries (the words,
   and their order, stay);
3. code lines past column 80 are laid out again by clang-format with STYLE
   (the kernel's .clang-format, the layout checkpatch comes from), on
   those lines only.

`compare` proves the copy is the source: the same C tokens in the same order
(adjacent string literals joined) and the same comment words; it prints the
first difference and exits 1 otherwise.
"""
import os
import re
import subprocess
import sys

COLS = 80


def width(line):
    return len(line.expandtabs(8))


def scan(text):
    """Yield (kind, start, end): kind 'str', 'chr', 'com' or 'code' runs."""
    i, n = 0, len(text)
    start = 0
    while i < n:
        c = text[i]
        if c == '"' or c == "'":
            if start < i:
                yield 'code', start, i
            j = i + 1
            while j < n and text[j] != c:
                j += 2 if text[j] == '\\' else 1
            yield ('str' if c == '"' else 'chr'), i, j + 1
            i = start = j + 1
        elif text.startswith('/*', i):
            if start < i:
                yield 'code', start, i
            j = text.find('*/', i + 2)
            j = n if j < 0 else j + 2
            yield 'com', i, j
            i = start = j
        elif text.startswith('//', i):
            if start < i:
                yield 'code', start, i
            j = text.find('\n', i)
            j = n if j < 0 else j
            yield 'com', i, j
            i = start = j
        else:
            i += 1
    if start < n:
        yield 'code', start, n


# the literal ends in what checkpatch accepts before a line break
KEEP_SPLIT = re.compile(r'(?:\\(?:[ntr]|[0-7]{1,3}|x[0-9a-fA-F]{1,2})|;\s*|\{\s*)"$')


def join_split_strings(text):
    runs = list(scan(text))
    cut = []
    for a, b, c in zip(runs, runs[1:], runs[2:]):
        if a[0] == 'str' and b[0] == 'code' and c[0] == 'str':
            gap = text[b[1]:b[2]]
            if '\n' in gap and not gap.strip() and \
                    not KEEP_SPLIT.search(text[a[1]:a[2]]):
                cut.append((a[2] - 1, c[1] + 1))
    for s, e in reversed(cut):
        text = text[:s] + text[e:]
    return text


def wrap_words(words, room):
    lines, cur = [], ''
    for w in words:
        if cur and len(cur) + 1 + len(w) > room:
            lines.append(cur)
            cur = w
        else:
            cur = w if not cur else cur + ' ' + w
    if cur:
        lines.append(cur)
    return lines


TRAILING = re.compile(r'^(?P<ind>\s*)(?P<code>\S.*?)\s+(?P<com>/\*(?:(?!\*/).)*\*/)\s*$')


def fix_comments(text):
    out = []
    # lines that begin inside a comment or a string are never code lines
    inside, off = set(), 0
    runs = [(s, e) for kind, s, e in scan(text) if kind in ('com', 'str')]
    lines = text.split('\n')
    k = 0
    for no, line in enumerate(lines):
        while k < len(runs) and runs[k][1] <= off:
            k += 1
        if k < len(runs) and runs[k][0] < off < runs[k][1]:
            inside.add(no)
        off += len(line) + 1
    lines = [(l, no in inside) for no, l in enumerate(lines)]
    while lines:
        line, in_com = lines.pop(0)
        m = re.match(r'^(?P<ind>\s*)(?P<code>[^/\s*].*?)\s*/\*(?P<com>(?:(?!\*/).)*)$', line)
        if m and not in_com and m.group('code').count('"') % 2 == 0 and '/*' not in m.group('code') \
                and not line.rstrip().endswith('\\'):
            # a comment after code, continued on the next lines: above it
            body = m.group('com').split()
            while lines:
                nxt = lines.pop(0)[0]
                end = nxt.find('*/')
                part = nxt if end < 0 else nxt[:end]
                body += re.sub(r'^\s*\*+', ' ', part).split()
                if end >= 0:
                    break
            ind = m.group('ind')
            one = '%s/* %s */' % (ind, ' '.join(body))
            if width(one) <= COLS:
                out.append(one)
            else:
                out.append(ind + '/*')
                out += [ind + ' * ' + l for l in wrap_words(body, COLS - width(ind + ' * '))]
                out.append(ind + ' */')
            out.append(ind + m.group('code'))
            continue
        m = re.match(r'^(\s*)\* (.*\S)\s*\*/\s*$', line)
        if m and in_com:
            # the last line of a block comment: */ on a line of its own
            lines.insert(0, (m.group(1) + '*/', True))
            line = m.group(1) + '* ' + m.group(2)
        if width(line) <= COLS:
            out.append(line)
            continue
        m = TRAILING.match(line)
        if m and not in_com and not m.group('code').startswith(('/*', '*')) and \
                not line.rstrip().endswith('\\') and \
                m.group('code').count('"') % 2 == 0 and '/*' not in m.group('code'):
            ind, body = m.group('ind'), m.group('com')[2:-2].split()
            one = '%s/* %s */' % (ind, ' '.join(body))
            if width(one) <= COLS:
                out.append(one)
            else:
                room = COLS - width(ind + ' * ')
                out.append(ind + '/*')
                out += [ind + ' * ' + l for l in wrap_words(body, room)]
                out.append(ind + ' */')
            out.append(ind + m.group('code'))
            continue
        m = re.match(r'^(\s*)(/\*\*?)\s(.*?)\s*\*/\s*$', line)
        if m and not in_com:
            ind, body = m.group(1), m.group(3).split()
            room = COLS - width(ind + ' * ')
            out.append(ind + m.group(2))
            out += [ind + ' * ' + l for l in wrap_words(body, room)]
            out.append(ind + ' */')
            continue
        m = re.match(r'^(\s*)(\* |/\*\*? |// )(.*?)(\s*\*/)?$', line)
        if m:
            ind, lead, rest, end = m.groups()
            if lead == '// ':
                cont = ind + lead
            elif lead.startswith('/*'):
                cont = ind + ' * '
            else:
                cont = ind + lead
            parts = wrap_words(rest.split(), COLS - width(ind + lead))
            tail = wrap_words(' '.join(parts[1:]).split(), COLS - width(cont))
            out.append(ind + lead + parts[0])
            out += [cont + l for l in tail]
            if end:
                out.append(cont[:-2] + '*/')
            continue
        out.append(line)
    return '\n'.join(out)


STR = r'"(?:[^"\\]|\\.)*"'
ALONE = re.compile(r'^(?P<pre>.*?\S)\s*(?P<lit>%s)(?P<post>\s*[)}\]]*\s*,?\s*|\s*\);\s*)$' % STR)
SAME_LINE = re.compile(r'^(?P<pre>\s*(?:\S.*=|return))\s*(?P<lit>%s)\s*;\s*$' % STR)
LONE = re.compile(r'^\s*%s\s*$' % STR)
LONE_END = re.compile(r'^(?P<ind>\s*)(?P<lit>%s)\s*;\s*$' % STR)
CLOSERS = re.compile(r'^(?P<ind>\s*)(?P<lit>%s)\s*(?P<post>(?!\);$)[)}\]]+\s*[,;]?)\s*$' % STR)


def tabs(ind):
    """An indentation in tabs only, at least as deep as @ind."""
    return '\t' * ((width(ind) + 7) // 8)


def outer(out, ind):
    """The indentation of the line that opened the statement around ind."""
    for prev in reversed(out[:-1]):
        pind = re.match(r'\s*', prev).group(0)
        if width(pind) < width(ind):
            return pind
    return ''


THEN_MACRO = re.compile(r'^(?P<ind>\s*)(?P<lit>%s)\s+(?P<post>PRI\w+.*)$' % STR)


def lone_strings(text):
    """Give a literal that runs past column 80 a line of its own."""
    out = []
    todo = text.split('\n')
    while todo:
        line = todo.pop(0)
        if width(line) <= COLS or line.rstrip().endswith('\\'):
            out.append(line)
            continue
        ind = tabs(re.match(r'\s*', line).group(0))
        m = THEN_MACRO.match(line)
        if m:
            out.append(ind + m.group('lit'))
            todo.insert(0, ind + m.group('post'))
            continue
        m = SAME_LINE.match(line)
        if m and m.group('pre').count('"') % 2 == 0:
            out.append(m.group('pre').rstrip() + ' (')
            todo.insert(0, ind + '\t' + m.group('lit') + ');')
            continue
        m = CLOSERS.match(line)
        if m:
            # "..." }, / "...")),: the closers go to a line of their own
            out.append(m.group('ind') + m.group('lit'))
            out.append(outer(out, m.group('ind')) + m.group('post'))
            continue
        m = LONE_END.match(line)
        if m:
            # a statement ending in a literal: `= (` / `= {` / `return (`
            k = len(out) - 1
            while k > 0 and LONE.match(out[k]):
                k -= 1
            head = out[k].rstrip()
            if re.search(r'(=|\breturn)$', head):
                brace = head.endswith('=') and re.search(r'\[\w*\]\s*=$', head)
                out[k] = head + (' {' if brace else ' (')
                if brace:
                    out.append(m.group('ind') + m.group('lit'))
                    out.append(re.match(r'\s*', head).group(0) + '};')
                else:
                    out.append(m.group('ind') + m.group('lit') + ');')
                continue
        if out and not re.search(r'[;{}]\s*$', out[-1]):
            # a continuation line: any indentation deeper than the
            # statement's is C; one tab deeper when aligned does not fit
            k = len(out) - 1
            while k > 0 and not re.search(r'[;{}]\s*$|\*/\s*$|^\s*#', out[k - 1]):
                k -= 1
            deeper = re.match(r'\s*', out[k]).group(0) + '\t' + line.strip()
            if width(deeper) <= COLS:
                out.append(deeper)
                continue
        m = ALONE.match(line)
        if m and m.group('pre').count('"') % 2 == 0 and \
                not m.group('pre').lstrip().startswith(('/*', '*', '#')):
            out.append(m.group('pre'))
            rest = ind + '\t' + m.group('lit') + m.group('post').strip()
            todo.insert(0, rest)
            continue
        out.append(line)
    return '\n'.join(out)


def long_code_lines(text):
    """clang-format's ranges: lines past column 80, `case X: stmt;` lines."""
    ranges = []
    for no, line in enumerate(text.split('\n'), 1):
        if width(line) > COLS or re.match(r'^\s*(case\b[^:]*|default):\s*[^\s/]', line):
            ranges.append('--lines=%d:%d' % (no, no))
    return ranges


def format_dir(style, d):
    for root, _, files in os.walk(d):
        for f in sorted(files):
            if not f.endswith(('.c', '.h')):
                continue
            p = os.path.join(root, f)
            with open(p) as fh:
                text = fh.read()
            text = fix_comments(join_split_strings(text))
            ranges = long_code_lines(text)
            if ranges:
                text = subprocess.run(
                    ['clang-format', '--style=file:' + style,
                     '--assume-filename=' + p] + ranges,
                    input=text, capture_output=True, text=True,
                    check=True).stdout
            with open(p, 'w') as fh:
                fh.write(lone_strings(text))


def tokens(text):
    """C tokens (adjacent literals joined) and comment words of a file."""
    toks, words = [], []
    for kind, s, e in scan(text):
        part = text[s:e]
        if kind == 'com':
            if part.startswith('/*'):
                part = part[2:-2] if part.endswith('*/') else part[2:]
            else:
                part = part[2:]
            words += re.sub(r'^\s*\*+', ' ', part, flags=re.M).split()
        elif kind == 'str':
            if toks and toks[-1].startswith('"'):
                toks[-1] = toks[-1][:-1] + part[1:]
            else:
                toks.append(part)
        elif kind == 'chr':
            toks.append(part)
        else:
            part = re.sub(r'\\\n', ' ', part)
            toks += re.findall(r'\w+|\S', part)
    norm = []
    for t in toks:
        norm.append(t)
        if len(norm) >= 4 and norm[-4] in ('=', 'return') and norm[-2].startswith('"') \
                and (norm[-3], norm[-1]) in (('(', ')'), ('{', '}')):
            norm[-3:] = [norm[-2]]
    return norm, words


def compare(src, d):
    bad = 0
    seen = 0
    for root, _, files in os.walk(d):
        for f in sorted(files):
            if not f.endswith(('.c', '.h')):
                continue
            rel = os.path.relpath(os.path.join(root, f), d)
            sp = os.path.join(src, rel)
            if not os.path.exists(sp):
                continue
            seen += 1
            with open(sp) as a, open(os.path.join(d, rel)) as b:
                ta, tb = tokens(a.read()), tokens(b.read())
            for what, x, y in (('C tokens', ta[0], tb[0]), ('comment words', ta[1], tb[1])):
                if x != y:
                    i = next((k for k, (p, q) in enumerate(zip(x, y)) if p != q),
                             min(len(x), len(y)))
                    print('format-copy: %s: %s differ at #%d: %r / %r' %
                          (rel, what, i, x[i:i + 3], y[i:i + 3]))
                    bad = 1
    if not seen:
        print('format-copy: no source file of %s in %s' % (src, d))
        bad = 1
    return bad


def main():
    if len(sys.argv) != 4 or sys.argv[1] not in ('format', 'compare'):
        sys.stderr.write(__doc__.split('\n\n')[1] + '\n')
        return 2
    if sys.argv[1] == 'format':
        format_dir(sys.argv[2], sys.argv[3])
        return 0
    return compare(sys.argv[2], sys.argv[3])


if __name__ == '__main__':
    sys.exit(main())
