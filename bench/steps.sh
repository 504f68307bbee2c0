# Sourced by bench/run.sh and bench/killbill.sh, which run under set -e: a failing command ends
# the script, and these make it say which and why instead of ending silently.
#
# step NAME COMMAND...: runs one tool (wrk, pgbench) with its output in WORK/NAME.out; if it
# fails, says so with the end of that output and ends the script.
step() {
  local name=$1 rc=0
  shift
  "$@" > "$WORK/$name.out" 2>&1 || rc=$?
  [ "$rc" = 0 ] || step_failed "$name" "failed (exit $rc): $*"
}

# wrk_step NAME WRK-ARGUMENTS...: step NAME with wrk, which must also print the RESULT line of
# bench/wrk/summary.lua: wrk that cannot load its script says so, then runs plain GETs and exits 0.
wrk_step() {
  local name=$1
  shift
  step "$name" wrk "$@"
  grep -q '^RESULT' "$WORK/$name.out" || step_failed "$name" "printed no RESULT line (bench/wrk/summary.lua)"
}

# step_failed NAME WHY: the end of the script, with the end of step NAME's output.
step_failed() {
  echo "$0: step $1 $2" >&2
  tail -n 20 "$WORK/$1.out" | sed 's/^/  | /' >&2
  echo "$0: step $1's whole output: $WORK/$1.out" >&2
  exit 1
}

# Any other command that fails: its line. set -E passes the trap on to functions and command
# substitutions; a substitution's failure is told once, where its value was taken.
set -E
on_error() {
  [ "$BASH_SUBSHELL" = 0 ] || return 0
  echo "$0: line $2: '$3' failed (exit $1)${WORK:+; the files of the run are in $WORK}" >&2
}
trap 'on_error $? $LINENO "$BASH_COMMAND"' ERR
