#!/usr/bin/env python3
"""cli_reference.py - docs/cli.md is every verb's `--help`, as kbench
generates it from the verbs' option tables, so the documentation of the
options cannot drift from what is parsed.

  cli_reference.py KBENCH --write docs/cli.md   regenerate it
  cli_reference.py KBENCH --check docs/cli.md   exit 1, naming the first
                                                verb whose help differs
The verbs are the ones `kbench --help` lists; a verb with sub-verbs (its
help says "`kbench VERB SUB --help`") has each sub-verb's help too."""
import re
import subprocess
import sys

HEADER = """# Command-line reference

Generated from the verbs' option tables by
`tests/docs/cli_reference.py build/default/kbench --write docs/cli.md`;
the ctest `docs_cli_reference` fails when a verb's `--help` and this page
differ. Exit codes: [outputs.md](outputs.md#exit-codes).
"""


def helptext(kbench, words):
    out = subprocess.run([kbench, *words, "--help"], capture_output=True,
                         text=True, check=False)
    if out.returncode != 0:
        sys.exit(f"cli_reference.py: {' '.join(words)} --help exited "
                 f"{out.returncode}: {out.stderr.strip()}")
    return out.stdout.rstrip() + "\n"


def verbs(kbench):
    top = helptext(kbench, [])
    block = top.split("Verbs:\n", 1)[1].split("\n\n", 1)[0]
    return [line.split()[0] for line in block.splitlines() if line.strip()]


def subverbs(text, verb):
    if f"`kbench {verb} SUB --help`" not in text:
        return []
    found = re.findall(rf"^  kbench {verb} (\S+)", text, re.M)
    return list(dict.fromkeys(found))


def render(kbench):
    parts = [HEADER]
    for verb in verbs(kbench):
        text = helptext(kbench, [verb])
        parts.append(f"\n## kbench {verb}\n\n```text\n{text}```\n")
        for sub in subverbs(text, verb):
            sub_text = helptext(kbench, [verb, sub])
            parts.append(f"\n### kbench {verb} {sub}\n\n```text\n{sub_text}```\n")
    return "".join(parts)


def main():
    if len(sys.argv) != 4 or sys.argv[2] not in ("--write", "--check"):
        sys.exit(__doc__)
    kbench, mode, path = sys.argv[1:]
    want = render(kbench)
    if mode == "--write":
        with open(path, "w", encoding="utf-8") as f:
            f.write(want)
        return 0
    with open(path, encoding="utf-8") as f:
        have = f.read()
    if have == want:
        print(f"{path}: every verb's --help matches")
        return 0
    for (a, b) in zip(have.split("\n## "), want.split("\n## ")):
        if a != b:
            print(f"{path}: the section '## {b.splitlines()[0]}' differs from "
                  f"what kbench prints; regenerate with {sys.argv[0]} "
                  f"{kbench} --write {path}", file=sys.stderr)
            return 1
    print(f"{path}: a different set of verbs than kbench --help lists; "
          f"regenerate with --write", file=sys.stderr)
    return 1


if __name__ == "__main__":
    sys.exit(main())
