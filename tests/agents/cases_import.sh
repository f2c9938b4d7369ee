# The `import` case of tests/agents/run (sourced beside cases.sh): the agent runs without
# rewind's hooks (file checkpointing on, as interactively), then `rewind import` builds the
# session from the agent's own records, and a rewind to before turn 2 is byte-exact.

case_import() {
  SEED="printf 'orig\n' > keep.txt" begin_case import "{\"turns\": {\"one\": [$(write_step a.txt 'one\n')],
    \"two\": [$(write_step a.txt 'two\n'), $(write_step b.txt 'bee\n')]}}"
  (cd "$WS" && HOME="$H" rewind init "$AGENT" --remove >/dev/null 2>&1)
  rm -rf "$WS/.rewind"
  CLAUDE_CODE_ENABLE_SDK_FILE_CHECKPOINTING=1 turn "turn:one write a.txt"
  cp "$WS/a.txt" "$H/a.one"
  CLAUDE_CODE_ENABLE_SDK_FILE_CHECKPOINTING=1 turn "turn:two change a.txt, write b.txt"
  check "the agent ran its turns without rewind's hooks (no store)" bash -c "[ -f '$WS/b.txt' ] && [ ! -e '$WS/.rewind' ]"
  rw --json import "$AGENT" >"$H/import.json" 2>&1
  check "rewind import made a session bound to the agent's" saw '"status": "imported"' "$H/import.json"
  rw --json import "$AGENT" --all >"$H/import2.json" 2>&1
  check "a second import changes nothing" saw '"status": "already-imported"' "$H/import2.json"
  rw apply --since '#2' >"$H/apply.out" 2>&1
  check "apply to before turn 2 brings a.txt back byte for byte" same "$WS/a.txt" "$H/a.one"
  check "apply to before turn 2 removes b.txt" gone "$WS/b.txt"
  rw apply --since '#1' >"$H/apply1.out" 2>&1
  check "apply to before turn 1 removes a.txt and keeps keep.txt" bash -c "[ ! -e '$WS/a.txt' ] && grep -qx orig '$WS/keep.txt'"
  end_case
}
