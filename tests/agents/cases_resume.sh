# Issue 27's resume after a fork and after `both` (conversation and files as one unit): the
# command rewind prints, run, sends the model exactly the prompts up to the point and the new one.

resume_argv() { # resume_argv JSON: the exact resume command in it, one argument a line, to $H/argv
  python3 -c "
import json, sys
r = json.load(open(sys.argv[1]))['agentResume']
assert r['exact'] and r['argv'], r
print('\n'.join(r['argv']))" "$1" >"$H/argv" 2>>"$H/agent.out"
}

lands_in() { # lands_in COUNT TEXT [FORK_JSON]: rewind has COUNT sessions and the prompt TEXT is in
  # the rewound one (the only one), or in the fork FORK_JSON made: the resumed agent session (a
  # new agent session id, chosen by the rewind) was bound to it, not recorded as a new session
  local sessions target
  sessions=$(rw --json session list 2>/dev/null)
  target=$(python3 -c "import json,sys; s=json.loads(sys.argv[1]); f=sys.argv[2]
print(json.load(open(f))['childId'] if f else (s[0]['id'] if len(s) == 1 else ''))" "$sessions" "${3:-}" 2>/dev/null)
  [ "$(python3 -c "import json,sys; print(len(json.loads(sys.argv[1])))" "$sessions" 2>/dev/null)" = "$1" ] &&
    [ -n "$target" ] && rw --json log "$target" 2>/dev/null | grep -q -- "$2"
}

run_resume() { # run_resume PROMPT: run the command in $H/argv with the next prompt
  local argv=()
  mapfile -t argv <"$H/argv"
  case $AGENT in
    claude-code) agent_cmd "${argv[@]}" "$1" ;;
    *) agent_cmd "${argv[@]}" -p "$1" ;;
  esac
}

case_resume_fork() { # a fork through turn 2 resumes the agent with turns 1 and 2
  begin_case resume_fork '{"turns": {"one": [], "two": [], "three": [], "again": []}}'
  turn "turn:one first"
  turn "turn:two second"
  turn "turn:three third"
  rw --json fork --at '#2' >"$H/fork.json" 2>&1
  resume_argv "$H/fork.json"
  check "the fork prints an exact resume command" test -s "$H/argv"
  run_resume "turn:again in the fork"
  check "the resumed agent ran (exit $?)" test $? -eq 0
  check "the model got exactly the prompts of turns 1 and 2 and the new one" \
    test "$(last_marks)" = "one two again"
  check "the resumed prompt is recorded in the fork" lands_in 2 "turn:again in the fork" "$H/fork.json"
  end_case
}

case_resume_both() { # `both --to #2`: files and agent back to before turn 2
  # Only turn 2 calls tools: Claude Code 2.1.332, resumed or continued after a tool call, can send
  # the next prompt inside the tool result's message, which the model server does not count.
  SEED="printf 'seeded\n' > keep.txt" begin_case resume_both "{\"turns\": {\"one\": [],
    \"two\": [$(shell_step "printf 'second\\n' > two.txt && printf 'more\\n' >> keep.txt")],
    \"three\": [], \"again\": []}}"
  turn "turn:one first"
  cp "$WS/keep.txt" "$H/keep.first"
  sleep 2.5
  turn "turn:two change keep.txt"
  sleep 2.5
  turn "turn:three third"
  check "turn 2 changed the files" bash -c "[ -f '$WS/two.txt' ] && ! cmp -s '$WS/keep.txt' '$H/keep.first'"
  rw --json both --to '#2' >"$H/both.json" 2>&1
  check "both puts keep.txt back byte for byte" same "$WS/keep.txt" "$H/keep.first"
  check "both removes what turn 2 wrote" gone "$WS/two.txt"
  resume_argv "$H/both.json"
  check "both prints an exact resume command" test -s "$H/argv"
  run_resume "turn:again after both"
  check "the resumed agent ran (exit $?)" test $? -eq 0
  check "the model got exactly the prompts of turn 1 and the new one" test "$(last_marks)" = "one again"
  check "the resumed prompt is recorded in the rewound session" lands_in 1 "turn:again after both"
  end_case
}

case_resume_side() { # a side chat resumes all of the agent's session, in a new one (a copy)
  # Qwen Code and Gemini CLI only: Claude Code resumes a whole session interactively.
  begin_case resume_side '{"turns": {"one": [], "two": [], "aside": [], "later": []}}'
  turn "turn:one first"
  turn "turn:two second"
  rw --json side-chat >"$H/side.json" 2>&1
  resume_argv "$H/side.json"
  check "the side chat prints an exact resume command" test -s "$H/argv"
  run_resume "turn:aside in the side chat"
  check "the resumed agent ran (exit $?)" test $? -eq 0
  check "the model got every prompt of the session and the new one" test "$(last_marks)" = "one two aside"
  # `--continue` would pick the newest session, the side chat's: name the original.
  local sid
  sid=$(python3 -c "import json,re,sys; print(re.search(r'of session ([0-9a-f-]{36})', json.load(open(sys.argv[1]))['agentResume']['note'])[1])" "$H/side.json" 2>/dev/null)
  agent_cmd "${AGENT%-*}" --resume "$sid" -p "turn:later the original" # qwen, gemini
  check "the original session goes on without the side chat's prompt" test "$(last_marks)" = "one two later"
  end_case
}

case_resume_undo() { # undo of a conversation rewind resumes the whole session, in the same session
  # Claude Code only: its whole-session resume names the new session in advance (--session-id).
  begin_case resume_undo '{"turns": {"one": [], "two": [], "three": [], "again": []}}'
  turn "turn:one first"
  turn "turn:two second"
  turn "turn:three third"
  rw --json conversation --to '#2' >"$H/rewind.json" 2>&1
  rw --json undo >"$H/undo.json" 2>&1
  python3 -c "
import json, sys
r = json.load(open(sys.argv[1]))['conversation']['agentResume']
assert r['exact'] and r['argv'][0] == 'claude', r
print('\n'.join(r['argv'][1:]))" "$H/undo.json" >"$H/argv" 2>>"$H/agent.out"
  check "the undo prints an exact resume command" test -s "$H/argv"
  local argv=()
  mapfile -t argv <"$H/argv"
  # The whole session resumes interactively; -p answers one prompt with the same history.
  agent_cmd claude -p "${argv[@]}" "turn:again after the undo"
  check "the resumed agent ran (exit $?)" test $? -eq 0
  check "the model got every prompt of the session and the new one" \
    test "$(last_marks)" = "one two three again"
  check "the resumed prompt is recorded in the same rewind session" lands_in 1 "turn:again after the undo"
  end_case
}
