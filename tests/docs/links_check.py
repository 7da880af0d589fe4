#!/usr/bin/env python3
"""links_check.py - every relative Markdown link in the documentation resolves.

    links_check.py [ROOT]

Reads ROOT/README.md, ROOT/docs/**/*.md, ROOT/results/**/*.md and
ROOT/integrations/**/*.md (ROOT: the current directory by default).  For
every inline link or image `[text](target)` and every reference definition
`[label]: target` outside code (fenced blocks and `code spans`) whose target
is relative (no scheme such as https: or mailto:, not //host):
  - the file or directory it names exists, relative to the linking file;
  - where it gives `#anchor`, the target Markdown file (or the linking file
    itself for a bare `#anchor`) has a heading that GitHub turns into that
    anchor, or an explicit <a name=...>/id=... with it.
GitHub's anchors: the heading's text without its Markdown (code marks,
emphasis, link targets), lowercased, every character other than a letter,
a digit, `-`, `_` or a space dropped, spaces made `-`; a repeated anchor
gets -1, -2, ... in order.
Prints one line per broken link, `FILE:LINE: TARGET: why`, on stderr.
Exit code: 0 every link resolves, 1 some link is broken, 2 usage.
Plain python3, no network.
"""
import glob
import os
import re
import sys

FENCE = re.compile(r'^ {0,3}(`{3,}|~{3,})')
CODE_SPAN = re.compile(r'(`+)(.+?)\1')
# [text](target) or ![alt](target): the text may hold one level of [...]
INLINE = re.compile(r'!?\[(?:[^\[\]]|\[[^\[\]]*\])*\]\(\s*(<[^>]*>|[^()\s]*(?:\([^()\s]*\)[^()\s]*)*)'
                    r'(?:\s+(?:"[^"]*"|\'[^\']*\'|\([^)]*\)))?\s*\)')
REFDEF = re.compile(r'^ {0,3}\[[^\]]+\]:\s*(<[^>]*>|\S+)')
HEADING = re.compile(r'^ {0,3}(#{1,6})\s+(.*?)\s*#*\s*$')
HTML_ID = re.compile(r'<a\s[^>]*(?:name|id)\s*=\s*["\']([^"\']+)["\']', re.I)
SCHEME = re.compile(r'^[A-Za-z][A-Za-z0-9+.-]*:')


def prose_lines(path):
    """(line number, text) of the lines outside fenced code blocks, with
    code spans blanked out."""
    with open(path, encoding='utf-8') as f:
        lines = f.read().split('\n')
    fence = None
    for n, line in enumerate(lines, 1):
        m = FENCE.match(line)
        if fence:
            if m and m.group(1)[0] == fence[0] and len(m.group(1)) >= len(fence):
                fence = None
            continue
        if m:
            fence = m.group(1)
            continue
        yield n, CODE_SPAN.sub(lambda s: ' ' * len(s.group(0)), line)


def slug(text):
    """GitHub's anchor for a heading's text."""
    text = re.sub(r'!?\[([^\]]*)\]\([^)]*\)', r'\1', text)   # links: their text
    text = re.sub(r'<[^>]+>', '', text)                      # inline HTML
    text = text.lower()
    text = ''.join(c for c in text if c.isalnum() or c in '-_ ')
    return text.replace(' ', '-')


_anchors = {}


def anchors(path):
    """The anchors a Markdown file defines."""
    if path not in _anchors:
        found, seen = set(), {}
        with open(path, encoding='utf-8') as f:
            raw = f.read().split('\n')
        fence = None
        for line in raw:
            m = FENCE.match(line)
            if fence:
                if m and m.group(1)[0] == fence[0] and len(m.group(1)) >= len(fence):
                    fence = None
                continue
            if m:
                fence = m.group(1)
                continue
            found.update(HTML_ID.findall(line))
            h = HEADING.match(line)
            if h:
                base = slug(h.group(2))
                k = seen.get(base, 0)
                seen[base] = k + 1
                found.add(base if k == 0 else '%s-%d' % (base, k))
        _anchors[path] = found
    return _anchors[path]


def targets(path):
    for n, line in prose_lines(path):
        for m in INLINE.finditer(line):
            yield n, m.group(1)
        m = REFDEF.match(line)
        if m:
            yield n, m.group(1)


def check(path, root):
    """The broken links of one file, as messages."""
    bad = []
    rel = os.path.relpath(path, root)
    for n, target in targets(path):
        t = target[1:-1] if target.startswith('<') else target
        if not t or SCHEME.match(t) or t.startswith('//'):
            continue
        file_part, _, anchor = t.partition('#')
        if file_part:
            dest = os.path.normpath(os.path.join(os.path.dirname(path), file_part))
            if not os.path.exists(dest):
                bad.append('%s:%d: %s: no such file %s'
                           % (rel, n, t, os.path.relpath(dest, root)))
                continue
        else:
            dest = path
        if anchor and dest.endswith('.md') and os.path.isfile(dest):
            if anchor not in anchors(dest):
                bad.append('%s:%d: %s: no heading makes #%s in %s'
                           % (rel, n, t, anchor, os.path.relpath(dest, root)))
    return bad


def main(argv):
    if len(argv) > 2 or (len(argv) == 2 and argv[1].startswith('-')):
        print(__doc__.split('\n\n')[1], file=sys.stderr)
        return 2
    root = argv[1] if len(argv) == 2 else '.'
    if not os.path.isdir(root):
        print('links_check.py: %s: not a directory' % root, file=sys.stderr)
        return 2
    files = [os.path.join(root, 'README.md')]
    for d in ('docs', 'results', 'integrations'):
        files += sorted(glob.glob(os.path.join(root, d, '**', '*.md'), recursive=True))
    files = [f for f in files if os.path.isfile(f)]
    bad, count = [], 0
    for f in files:
        bad += check(f, root)
        count += sum(1 for _ in targets(f))
    for b in bad:
        print(b, file=sys.stderr)
    if bad:
        print('links_check.py: %d broken link(s) in %d file(s) read'
              % (len(bad), len(files)), file=sys.stderr)
        return 1
    print('links_check.py: %d links in %d files, every relative one resolves'
          % (count, len(files)))
    return 0


if __name__ == '__main__':
    sys.exit(main(sys.argv))
