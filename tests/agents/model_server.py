#!/usr/bin/env python3
"""A scripted model server on 127.0.0.1 for real agents run headless (tests/agents/run).

It speaks the wire protocols of the agents we test: Anthropic's Messages API
(`POST /v1/messages`, Claude Code), OpenAI's chat completions (`POST /v1/chat/completions`,
Qwen Code, OpenCode), OpenAI's Responses API (`POST /v1/responses`, streamed, Codex CLI) and
the Gemini API (`POST /v1beta/models/M:generateContent` and `:streamGenerateContent?alt=sse`,
Gemini CLI), streamed or not.

A case is a script (a JSON file): `{"turns": {"NAME": [step, ...]}}`. A prompt names its turn
with `turn:NAME`; the server finds the last prompt in the conversation and counts the tool
results after it: that is the position in the turn's steps. A step is one of
  {"write": PATH, "content": TEXT}                the agent's file tool writes PATH
  {"shell": CMD, "background": BOOL}              the agent's shell tool runs CMD
  {"text": TEXT}                                  the final answer (also past the end)
  {"error": STATUS}                               the model fails with STATUS
and may carry `"person": {"write": PATH, "content": TEXT}`: the server itself writes that file
(as the person would, in their editor) before it answers with the step, i.e. after the previous
tool ran and before the next one, once per case. PATH is relative to the workspace.
Requests without tools (titles, summaries, classifiers) get a short text. Every request is
appended to `$MODEL_LOG` as one JSON line (`prompts`: the last 200 characters of each of the person's prompts it sends).
Usage: model_server.py PORT_FILE WORKSPACE SCRIPT
"""

import itertools
import json
import os
import re
import sys
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

PORT_FILE, WORKSPACE, SCRIPT = sys.argv[1], sys.argv[2], sys.argv[3]
with open(SCRIPT) as f:
    TURNS = json.load(f)["turns"]
DONE = set()  # the person's edits already made (by turn and step)
LOCK = threading.Lock()
CALLS = itertools.count(1)  # call ids: unique, or Claude Code merges the calls of one id
MARK = re.compile(r"turn:([A-Za-z0-9_-]+)")

WRITE_TOOLS = ("Write", "write_file", "write", "apply_patch")
SHELL_TOOLS = ("Bash", "run_shell_command", "bash", "exec_command", "shell_command", "shell")


def texts(parts):
    """The prompt text of a message's parts (Anthropic blocks, Gemini parts or a string)."""
    if isinstance(parts, str):
        return parts
    out = []
    for p in parts or []:
        if isinstance(p, dict) and isinstance(p.get("text"), str):
            out.append(p["text"])
    return "\n".join(out)


def position(messages, prompt_of, results_of):
    """(turn name, step) of a conversation: the last prompt marked `turn:NAME`, and how many
    tool results came after it."""
    turn, step = None, 0
    for m in messages:
        found = MARK.findall(prompt_of(m))
        if found:
            turn, step = found[-1], 0
        else:
            step += results_of(m)
    return turn, step


def plan(tools, turn, step):
    """The step to answer with: a dict from the script (or the final text)."""
    steps = TURNS.get(turn or "", [])
    if not tools or step >= len(steps):
        return {"text": "Done."}
    s = steps[step]
    person = s.get("person")
    if person and (turn, step) not in DONE:
        with LOCK:
            DONE.add((turn, step))
            path = os.path.join(WORKSPACE, person["write"])
            with open(path, "w") as f:
                f.write(person["content"])
    return s


def add_patch(path, content):
    """A V4A patch adding PATH with CONTENT (Codex's apply_patch)."""
    lines = "".join("+" + line + "\n" for line in content.splitlines())
    return f"*** Begin Patch\n*** Add File: {path}\n{lines}*** End Patch\n"


def tool_call(tools, s):
    """(tool name, arguments) for a write or shell step, in the agent's own terms."""
    if "write" in s:
        name = next(n for n in WRITE_TOOLS if n in tools)
        path = s["write"] if os.path.isabs(s["write"]) else os.path.join(WORKSPACE, s["write"])
        if name == "apply_patch":
            return name, {"input": add_patch(path, s["content"])}
        if name == "write":
            return name, {"filePath": path, "content": s["content"]}
        return name, {"file_path": path, "content": s["content"]}
    name = next(n for n in SHELL_TOOLS if n in tools)
    args = {"command": s["shell"], "description": "a scripted command"}
    if name == "exec_command":
        return name, {"cmd": s["shell"], "workdir": WORKSPACE}
    if name == "shell_command":
        return name, {"command": s["shell"], "workdir": WORKSPACE}
    if name == "shell":
        return name, {"command": ["bash", "-lc", s["shell"]], "workdir": WORKSPACE}
    if name == "Bash":
        if s.get("background"):
            args["run_in_background"] = True
    elif name == "run_shell_command":
        args["is_background"] = bool(s.get("background"))
    return name, args


def anthropic_results(m):
    """Tool results in one message (Claude Code may merge several into one user message)."""
    c = m.get("content")
    if m.get("role") != "user" or not isinstance(c, list):
        return 0
    return sum(1 for b in c if isinstance(b, dict) and b.get("type") == "tool_result")


def anthropic_prompt(m):
    if m.get("role") != "user" or anthropic_results(m):
        return ""
    return texts(m.get("content"))


def openai_prompt(m):
    return texts(m.get("content")) if m.get("role") == "user" else ""


def responses_results(m):
    return 1 if m.get("type") in ("function_call_output", "custom_tool_call_output") else 0


def responses_prompt(m):
    if m.get("role") != "user":
        return ""
    c = m.get("content")
    if isinstance(c, str):
        return c
    return "\n".join(p.get("text", "") for p in c or [] if isinstance(p, dict))


def gemini_results(m):
    return sum(1 for p in m.get("parts") or [] if isinstance(p, dict) and "functionResponse" in p)


def gemini_prompt(m):
    if m.get("role") != "user" or gemini_results(m):
        return ""
    return texts(m.get("parts"))


def prompts(req):
    """The person's prompts a request sends, in order (whatever the protocol)."""
    of = gemini_prompt if "contents" in req else anthropic_prompt
    return [p[-200:] for p in (of(m) for m in req.get("messages") or req.get("contents") or []) if p]


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

    def sse(self, chunks, events=None):
        text = ""
        for i, c in enumerate(chunks):
            if events:
                text += f"event: {events[i]}\n"
            text += f"data: {c if isinstance(c, str) else json.dumps(c)}\n\n"
        self.send(200, text.encode(), "text/event-stream")

    def do_GET(self):
        self.send(200, {"data": [], "object": "list", "models": []})

    def do_HEAD(self):
        self.send(200, b"")

    def do_POST(self):
        req = self.body()
        with open(os.environ.get("MODEL_LOG", "/dev/null"), "a") as log:
            msgs = req.get("messages") or req.get("contents") or req.get("input") or [{}]
            log.write(json.dumps({"path": self.path, "tools": len(req.get("tools") or []), "names": Handler.names(req),
                                  "messages": len(msgs), "stream": req.get("stream"),
                                  "system": str(req.get("system"))[-200:],
                                  "keys": sorted(req), "tool_choice": req.get("tool_choice"), "last": str(msgs[-1])[:300],
                                  "prompts": prompts(req)}) + "\n")
        if "count_tokens" in self.path or ":countTokens" in self.path:
            return self.send(200, {"input_tokens": 10, "totalTokens": 10})
        if self.path.startswith("/v1/messages"):
            return self.anthropic(req)
        if self.path.startswith("/v1/responses"):
            return self.openai_responses(req)
        if "chat/completions" in self.path:
            return self.openai(req)
        if "generateContent" in self.path or "GenerateContent" in self.path:
            return self.gemini(req, "streamGenerateContent" in self.path)
        self.send(404, {"error": "unknown path " + self.path})

    def error(self, s):
        self.send(s["error"], {"type": "error", "error": {"type": "api_error", "code": s["error"],
                                                           "message": "scripted model error", "status": "INTERNAL"}})

    @staticmethod
    def names(req):
        return [t.get("name") or (t.get("function") or {}).get("name") for t in req.get("tools") or []]

    @staticmethod
    def params(req, name):
        """The argument names the request's tool NAME declares (chat completions' tools)."""
        for t in req.get("tools") or []:
            f = t.get("function") or {}
            if f.get("name") == name:
                return set((f.get("parameters") or {}).get("properties") or {})
        return set()

    def anthropic(self, req):
        tools = self.names(req)
        s = plan(tools, *position(req.get("messages", []), anthropic_prompt, anthropic_results))
        if "error" in s:
            return self.error(s)
        if "text" in s:
            content, stop = [{"type": "text", "text": s["text"]}], "end_turn"
        else:
            name, args = tool_call(tools, s)
            content = [{"type": "tool_use", "id": f"toolu_{next(CALLS):04d}", "name": name, "input": args}]
            stop = "tool_use"
        msg = {"id": "msg_scripted", "type": "message", "role": "assistant", "model": req.get("model", "m"),
               "content": content, "stop_reason": stop, "stop_sequence": None,
               "usage": {"input_tokens": 10, "output_tokens": 5}}
        if not req.get("stream"):
            return self.send(200, msg)
        events = [("message_start", {"type": "message_start", "message": {**msg, "content": [], "stop_reason": None}})]
        for i, block in enumerate(content):
            if block["type"] == "text":
                start, delta = {"type": "text", "text": ""}, {"type": "text_delta", "text": block["text"]}
            else:
                start, delta = {**block, "input": {}}, {"type": "input_json_delta", "partial_json": json.dumps(block["input"])}
            events += [("content_block_start", {"type": "content_block_start", "index": i, "content_block": start}),
                       ("content_block_delta", {"type": "content_block_delta", "index": i, "delta": delta}),
                       ("content_block_stop", {"type": "content_block_stop", "index": i})]
        events += [("message_delta", {"type": "message_delta", "delta": {"stop_reason": stop, "stop_sequence": None}, "usage": {"output_tokens": 5}}),
                   ("message_stop", {"type": "message_stop"})]
        self.sse([d for _, d in events], [e for e, _ in events])

    def openai(self, req):
        tools = self.names(req)
        s = plan(tools, *position(req.get("messages", []), openai_prompt,
                                  lambda m: 1 if m.get("role") == "tool" else 0))
        if "error" in s:
            return self.error(s)
        base = {"id": "chatcmpl-scripted", "object": "chat.completion", "created": 0, "model": req.get("model", "m")}
        if "text" in s:
            message, finish = {"role": "assistant", "content": s["text"]}, "stop"
        else:
            name, args = tool_call(tools, s)
            if name == "Write" and "filepath" in self.params(req, name):  # Continue's cn
                args["filepath"] = args.pop("file_path")
            call = {"id": f"call_{next(CALLS):04d}", "type": "function",
                    "function": {"name": name, "arguments": json.dumps(args)}}
            message, finish = {"role": "assistant", "content": None, "tool_calls": [call]}, "tool_calls"
        usage = {"prompt_tokens": 10, "completion_tokens": 5, "total_tokens": 15}
        if not req.get("stream"):
            return self.send(200, {**base, "choices": [{"index": 0, "message": message, "finish_reason": finish}], "usage": usage})
        delta = dict(message)
        if "tool_calls" in message:
            delta["tool_calls"] = [{"index": 0, **message["tool_calls"][0]}]
        chunk = {**base, "object": "chat.completion.chunk"}
        self.sse([{**chunk, "choices": [{"index": 0, "delta": delta, "finish_reason": None}]},
                  {**chunk, "choices": [{"index": 0, "delta": {}, "finish_reason": finish}], "usage": usage},
                  "[DONE]"])

    def openai_responses(self, req):
        """OpenAI's Responses API as Codex streams it: the output items, then completed."""
        tools = self.names(req)
        custom = {t.get("name") for t in req.get("tools") or [] if t.get("type") == "custom"}
        s = plan(tools, *position(req.get("input") or [], responses_prompt, responses_results))
        if "error" in s:
            return self.error(s)
        rid = f"resp_{next(CALLS):04d}"
        if "text" in s:
            item = {"type": "message", "role": "assistant", "id": f"msg_{rid}",
                    "content": [{"type": "output_text", "text": s["text"], "annotations": []}]}
        else:
            name, args = tool_call(tools, s)
            call = f"call_{next(CALLS):04d}"
            if name in custom:
                item = {"type": "custom_tool_call", "id": f"ctc_{call}", "call_id": call, "name": name,
                        "input": args["input"], "status": "completed"}
            else:
                item = {"type": "function_call", "id": f"fc_{call}", "call_id": call, "name": name,
                        "arguments": json.dumps(args), "status": "completed"}
        usage = {"input_tokens": 10, "input_tokens_details": {"cached_tokens": 0}, "output_tokens": 5,
                 "output_tokens_details": {"reasoning_tokens": 0}, "total_tokens": 15}
        response = {"id": rid, "object": "response", "status": "completed", "model": req.get("model", "m"),
                    "output": [item], "usage": usage}
        events = [("response.created", {"type": "response.created", "response": {**response, "status": "in_progress", "output": []}}),
                  ("response.output_item.added", {"type": "response.output_item.added", "output_index": 0, "item": item}),
                  ("response.output_item.done", {"type": "response.output_item.done", "output_index": 0, "item": item}),
                  ("response.completed", {"type": "response.completed", "response": response})]
        self.sse([d for _, d in events], [e for e, _ in events])

    def gemini(self, req, stream):
        tools = [d.get("name") for t in req.get("tools") or [] for d in t.get("functionDeclarations") or []]
        s = plan(tools, *position(req.get("contents", []), gemini_prompt, gemini_results))
        if "error" in s:
            return self.error(s)
        if "text" in s:
            parts = [{"text": s["text"]}]
        else:
            name, args = tool_call(tools, s)
            parts = [{"functionCall": {"name": name, "args": args}}]
        answer = {"candidates": [{"content": {"role": "model", "parts": parts}, "finishReason": "STOP", "index": 0}],
                  "usageMetadata": {"promptTokenCount": 10, "candidatesTokenCount": 5, "totalTokenCount": 15},
                  "modelVersion": "gemini-2.5-flash"}
        if stream:
            return self.sse([answer])
        self.send(200, answer)


server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
with open(PORT_FILE, "w") as f:
    f.write(str(server.server_address[1]))
server.serve_forever()
