"""`rewind mcp` from the official MCP Python SDK (`mcp` on PyPI, pinned in requirements.txt).

The SDK's own `Client` launches `rewind mcp` over stdio and negotiates (its `auto` mode probes
`server/discover`, which this server answers "method not found", then falls back to the
`initialize` handshake), lists the tools, lists turns, previews, applies with `confirm`, undoes,
reads a turn's diff resource, and answers elicitation with a callback that declines, then
accepts. Every check reads the files on disk too.

Run: `tests/mcp/.venv/bin/python tests/mcp/sdk_round_trip.py [path/to/rewind]` (default:
$REWIND_CLI, else target/debug/rewind; `scripts/setup` makes the venv). Prints TAP, as
`scripts/test` counts it; exits 1 when a check fails.
"""

import asyncio
import json
import os
import subprocess
import sys
import tempfile
import traceback
from pathlib import Path

import mcp.types as types
from mcp import Client, StdioServerParameters

ROOT = Path(__file__).resolve().parents[2]
REWIND = Path(
    sys.argv[1] if len(sys.argv) > 1 else os.environ.get("REWIND_CLI", ROOT / "target/debug/rewind")
).resolve()


def rewind(ws: Path, *args: str) -> dict:
    env = {k: v for k, v in os.environ.items() if k not in ("REWIND_DB", "REWIND_STORE")}
    out = subprocess.run(
        [str(REWIND), "--workspace", str(ws), "--json", *args],
        check=True, capture_output=True, text=True, env=env,
    )
    return json.loads(out.stdout)


def two_turns(ws: Path) -> str:
    """#1 changes a.txt (one -> two), #2 creates b.txt."""
    (ws / "a.txt").write_text("one\n")
    session = rewind(ws, "session", "new")["id"]
    t1 = rewind(ws, "prompt", session, "--text", "make it two")["turnId"]
    before = ws.parent / f"{ws.name}.before"
    before.write_text("one\n")
    (ws / "a.txt").write_text("two\n")
    rewind(ws, "edit", session, "--turn", t1, "--path", "a.txt", "--before-file", str(before))
    rewind(ws, "turn-end", session, "--turn", t1)
    t2 = rewind(ws, "prompt", session, "--text", "add b")["turnId"]
    (ws / "b.txt").write_text("bee\n")
    rewind(ws, "edit", session, "--turn", t2, "--path", "b.txt", "--created", "--tool", "Write")
    rewind(ws, "turn-end", session, "--turn", t2)
    return session


def server(ws: Path) -> StdioServerParameters:
    return StdioServerParameters(command=str(REWIND), args=["--workspace", str(ws), "mcp"])


async def without_elicitation(ws: Path, session: str) -> None:
    async with Client(server(ws), read_timeout_seconds=20) as client:
        assert client.server_info.name == "rewind", client.server_info
        tools = await client.list_tools()
        names = [t.name for t in tools.tools]
        assert names == ["list_sessions", "list_turns", "show_diff", "preview_rewind",
                         "apply_rewind", "undo_rewind", "fork_session"], names
        apply_tool = next(t for t in tools.tools if t.name == "apply_rewind")
        assert "REWRITES FILES ON DISK" in apply_tool.description

        turns = await client.call_tool("list_turns", {})
        assert not turns.is_error, turns
        rows = turns.structured_content["turns"]
        assert [t["ref"] for t in rows] == ["#1", "#2"], rows
        assert rows[0]["prompt"] == "make it two" and rows[0]["files"] == ["a.txt"], rows

        preview = await client.call_tool("preview_rewind", {"scope": "both", "to": "#1"})
        doc = preview.structured_content
        assert doc["canApply"] is True and doc["conflicts"] == [], doc
        assert doc["conversation"]["turnsDropped"] == [1, 2], doc

        refused = await client.call_tool("apply_rewind", {"scope": "both", "to": "#1"})
        assert refused.is_error, refused
        assert "nothing was written" in refused.content[0].text
        assert (ws / "a.txt").read_text() == "two\n" and (ws / "b.txt").exists()

        applied = await client.call_tool(
            "apply_rewind", {"scope": "code", "to": "#1", "confirm": True})
        assert not applied.is_error and applied.structured_content["applied"], applied
        assert (ws / "a.txt").read_text() == "one\n" and not (ws / "b.txt").exists()

        undone = await client.call_tool("undo_rewind", {"confirm": True})
        assert not undone.is_error, undone
        assert (ws / "a.txt").read_text() == "two\n" and (ws / "b.txt").read_text() == "bee\n"

        uri = f"rewind://session/{session}/turn/1/diff"
        listed = await client.list_resources()
        assert uri in [str(r.uri) for r in listed.resources], listed
        read = await client.read_resource(uri)
        assert "+one" in read.contents[0].text, read


async def with_elicitation(ws: Path) -> None:
    answers = ["decline", "accept"]
    asked = []

    async def elicit(context, params: types.ElicitRequestParams):
        asked.append(params.message)
        action = answers.pop(0)
        content = {"confirm": True} if action == "accept" else None
        return types.ElicitResult(action=action, content=content)

    async with Client(server(ws), elicitation_callback=elicit, read_timeout_seconds=20) as client:
        args = {"scope": "code", "turn": "#2"}
        declined = await client.call_tool("apply_rewind", args)
        assert declined.is_error, declined
        assert "declined" in declined.content[0].text, declined.content[0].text
        assert (ws / "b.txt").read_text() == "bee\n"
        accepted = await client.call_tool("apply_rewind", args)
        assert not accepted.is_error, accepted
        assert not (ws / "b.txt").exists() and (ws / "a.txt").read_text() == "two\n"
    assert len(asked) == 2 and "delete b.txt" in asked[0], asked


async def main() -> int:
    checks = [
        ("the SDK client lists, previews, applies with confirm, undoes and reads a resource",
         without_elicitation),
        ("the SDK client's elicitation callback declines (nothing written), then accepts",
         with_elicitation),
    ]
    failed = 0
    with tempfile.TemporaryDirectory() as tmp:
        ws = Path(tmp) / "ws"
        ws.mkdir()
        session = two_turns(ws)
        for n, (name, check) in enumerate(checks, 1):
            try:
                await (check(ws, session) if check is without_elicitation else check(ws))
                print(f"ok {n} - {name}")
            except Exception:  # noqa: BLE001 - any failure is this check's, reported as TAP
                failed += 1
                print(f"not ok {n} - {name}")
                traceback.print_exc(file=sys.stdout)
    print(f"1..{len(checks)}")
    print(f"# pass {len(checks) - failed}")
    print(f"# fail {failed}")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(asyncio.run(main()))
