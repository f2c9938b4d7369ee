# The docs' example (docs/server.md): a Python program drives `rewind serve --stdio` in the current directory.
import base64, json, subprocess

server = subprocess.Popen(["rewind", "serve", "--stdio"], stdin=subprocess.PIPE,
                          stdout=subprocess.PIPE, text=True)

def call(method, *params):
    request = {"jsonrpc": "2.0", "id": 1, "method": method, "params": list(params)}
    server.stdin.write(json.dumps(request) + "\n")
    server.stdin.flush()
    reply = json.loads(server.stdout.readline())
    if "error" in reply:
        raise RuntimeError(reply["error"]["data"]["code"] + ": " + reply["error"]["message"])
    return reply["result"]

def b64(text):
    return base64.b64encode(text.encode()).decode()

session = call("createSession", {"title": "demo"})["id"]
prompt = call("recordPrompt", session, {"text": "make a.txt say two"})
with open("a.txt", "w") as f:  # the agent's tool changes a.txt ...
    f.write("two\n")
call("recordEdit", session, {"turnId": prompt["turnId"], "path": "a.txt", "toolName": "Edit",
                             "before": b64("one\n"), "after": b64("two\n")})  # ... and says so
preview = call("previewFileRewind", session, {"since": prompt["messageId"]})
print("can apply:", preview["canApply"])
call("applyFileRewind", session, {"since": prompt["messageId"]})
print("a.txt:", open("a.txt").read().strip())  # one
server.stdin.close()
server.wait()
