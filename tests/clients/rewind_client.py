"""A client of `rewind serve --stdio`, standard library only.

    from rewind_client import Rewind
    with Rewind(["rewind", "serve", "--stdio"], cwd="/path/to/workspace") as rw:
        session = rw.createSession({"title": "demo"})
        rw.recordPrompt(session["id"], {"text": "hello"})

Every JS API method is a method here, with the same positional arguments and the same result
objects. Bytes (the `before`/`after` of `recordEdit`) are base64 strings: `b64(b"...")`.
A failure raises `RewindError` with the stable code (`not_found`, `conflict`, ...).
"""

import base64
import json
import subprocess


def b64(data):
    """Bytes (or text, as UTF-8) as the base64 string the protocol carries."""
    if isinstance(data, str):
        data = data.encode("utf-8")
    return base64.b64encode(data).decode("ascii")


class RewindError(Exception):
    """A JSON-RPC error: `code` is the stable rewind code, `rpc_code` the JSON-RPC one."""

    def __init__(self, error):
        super().__init__(error.get("message", ""))
        self.code = (error.get("data") or {}).get("code")
        self.rpc_code = error.get("code")


class Rewind:
    """One `rewind serve --stdio` process; calls go one at a time, in order."""

    def __init__(self, command=("rewind", "serve", "--stdio"), workspace=None, **popen):
        self.workspace = workspace
        self._next = 0
        self._proc = subprocess.Popen(
            list(command),
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            text=True,
            encoding="utf-8",
            **popen,
        )

    def call(self, method, *params, workspace=None):
        """Run `method` with positional `params`; its result, or RewindError."""
        self._next += 1
        request = {"jsonrpc": "2.0", "id": self._next, "method": method, "params": list(params)}
        workspace = workspace or self.workspace
        if workspace is not None:
            request["workspace"] = workspace
        reply = self.send_line(json.dumps(request))
        if "error" in reply:
            raise RewindError(reply["error"])
        return reply["result"]

    def notify(self, method, *params):
        """A notification: no id, so no reply."""
        request = {"jsonrpc": "2.0", "method": method, "params": list(params)}
        self._proc.stdin.write(json.dumps(request) + "\n")
        self._proc.stdin.flush()

    def send_line(self, line):
        """Write one raw line and read the one reply line (for protocol tests)."""
        self._proc.stdin.write(line + "\n")
        self._proc.stdin.flush()
        reply = self._proc.stdout.readline()
        if not reply:
            raise EOFError("rewind serve ended")
        return json.loads(reply)

    def __getattr__(self, method):
        # camelCase JS names: rw.recordPrompt(sessionId, {"text": ...}).
        if method.startswith("_"):
            raise AttributeError(method)
        return lambda *params: self.call(method, *params)

    def close(self):
        """End of input ends the server; its exit code."""
        self._proc.stdin.close()
        code = self._proc.wait()
        self._proc.stdout.close()
        return code

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()
