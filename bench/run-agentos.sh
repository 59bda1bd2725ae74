#!/usr/bin/env bash
# Benchmarks AgentOS end to end: `agno agentos start` (SQLite storage, one
# declarative agent) in front of fakellm, loaded by agnoload at several
# concurrencies, streaming and not; then the same load straight at fakellm,
# so AgentOS's added latency can be read off. See bench/README.md.
#
#   bench/run-agentos.sh                      # defaults below
#   CONCURRENCY="1 32" DURATION=5s MODES=stream bench/run-agentos.sh
set -euo pipefail

CONCURRENCY=${CONCURRENCY:-"1 8 32 256"}
MODES=${MODES:-"nonstream stream"}
DURATION=${DURATION:-10s}  # measured load per row
WARMUP=${WARMUP:-100}      # requests before each measured row (at least one per client)
TTFT=${TTFT:-1ms}          # fakellm time to first token
TOKENS=${TOKENS:-5}        # fakellm tokens per answer
TOKEN_DELAY=${TOKEN_DELAY:-0s}
STORAGE=${STORAGE:-sqlite} # sqlite (what agno agentos start uses by default), postgres or memory
PG_DSN=${PG_DSN:-postgres://postgres@127.0.0.1:5432/test?sslmode=disable} # STORAGE=postgres: a fresh schema per row
STORAGE_TOML=${STORAGE_TOML:-} # more [storage] keys, e.g. "max_conns = 8"
PORT=${PORT:-}             # AgentOS port; default: the first free one from 17777
OUT=${OUT:-}               # also write the report (markdown) to this file
KEEP_WORK=${KEEP_WORK:-0}  # 1: keep the work directory (configs, logs, JSON results)
AGNO_BIN=${AGNO_BIN:-}     # benchmark this agno binary instead of building ./cmd/agno

BENCH_NAME=run-agentos.sh AGENTS_URL_IN_ERROR=1
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

check_tools
for m in $MODES; do
	[[ $m == stream || $m == nonstream ]] || die "MODES: unknown mode \"$m\"; use nonstream and/or stream"
done
[[ $STORAGE == sqlite || $STORAGE == postgres || $STORAGE == memory ]] || die "STORAGE: \"$STORAGE\" is not sqlite, postgres or memory"
for c in $CONCURRENCY; do
	[[ $c =~ ^[1-9][0-9]*$ ]] || die "CONCURRENCY: \"$c\" is not a positive number"
done

init_work agno-bench

# ---- build ----------------------------------------------------------------
build_bins

if ! help=$("$AGNO" agentos start --help 2>&1); then
	die "\`agno agentos start\` is not available in this build, so there is no AgentOS to benchmark yet:
  $ $AGNO agentos start --help
  ${help//$'\n'/$'\n'  }
Build it into ./cmd/agno (or point AGNO_BIN at a binary that has it) and run again."
fi

# ---- configuration ----------------------------------------------------------
# The key fakellm requires and the config names by api_key_env; AgentOS
# itself runs without OS_SECURITY_KEY, in protected mode (loopback only).
export AGNO_BENCH_API_KEY=sk-agno-bench
unset OS_SECURITY_KEY

pick_port 17777 18000
write_agent

# write_config base_url data_dir: a fresh config (and database) per row.
write_config() {
	config_toml agno-bench "$1" "$STORAGE" >"$WORK/os/config.toml"
	if [[ $STORAGE == sqlite ]]; then
		echo "path = \"$2/agno.db\"" >>"$WORK/os/config.toml"
	fi
	if [[ $STORAGE == postgres ]]; then
		# A schema of its own per row: the run starts on empty tables.
		printf 'dsn_env = "AGNO_BENCH_PG_DSN"\nschema = "bench_%s_%s"\n' "$$" "$(basename "$2" | tr -c 'a-z0-9\n' _)" >>"$WORK/os/config.toml"
	fi
}
export AGNO_BENCH_PG_DSN=$PG_DSN

# ---- load -----------------------------------------------------------------------
for mode in $MODES; do
	stream=()
	[[ $mode == stream ]] && stream=(-stream)
	for c in $CONCURRENCY; do
		row=$mode-c$c
		echo "== $row: AgentOS" >&2
		start_fakellm "$LOGS/fakellm-$row.log"
		data=$WORK/data-$row
		mkdir -p "$data"
		write_config "$LLM_URL" "$data"
		cp "$WORK/os/config.toml" "$WORK/config-$row.toml"
		start_agentos "$LOGS/agentos-$row.log"

		warm=$((WARMUP > c ? WARMUP : c))
		RECORD_SUFFIX="> $RES/warmup-$row.json" run "$BIN/agnoload" -url "$OS_URL" -agent "$AGENT" -c "$c" -n "$warm" "${stream[@]}" -json >"$RES/warmup-$row.json"
		if [[ $(jq .errors "$RES/warmup-$row.json") != 0 ]]; then
			echo "warning: warm-up of $row had errors:" >&2
			jq -c '.error_kinds, .error_samples' "$RES/warmup-$row.json" >&2
		fi
		RECORD_SUFFIX="> $RES/agentos-$row.json" run "$BIN/agnoload" -url "$OS_URL" -agent "$AGENT" -c "$c" -d "$DURATION" "${stream[@]}" \
			-server-pid "$OS_PID" -json >"$RES/agentos-$row.json"
		stop_pid "$OS_PID"

		# The model on its own, same client, same concurrency and mode.
		echo "== $row: fakellm alone" >&2
		RECORD_SUFFIX="> $RES/model-$row.json" run "$BIN/agnoload" -target openai -url "$LLM_URL" -key "$AGNO_BENCH_API_KEY" -c "$c" -d "$DURATION" "${stream[@]}" \
			-server-pid "$LLM_PID" -json >"$RES/model-$row.json"
		stop_pid "$LLM_PID"
	done
done

# ---- report -----------------------------------------------------------------------
report() {
	echo "## AgentOS end to end ($(date -u +%Y-%m-%dT%H:%MZ))"
	echo
	commit_line
	machine_line
	echo "- fakellm: TTFT $TTFT, $TOKENS tokens, token delay $TOKEN_DELAY; storage $STORAGE; ${DURATION} per row after a warm-up of max($WARMUP, c) runs; fresh AgentOS, fakellm and database per row"
	echo "- load generator, AgentOS and fakellm share the machine"
	echo
	echo "| concurrency | mode | runs/s | model runs/s | ratio | p50 ms | p99 ms | TTFE p50 ms | server CPU ms/run | server cores busy | peak RSS MB | errors | model p50 ms | model p99 ms | added p50 ms | added p99 ms |"
	echo "|---:|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|"
	local mode c
	for mode in $MODES; do
		for c in $CONCURRENCY; do
			jq -r --arg mode "$mode" --slurpfile m "$RES/model-$mode-c$c.json" '
				def f(d): if . == null then "-" else (. * pow(10; d) | round) / pow(10; d) | tostring end;
				$m[0] as $b |
				"| \(.concurrency) | \($mode) | \(.runs_per_s | f(0)) | \($b.runs_per_s | f(0)) | \(.runs_per_s / $b.runs_per_s | f(3)) | \(.latency.p50_ms | f(2)) | \(.latency.p99_ms | f(2)) | \(.ttfe.p50_ms | f(2)) | \(.server.cpu_ms_per_run | f(3)) | \(.server.cpu_ms / (.elapsed_s * 1000) | f(2)) | \(.server.peak_rss_mb | f(1)) | \(.errors) | \($b.latency.p50_ms | f(2)) | \($b.latency.p99_ms | f(2)) | \(.latency.p50_ms - $b.latency.p50_ms | f(2)) | \(.latency.p99_ms - $b.latency.p99_ms | f(2)) |"
			' "$RES/agentos-$mode-c$c.json"
		done
	done
	echo
	local errs
	errs=$(jq -r 'select(.errors > 0) | "- \(.target) c=\(.concurrency) stream=\(.stream): \(.error_kinds | tostring) first: \(.error_samples | tostring)"' "$RES"/agentos-*.json "$RES"/model-*.json)
	if [[ -n $errs ]]; then
		echo "Errors:"
		echo
		echo "$errs"
		echo
	fi
	echo "Ratio = AgentOS runs/s ÷ fakellm's own runs/s (the same client at the same concurrency and mode, straight at fakellm). Added latency = AgentOS latency − fakellm's own latency measured by the same client at the same concurrency and mode (rows \"model\"); p99 differences are indicative only, percentiles do not subtract."
	echo
	echo "Commands (paths are in the temporary work directory; config of the first row shown after them):"
	echo
	echo '```sh'
	cat "$COMMANDS"
	echo '```'
	echo
	echo '```toml'
	local first_mode first_c
	read -r first_mode _ <<<"$MODES"
	read -r first_c _ <<<"$CONCURRENCY"
	cat "$WORK/config-$first_mode-c$first_c.toml"
	echo
	echo "# $WORK/os/agents/$AGENT.toml"
	cat "$WORK/os/agents/$AGENT.toml"
	echo '```'
}
if [[ -n $OUT ]]; then
	report | tee "$OUT"
else
	report
fi
