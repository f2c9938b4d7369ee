#!/usr/bin/env python3
"""keep_payloads.py CAPTURED OUT: copy the payloads a `CAPTURE=CAPTURED` run of the real-agent
suite kept (CAPTURED/<agent>/<case>/<ns>-<event>.json) into OUT/<agent>-<version>/<case>/ as
NN-<event>.json, in the order the agent sent them, for the cases worth keeping."""
import os
import re
import shutil
import sys

KEEP = {"claude-code": ["basic", "background"], "qwen-code": ["basic", "background", "failed"],
        "gemini-cli": ["basic", "background", "failed"]}
captured, out = sys.argv[1:3]
run = open(os.path.join(os.path.dirname(__file__), "run")).read()
for agent, cases in KEEP.items():
    version = re.search(r"\[%s\]=\S+@([0-9.]+)" % agent, run).group(1)
    for case in cases:
        src = os.path.join(captured, agent, case)
        if not os.path.isdir(src):
            continue
        dst = os.path.join(out, f"{agent}-{version}", case)
        shutil.rmtree(dst, ignore_errors=True)
        os.makedirs(dst)
        for i, name in enumerate(sorted(os.listdir(src), key=lambda n: int(n.split("-")[0])), 1):
            shutil.copy(os.path.join(src, name), os.path.join(dst, f"{i:02d}-{name.split('-', 1)[1]}"))
