# Helpers for tests/agents/run (sourced, one agent per process): a case is a fresh git
# workspace and home, a scripted model server (model_server.py) playing the case's turns, and
# rewind's hooks installed by `rewind init`; `turn` runs the real agent for one prompt.
# Each check prints `ok - ...` or `not ok - ...`; run numbers them.

check() { # check DESCRIPTION COMMAND...: one TAP line for $AGENT
  local what=$1; shift
  if "$@" >/dev/null 2>&1; then echo "ok - $AGENT: $CASE: $what"; else echo "not ok - $AGENT: $CASE: $what"; fi
}
same() { cmp -s "$1" "$2"; }
same_tree() { diff -r "$1" "$2"; }
is_dir() { [ -d "$1" ] && [ ! -L "$1" ]; }
is_file() { [ -f "$1" ] && [ ! -L "$1" ]; }
gone() { [ ! -e "$1" ] && [ ! -L "$1" ]; }
rw() { (cd "${RW_DIR:-$WS}" && HOME="$H" rewind "$@"); }
saw() { grep -q -- "$1" "$2"; } # saw TEXT FILE

# begin_case NAME SCRIPT_JSON [INIT_ARGS...]: a workspace with a seed commit (run `seed` first
# to add files), the server, the hooks; sets WS, H (home), PORT.
begin_case() {
  CASE=$1
  local script=$2; shift 2
  H=$(mktemp -d "$TMP_ROOT/$AGENT-$CASE-home.XXXX") WS=$(mktemp -d "$TMP_ROOT/$AGENT-$CASE-ws.XXXX")
  WS=$(cd "$WS" && pwd -P)
  printf '%s\n' "$script" > "$H/script.json"
  (cd "$WS" && git init -q && printf 'seed\n' > README.md && { [ -z "${SEED:-}" ] || eval "$SEED"; } &&
    git add -A && git -c user.email=t@t -c user.name=t commit -qm seed)
  MODEL_LOG="$H/model.log" python3 "$ROOT/tests/agents/model_server.py" "$H/port" "$WS" "$H/script.json" &
  SERVER=$!
  for _ in $(seq 50); do [ -s "$H/port" ] && break; sleep 0.1; done
  PORT=$(cat "$H/port")
  (cd "$WS" && HOME="$H" rewind init "$AGENT" "$@" >"$H/init.out" 2>&1)
  local settings="$WS/$(settings_file)"
  [[ " $* " == *" --user "* ]] && settings="$H/$(settings_file)"
  python3 "$ROOT/tests/agents/add_capture.py" "$settings" "$AGENT" "$ROOT/tests/agents/capture $H/payloads"
  agent_home
  TURNS=0
}

end_case() {
  kill "$SERVER" 2>/dev/null; wait "$SERVER" 2>/dev/null
  if [ -n "${CAPTURE:-}" ]; then mkdir -p "$CAPTURE/$AGENT/$CASE" && cp -a "$H/payloads/." "$CAPTURE/$AGENT/$CASE/" 2>/dev/null; fi
  echo "# $AGENT: $CASE: workspace $WS, home $H"
}

# Where `rewind init $AGENT` puts its hooks, relative to the workspace (or home).
settings_file() {
  case $AGENT in
    claude-code) echo .claude/settings.json ;; qwen-code) echo .qwen/settings.json ;;
    gemini-cli) echo .gemini/settings.json ;; codex) echo .codex/hooks.json ;;
    opencode) echo .opencode/plugins/rewind.js ;; continue) echo .continue/settings.json ;;
  esac
}

agent_home() { # what each agent needs in its home to run headless against the server
  if [ "$AGENT" = gemini-cli ]; then
    mkdir -p "$H/.gemini"
    python3 - "$H/.gemini" "$WS" <<'PY'
import json, os, sys
d, ws = sys.argv[1:3]
p = os.path.join(d, "settings.json")
s = json.load(open(p)) if os.path.exists(p) else {}
s.setdefault("security", {}).setdefault("auth", {})["selectedType"] = "gemini-api-key"
json.dump(s, open(p, "w"), indent=2)
json.dump({ws: "TRUST_FOLDER"}, open(os.path.join(d, "trustedFolders.json"), "w"))
PY
  fi
  if [ "$AGENT" = codex ]; then # the server as a Responses API provider; the workspace trusted
    mkdir -p "$H/.codex"  # (Codex reads a project's .codex/ only then); gpt-5.5 gets apply_patch
    cat >"$H/.codex/config.toml" <<EOF
model = "gpt-5.5"
model_provider = "scripted"
[model_providers.scripted]
name = "scripted"
base_url = "http://127.0.0.1:$PORT/v1"
wire_api = "responses"
env_key = "OPENAI_API_KEY"
[projects."$WS"]
trust_level = "trusted"
EOF
  fi
  if [ "$AGENT" = opencode ]; then # the server as an OpenAI-compatible provider, tools allowed
    mkdir -p "$H/.config/opencode"
    cat >"$H/.config/opencode/opencode.json" <<EOF
{"autoupdate": false, "share": "disabled", "model": "scripted/scripted",
 "permission": {"edit": "allow", "bash": "allow", "external_directory": "allow"},
 "provider": {"scripted": {"npm": "@ai-sdk/openai-compatible", "name": "scripted",
   "options": {"baseURL": "http://127.0.0.1:$PORT/v1", "apiKey": "sk-scripted"},
   "models": {"scripted": {"name": "scripted", "tool_call": true}}}}}
EOF
  fi
  if [ "$AGENT" = continue ]; then # the server as an OpenAI-compatible model, with tools
    mkdir -p "$H/.continue"
    cat >"$H/.continue/config.yaml" <<EOF
name: scripted
version: 0.0.1
schema: v1
models:
  - name: scripted
    provider: openai
    model: scripted
    apiBase: http://127.0.0.1:$PORT/v1
    apiKey: sk-scripted
    roles: [chat, edit, apply]
    capabilities: [tool_use]
EOF
  fi
}

# turn PROMPT [DIR]: the agent answers one prompt in DIR (default the workspace); the second and
# later turns of a case continue the agent's session. Returns the agent's exit code.
turn() {
  local prompt=$1 dir=${2:-$WS} more=()
  TURNS=$((TURNS + 1))
  local url="http://127.0.0.1:$PORT"
  case $AGENT in
    claude-code)
      [ "$TURNS" -gt 1 ] && more=(--continue)
      (cd "$dir" && ANTHROPIC_BASE_URL=$url ANTHROPIC_API_KEY=sk-scripted IS_SANDBOX=1 \
        CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC=1 DISABLE_AUTOUPDATER=1 HOME="$H" \
        timeout "$TURN_TIMEOUT" claude -p "$prompt" "${more[@]}" --model claude-sonnet-4-5 \
          --permission-mode acceptEdits --allowedTools Write Bash --output-format json) ;;
    qwen-code)
      [ "$TURNS" -gt 1 ] && more=(--continue)
      (cd "$dir" && OPENAI_BASE_URL="$url/v1" OPENAI_API_KEY=sk-scripted OPENAI_MODEL=scripted HOME="$H" \
        timeout "$TURN_TIMEOUT" qwen -p "$prompt" "${more[@]}" --yolo --auth-type openai) ;;
    gemini-cli)
      [ "$TURNS" -gt 1 ] && more=(--resume latest)
      (cd "$dir" && GOOGLE_GEMINI_BASE_URL=$url GEMINI_API_KEY=sk-scripted HOME="$H" \
        timeout "$TURN_TIMEOUT" gemini -p "$prompt" "${more[@]}" -m gemini-2.5-flash --yolo --output-format json) ;;
    codex) # headless: the hooks run without the /hooks trust step
      [ "$TURNS" -gt 1 ] && more=(resume --last)
      (cd "$dir" && HOME="$H" CODEX_HOME="$H/.codex" OPENAI_API_KEY=sk-scripted \
        timeout "$TURN_TIMEOUT" codex exec --dangerously-bypass-hook-trust \
          --dangerously-bypass-approvals-and-sandbox --skip-git-repo-check "${more[@]}" "$prompt") ;;
    opencode) # slow to start (a minute here): twice the timeout
      [ "$TURNS" -gt 1 ] && more=(--continue)
      (cd "$dir" && HOME="$H" XDG_CONFIG_HOME="$H/.config" XDG_DATA_HOME="$H/.local/share" \
        XDG_CACHE_HOME="$H/.cache" XDG_STATE_HOME="$H/.local/state" OPENCODE_DISABLE_MODELS_FETCH=1 \
        OPENCODE_DISABLE_AUTOUPDATE=1 OPENCODE_DISABLE_LSP_DOWNLOAD=1 \
        timeout "$((TURN_TIMEOUT * 2))" opencode run "${more[@]}" "$prompt") ;;
    continue) # --auto: every tool allowed; --verbose: cn.log says which hooks it loaded
      (cd "$dir" && HOME="$H" CONTINUE_GLOBAL_DIR="$H/.continue" \
        timeout "$TURN_TIMEOUT" cn -p "$prompt" "${more[@]}" --config "$H/.continue/config.yaml" --auto --verbose) ;;
  esac >>"$H/agent.out" 2>&1
}

# The scripted steps, written once for all agents (model_server.py maps them to each one's tools).
write_step() { printf '{"write": "%s", "content": "%s"}' "$1" "$2"; }
shell_step() { python3 -c 'import json,sys; print(json.dumps({"shell": sys.argv[1], "background": sys.argv[2] == "bg"}))' "$1" "${2:-fg}"; }
