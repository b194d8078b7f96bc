#!/usr/bin/env bash
# The run step of the GitHub Action (action.yml), runnable anywhere: test/packaging/action.test.ts runs it
# as the step does. Inputs come as INPUT_* variables; keys only as MCP_API_KEY, MCP_OTHER_KEY,
# MCP_REVOKED_KEY (never on a command line, where `ps` shows them). Appends summary.md to the job summary
# ($GITHUB_STEP_SUMMARY), writes exit-code, verdict and reports-written to $GITHUB_OUTPUT, and exits as the command did.
set -uo pipefail
HARNESS="${HARNESS:-$(cd "$(dirname "$0")/.." && pwd)}"
REPORT_DIR="${INPUT_REPORT_DIR:-mcp-conformance-reports}"
args=(conformance --reporter github --report-dir "$REPORT_DIR")
[ -n "${INPUT_BASE_URL:-}" ] && args+=(--base-url "$INPUT_BASE_URL")
[ -n "${INPUT_PROFILE:-}" ] && args+=(--profile "$INPUT_PROFILE")
[ -n "${INPUT_BASELINE:-}" ] && args+=(--baseline "$INPUT_BASELINE")
[ "${INPUT_STRICT:-false}" = "true" ] && args+=(--strict)
[ -n "${INPUT_LIMITS:-}" ] && args+=(--limits "$INPUT_LIMITS")
[ -n "${INPUT_ONLY:-}" ] && args+=(--only "$INPUT_ONLY")
[ -n "${INPUT_BOOTSTRAP_BUDGET:-}" ] && args+=(--bootstrap-budget "$INPUT_BOOTSTRAP_BUDGET")
if [ -n "${INPUT_ARGS:-}" ]; then
  read -r -a extra <<< "$INPUT_ARGS"
  args+=("${extra[@]}")
fi
# A results.json started before this step is an earlier run's (a folder this run could not write, or bad usage):
# its verdict, summary and files are never presented as this run's.
started_ms="$(node -e 'process.stdout.write(String(Date.now()))')"
node "$HARNESS/dist/src/cli/bin.js" "${args[@]}"
code=$?
verdict="$(node -e '
  try {
    const r = JSON.parse(require("fs").readFileSync(process.argv[1], "utf8"));
    if (!(Date.parse(r.startedAt) >= Number(process.argv[2]) && r.exitCode === Number(process.argv[3]))) throw new Error("stale");
    process.stdout.write(r.verdict.replace(/\s+/g, " "));
  } catch { process.exit(1) }' "$REPORT_DIR/results.json" "$started_ms" "$code")" && written=true || written=false

if [ -n "${GITHUB_STEP_SUMMARY:-}" ] && [ "$written" = true ] && [ -f "$REPORT_DIR/summary.md" ]; then
  cat "$REPORT_DIR/summary.md" >> "$GITHUB_STEP_SUMMARY"
fi
if [ -n "${GITHUB_OUTPUT:-}" ]; then
  echo "exit-code=$code" >> "$GITHUB_OUTPUT"
  [ "$written" = true ] || verdict="no verdict (this run wrote no results.json)"
  echo "verdict=$verdict" >> "$GITHUB_OUTPUT"
  # The upload step takes the folder only when it holds this run's reports.
  echo "reports-written=$written" >> "$GITHUB_OUTPUT"
fi
exit "$code"
