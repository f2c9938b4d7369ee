#!/usr/bin/env python3
"""A scripted model server on 127.0.0.1 for real agents run headless (tests/agents/run).

It speaks the two wire protocols the agents we test use: Anthropic's Messages API
(`POST /v1/messages`, Claude Code) and OpenAI's chat completions (`POST /v1/chat/completions`,
Qwen Code), streamed or not. Each conversation follows one script: the first answer asks the
agent's file tool to write `hello.txt`, the next asks its shell tool to run a command that
writes `shell.txt` and removes `old.txt`, then it says it is done. Requests without tools (titles,
summaries) get a short text. Every request is appended to `$MODEL_LOG` as one JSON line.
Usage: model_server.py PORT_FILE WORKSPACE
"""

import json
import os
import sys
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

PORT_FILE, WORKSPACE = sys.argv[1], sys.argv[2]
HELLO = "hello from the agent\n"
SHELL = "printf 'from the shell\\n' > shell.txt && rm -f old.txt"


def step_of(messages, results):
    """How many tool results the conversation holds so far: the script's position."""
    return sum(results(m) for m in messages)


def anthropic_result(m):
    """Tool results in one message (Claude Code may merge several into one user message)."""
    c = m.get("content")
    if m.get("role") != "user" or not isinstance(c, list):
        return 0
    return sum(1 for b in c if isinstance(b, dict) and b.get("type") == "tool_result")


def openai_result(m):
    return 1 if m.get("role") == "tool" else 0


def plan(tools, step):
    """(tool name, input) for this step, or None when the script is done."""
    names = {t: t for t in tools}
    write = next((n for n in ("Write", "write_file") if n in names), None)
    shell = next((n for n in ("Bash", "run_shell_command") if n in names), None)
    if step == 0 and write:
        return write, {"file_path": os.path.join(WORKSPACE, "hello.txt"), "content": HELLO}
    if step == 1 and shell:
        args = {"command": SHELL, "description": "write shell.txt, remove old.txt"}
        if shell == "run_shell_command":
            args["is_background"] = False
        return shell, args
    return None


class Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def log_message(self, *a):
        pass

    def body(self):
        n = int(self.headers.get("Content-Length") or 0)
        return json.loads(self.rfile.read(n) or b"{}")

    def send(self, status, payload, ctype="application/json"):
        data = payload if isinstance(payload, bytes) else json.dumps(payload).encode()
        self.send_response(status)
        self.send_header("Content-Type", ctype)
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def do_GET(self):
        self.send(200, {"data": [], "object": "list"})

    def do_HEAD(self):
        self.send(200, b"")

    def do_POST(self):
        req = self.body()
        with open(os.environ.get("MODEL_LOG", "/dev/null"), "a") as log:
            last = (req.get("messages") or [{}])[-1]
            log.write(json.dumps({"path": self.path, "tools": len(req.get("tools") or []),
                                  "messages": len(req.get("messages") or []), "last": str(last)[:300]}) + "\n")
        if "count_tokens" in self.path:
            return self.send(200, {"input_tokens": 10})
        if self.path.startswith("/v1/messages"):
            return self.anthropic(req)
        if "chat/completions" in self.path:
            return self.openai(req)
        self.send(404, {"error": "unknown path " + self.path})

    @staticmethod
    def tool_name(t):
        return t.get("name") or (t.get("function") or {}).get("name")

    def anthropic(self, req):
        tools = [self.tool_name(t) for t in req.get("tools") or []]
        act = plan(tools, step_of(req.get("messages", []), anthropic_result)) if tools else None
        if act:
            content = [{"type": "tool_use", "id": f"toolu_{len(req['messages'])}", "name": act[0], "input": act[1]}]
            stop = "tool_use"
        else:
            content = [{"type": "text", "text": "Done."}]
            stop = "end_turn"
        msg = {"id": "msg_scripted", "type": "message", "role": "assistant", "model": req.get("model", "m"),
               "content": content, "stop_reason": stop, "stop_sequence": None,
               "usage": {"input_tokens": 10, "output_tokens": 5}}
        if not req.get("stream"):
            return self.send(200, msg)
        events = [("message_start", {"type": "message_start", "message": {**msg, "content": [], "stop_reason": None}})]
        for i, block in enumerate(content):
            if block["type"] == "text":
                events += [("content_block_start", {"type": "content_block_start", "index": i, "content_block": {"type": "text", "text": ""}}),
                           ("content_block_delta", {"type": "content_block_delta", "index": i, "delta": {"type": "text_delta", "text": block["text"]}})]
            else:
                events += [("content_block_start", {"type": "content_block_start", "index": i, "content_block": {**block, "input": {}}}),
                           ("content_block_delta", {"type": "content_block_delta", "index": i, "delta": {"type": "input_json_delta", "partial_json": json.dumps(block["input"])}})]
            events.append(("content_block_stop", {"type": "content_block_stop", "index": i}))
        events += [("message_delta", {"type": "message_delta", "delta": {"stop_reason": stop, "stop_sequence": None}, "usage": {"output_tokens": 5}}),
                   ("message_stop", {"type": "message_stop"})]
        text = "".join(f"event: {e}\ndata: {json.dumps(d)}\n\n" for e, d in events)
        self.send(200, text.encode(), "text/event-stream")

    def openai(self, req):
        tools = [self.tool_name(t) for t in req.get("tools") or []]
        act = plan(tools, step_of(req.get("messages", []), openai_result)) if tools else None
        base = {"id": "chatcmpl-scripted", "object": "chat.completion", "created": 0, "model": req.get("model", "m")}
        if act:
            call = {"id": f"call_{len(req['messages'])}", "type": "function",
                    "function": {"name": act[0], "arguments": json.dumps(act[1])}}
            message, finish = {"role": "assistant", "content": None, "tool_calls": [call]}, "tool_calls"
        else:
            message, finish = {"role": "assistant", "content": "Done."}, "stop"
        usage = {"prompt_tokens": 10, "completion_tokens": 5, "total_tokens": 15}
        if not req.get("stream"):
            return self.send(200, {**base, "choices": [{"index": 0, "message": message, "finish_reason": finish}], "usage": usage})
        delta = dict(message)
        if act:
            delta["tool_calls"] = [{"index": 0, **message["tool_calls"][0]}]
        chunks = [{**base, "object": "chat.completion.chunk", "choices": [{"index": 0, "delta": delta, "finish_reason": None}]},
                  {**base, "object": "chat.completion.chunk", "choices": [{"index": 0, "delta": {}, "finish_reason": finish}], "usage": usage}]
        text = "".join(f"data: {json.dumps(c)}\n\n" for c in chunks) + "data: [DONE]\n\n"
        self.send(200, text.encode(), "text/event-stream")


server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
with open(PORT_FILE, "w") as f:
    f.write(str(server.server_address[1]))
server.serve_forever()
