#!/usr/bin/env python3
"""turn_of.py LOG PROMPT PATH: in `rewind log` output, PATH's change is in the turn whose prompt
holds PROMPT, recorded as a tool's (not `external`, the person's). Prints the log on failure."""
import re
import sys

log, prompt, path = sys.argv[1:4]
text = open(log).read()
turns = re.split(r"\n(?=  #\d+ )", text)
mine = [t for t in turns if prompt in t.split("\n")[0]]
lines = [l for t in mine for l in t.split("\n")[1:] if l.strip().endswith(path) or f" {path} " in l]
ok = bool(lines) and not any(" external " in l for l in lines)
if not ok:
    print(text)
sys.exit(0 if ok else 1)
