"""A whole session through `rewind serve --stdio` with rewind_client (standard library only):
record a turn with an edit, change the file on disk so the preview shows a conflict, apply
with `merge` (the user's line is kept), undo, fork; plus the protocol's error paths.

    python3 session.py REWIND_BINARY WORKSPACE_DIR        prints "ok" at the end
"""

import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from rewind_client import Rewind, RewindError, b64  # noqa: E402


def read(ws, rel):
    with open(os.path.join(ws, rel), encoding="utf-8") as f:
        return f.read()


def write(ws, rel, text):
    with open(os.path.join(ws, rel), "w", encoding="utf-8") as f:
        f.write(text)


def main(binary, ws):
    before, after = "one\ntwo\nthree\n", "one\nTWO\nthree\n"
    write(ws, "a.txt", before)
    with Rewind([binary, "serve", "--stdio"], cwd=ws) as rw:
        session = rw.createSession({"title": "python"})["id"]
        prompt = rw.recordPrompt(session, {"text": "shout line two"})
        write(ws, "a.txt", after)
        rw.recordEdit(session, {"turnId": prompt["turnId"], "path": "a.txt", "toolName": "Edit",
                                "before": b64(before), "after": b64(after)})
        rw.recordReply(session, {"turnId": prompt["turnId"], "text": "done"})
        rw.completeTurn(session, {"turnId": prompt["turnId"]})

        # The person adds a line after the agent's turn: rewinding a.txt now conflicts.
        write(ws, "a.txt", after + "four\n")
        since = {"since": prompt["messageId"]}
        preview = rw.previewFileRewind(session, since)
        assert preview["canApply"] is False, preview
        assert [(u["path"], u["mergeable"]) for u in preview["unsafeFiles"]] == [("a.txt", True)]
        blocked = rw.applyFileRewind(session, since)
        assert blocked["applied"] is False, blocked
        assert read(ws, "a.txt") == after + "four\n"

        # Merge: the agent's change is undone, the person's line stays.
        merged = rw.applyFileRewind(session, dict(since, policy="merge"))
        assert merged["applied"] is True, merged
        assert read(ws, "a.txt") == before + "four\n", read(ws, "a.txt")

        undone = rw.undo(session, {"operationId": merged["operationId"]})
        assert read(ws, "a.txt") == after + "four\n", (undone, read(ws, "a.txt"))

        fork = rw.fork(session, {"at": prompt["messageId"], "commandId": "cmd_python_fork"})
        again = rw.fork(session, {"at": prompt["messageId"], "commandId": "cmd_python_fork"})
        assert again["childId"] == fork["childId"] and again["replayed"] is True, (fork, again)
        ids = sorted(s["id"] for s in rw.listSessions())
        assert ids == sorted([session, fork["childId"]]), ids

        # Errors: the stable code in error.data.code; a bad line does not end the server.
        try:
            rw.resume("ses_00000000000000000000000000000000")
            raise AssertionError("resume of a missing session succeeded")
        except RewindError as e:
            assert e.code == "not_found" and e.rpc_code == -32000, (e.code, e.rpc_code)
        reply = rw.send_line("{not json")
        assert reply["error"]["code"] == -32700 and reply["id"] is None, reply
        try:
            rw.call("noSuchMethod")
            raise AssertionError("an unknown method succeeded")
        except RewindError as e:
            assert e.rpc_code == -32601 and e.code == "invalid_input", e.rpc_code
        rw.notify("recordPrompt", session, {"text": "a notification gets no reply"})
        texts = [m.get("text") for m in rw.resume(session)["messages"]]
        assert "a notification gets no reply" in texts, texts
    print("ok")


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2])
