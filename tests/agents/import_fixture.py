#!/usr/bin/env python3
"""Keep an agent's session records as a small test fixture (cli/tests/fixtures/import/).

Usage: import_fixture.py HOME WORKSPACE OUT
Copies the agent records under HOME that `rewind import` reads (Claude Code's transcripts and
file-history, Qwen Code's chats, Gemini CLI's projects.json and chats), with the workspace's path written as @WS@ (and its
project-directory name as @WSDIR@) so a test can put them under any workspace, and made small:
the lines the agents themselves pass over when they resume (Claude Code's `api-request*`
records, Qwen Code's `ui_telemetry`) are left out, and attachment / system payloads are cut to
their type. Entries keep their uuid / parentUuid chain; nothing else is changed.
"""
import json, os, re, shutil, sys

home, ws, out = sys.argv[1:4]
munged = re.sub(r"[^A-Za-z0-9]", "-", ws)
DROP = {"api-request", "api-request-shape", "api-request-blob", "api-request-resumed", "atis-latch", "tools-used", "cost-state"}


def small(v):
    if v.get("type") in DROP or v.get("subtype") == "ui_telemetry":
        return None
    if v.get("type") == "attachment":
        v["attachment"] = {"type": v.get("attachment", {}).get("type")}
        v.pop("rendered", None)
    if v.get("subtype") == "attribution_snapshot":
        v["systemPayload"] = {}
    return v


def copy_jsonl(src, dst):
    os.makedirs(os.path.dirname(dst), exist_ok=True)
    with open(src) as f, open(dst, "w") as g:
        for line in f:
            v = small(json.loads(line))
            if v is not None:
                g.write(json.dumps(v, separators=(",", ":")).replace(ws, "@WS@") + "\n")


for root, _, files in os.walk(home):
    for name in files:
        src = os.path.join(root, name)
        rel = os.path.relpath(src, home)
        parts = rel.split(os.sep)
        wanted = (parts[:2] == [".claude", "projects"] or parts[:2] == [".claude", "file-history"]
                  or parts[:2] == [".qwen", "projects"] or parts[:2] == [".qwen", "file-history"]
                  or rel == os.path.join(".gemini", "projects.json")
                  or (parts[:2] == [".gemini", "tmp"] and "chats" in parts))
        if not wanted:
            continue
        dst = os.path.join(out, rel.replace(munged, "@WSDIR@"))
        if name.endswith(".jsonl"):
            copy_jsonl(src, dst)
        elif name.endswith(".json"):
            os.makedirs(os.path.dirname(dst), exist_ok=True)
            with open(src) as f, open(dst, "w") as g:
                g.write(f.read().replace(ws, "@WS@"))
        else:
            os.makedirs(os.path.dirname(dst), exist_ok=True)
            shutil.copyfile(src, dst)
