#!/usr/bin/env bash
# Compares AgentOS on its three stores (SQLite, Postgres, memory), and
# optionally another server, in one sitting: ROUNDS interleaved rounds, each
# running every concurrency on every target in turn against the same fake
# model, then the model alone. Prints, per concurrency and target, the
# spread (min–max over the rounds) of runs/s, of the ratio to the model's own
# rate and to the other server's (within each round), of server CPU per run
# and of p99, with the machine's load at every round. See bench/README.md.
#
#   bench/compare-stores.sh
#   ROUNDS=5 CONCURRENCY="1 32" STORES="sqlite memory" bench/compare-stores.sh
#   PEER_CMD=/path/to/peer-harness bench/compare-stores.sh
set -euo pipefail

ROUNDS=${ROUNDS:-3}
CONCURRENCY=${CONCURRENCY:-"1 8 32 128"}
STORES=${STORES:-"sqlite postgres memory"}
DURATION=${DURATION:-5s}  # measured load per row
WARMUP=${WARMUP:-100}     # runs before each measured row (at least one per client)
TTFT=${TTFT:-1ms}
TOKENS=${TOKENS:-5}
TOKEN_DELAY=${TOKEN_DELAY:-0s}
STREAM=${STREAM:-0}       # 1: stream=true (SSE) instead of one JSON RunOutput
PG_DSN=${PG_DSN:-postgres://postgres@127.0.0.1:5432/test?sslmode=disable}
STORAGE_TOML=${STORAGE_TOML:-}
# PEER_CMD: another server to measure beside ours, started once per row with
# PEER_PORT and FAKELLM_URL (the fake's base URL, ending in /v1) and
# FAKELLM_API_KEY in its environment. It must answer GET /health and agno's
# POST /agents/bench/runs (form fields message, stream, session_id).
PEER_CMD=${PEER_CMD:-}
PEER_NAME=${PEER_NAME:-peer}
PORT=${PORT:-}
OUT=${OUT:-}
KEEP_WORK=${KEEP_WORK:-0}
AGNO_BIN=${AGNO_BIN:-}

BENCH_NAME=compare-stores.sh AGENTS_URL_IN_ERROR=1
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

check_tools
[[ $ROUNDS =~ ^[1-9][0-9]*$ ]] || die "ROUNDS: \"$ROUNDS\" is not a positive number"
for c in $CONCURRENCY; do
	[[ $c =~ ^[1-9][0-9]*$ ]] || die "CONCURRENCY: \"$c\" is not a positive number"
done
for s in $STORES; do
	[[ $s == sqlite || $s == postgres || $s == memory ]] || die "STORES: \"$s\" is not sqlite, postgres or memory"
done
[[ $STREAM == 0 || $STREAM == 1 ]] || die "STREAM: use 0 or 1"
[[ $PEER_NAME =~ ^[a-z][a-z0-9_-]*$ && $PEER_NAME != model ]] || die "PEER_NAME: \"$PEER_NAME\" must be a lower-case word other than model"
stream=()
[[ $STREAM == 1 ]] && stream=(-stream)

init_work agno-compare
build_bins
export AGNO_BENCH_API_KEY=sk-agno-bench AGNO_BENCH_PG_DSN=$PG_DSN
unset OS_SECURITY_KEY
pick_port 17777 18000
write_agent

targets=$STORES
[[ -n $PEER_CMD ]] && targets+=" $PEER_NAME"

start_target() { # target row
	local data=$WORK/data-$2
	mkdir -p "$data"
	if [[ $1 == "$PEER_NAME" ]]; then
		RECORD_SUFFIX="> $LOGS/$2.log 2>&1 &" record env PEER_PORT="$PORT" FAKELLM_URL="$LLM_URL" FAKELLM_API_KEY="$AGNO_BENCH_API_KEY" "$PEER_CMD"
		PEER_PORT=$PORT FAKELLM_URL=$LLM_URL FAKELLM_API_KEY=$AGNO_BENCH_API_KEY "$PEER_CMD" >"$LOGS/$2.log" 2>&1 &
		OS_PID=$!
		PIDS+=("$OS_PID")
		local i
		for ((i = 0; i < 300; i++)); do
			curl -fsS -o /dev/null --max-time 1 "$OS_URL/health" 2>/dev/null && return
			running "$OS_PID" || break
			sleep 0.1
		done
		tail -n 40 "$LOGS/$2.log" >&2
		die "PEER_CMD did not answer $OS_URL/health within 30s; its log is above"
	fi
	config_toml agno-compare "$LLM_URL" "$1" >"$WORK/os/config.toml"
	case $1 in
	sqlite) echo "path = \"$data/agno.db\"" >>"$WORK/os/config.toml" ;;
	postgres) printf 'dsn_env = "AGNO_BENCH_PG_DSN"\nschema = "cmp_%s_%s"\n' "$$" "${2//[^a-z0-9]/_}" >>"$WORK/os/config.toml" ;;
	esac
	start_agentos "$LOGS/$2.log"
}

load() { # url json [agnoload flags]
	local url=$1 out=$2
	shift 2
	RECORD_SUFFIX="> $out" run "$BIN/agnoload" -url "$url" "$@" "${stream[@]}" -json >"$out"
}

for ((r = 1; r <= ROUNDS; r++)); do
	uptime >"$RES/load-r$r.txt"
	for c in $CONCURRENCY; do
		start_fakellm "$LOGS/fakellm-r$r-c$c.log"
		for t in $targets; do
			row=r$r-$t-c$c
			echo "== round $r/$ROUNDS c=$c $t" >&2
			start_target "$t" "$row"
			load "$OS_URL" "$RES/warmup-$row.json" -agent "$AGENT" -c "$c" -n "$((WARMUP > c ? WARMUP : c))"
			load "$OS_URL" "$RES/$row.json" -agent "$AGENT" -c "$c" -d "$DURATION" -server-pid "$OS_PID"
			stop_pid "$OS_PID"
		done
		echo "== round $r/$ROUNDS c=$c model alone" >&2
		load "$LLM_URL" "$RES/r$r-model-c$c.json" -target openai -key "$AGNO_BENCH_API_KEY" -c "$c" -d "$DURATION" -server-pid "$LLM_PID"
		stop_pid "$LLM_PID"
	done
	uptime >>"$RES/load-r$r.txt"
done

# ---- report -------------------------------------------------------------
# One record per measured row: round, target, concurrency and its figures.
rows() {
	local f base
	for f in "$RES"/r*-c*.json; do
		base=$(basename "$f" .json)
		jq -c --arg row "$base" '($row | capture("^r(?<r>[0-9]+)-(?<t>.+)-c(?<c>[0-9]+)$")) as $k |
			{round: ($k.r | tonumber), target: $k.t, c: ($k.c | tonumber), rps: .runs_per_s, p99: .latency.p99_ms,
			 cpu: .server.cpu_ms_per_run, errors: .errors}' "$f"
	done
}

report() {
	echo "## AgentOS stores side by side ($(date -u +%Y-%m-%dT%H:%MZ))"
	echo
	commit_line
	machine_line
	echo "- fakellm: TTFT $TTFT, $TOKENS tokens, token delay $TOKEN_DELAY; stream=$([[ $STREAM == 1 ]] && echo true || echo false); $ROUNDS interleaved rounds, $DURATION per row after a warm-up of max($WARMUP, c) runs; a fresh server and database per row"
	[[ -n $PEER_CMD ]] && echo "- $PEER_NAME: \`$PEER_CMD\`"
	local r
	for ((r = 1; r <= ROUNDS; r++)); do
		echo "- load, round $r: $(head -n1 "$RES/load-r$r.txt" | sed 's/.*load average/load average/') → $(tail -n1 "$RES/load-r$r.txt" | sed 's/.*load average: //')"
	done
	echo
	local peer_col="" sqlite_col="" memory_col="" extra_sep=""
	[[ -n $PEER_CMD ]] && peer_col=" ÷ $PEER_NAME |" && extra_sep+="---:|"
	[[ " $STORES " == *" sqlite "* ]] && sqlite_col=" ÷ sqlite |" && extra_sep+="---:|"
	[[ " $STORES " == *" memory "* ]] && memory_col=" CPU − memory |" && extra_sep+="---:|"
	echo "| c | target | runs/s | ÷ model |$peer_col$sqlite_col CPU ms/run |$memory_col p99 ms | errors |"
	echo "|---:|---|---:|---:|$extra_sep---:|---:|---:|"
	rows | jq -rs --arg peer "${PEER_CMD:+$PEER_NAME}" --arg order "$targets" --arg sqlite "${sqlite_col:+sqlite}" --arg memory "${memory_col:+memory}" '
		def f(d): if . == null then "-" else (. * pow(10; d) | round) / pow(10; d) | tostring end;
		def span(d): if length == 0 or any(. == null) then "-" else "\(min | f(d))–\(max | f(d))" end;
		. as $all |
		($order | split(" ")) as $targets |
		($all | map(.c) | unique)[] as $c |
		$targets[] as $t |
		($all | map(select(.c == $c and .target == $t))) as $mine |
		($mine | map(. as $x | ($all[] | select(.c == $c and .round == $x.round and .target == "model") | .rps) as $m | $x.rps / $m)) as $vsmodel |
		($mine | map(. as $x | ($all[] | select(.c == $c and .round == $x.round and .target == $peer) | .rps) as $p | $x.rps / $p)) as $vspeer |
		($mine | map(. as $x | ($all[] | select(.c == $c and .round == $x.round and .target == $sqlite) | .rps) as $s | $x.rps / $s)) as $vssqlite |
		($mine | map(. as $x | ($all[] | select(.c == $c and .round == $x.round and .target == $memory) | .cpu) as $m |
			if $x.cpu == null or $m == null then null else $x.cpu - $m end)) as $overmemory |
		"| \($c) | \($t) | \($mine | map(.rps) | span(0)) | \($vsmodel | span(3)) |" +
		(if $peer == "" then "" else " \($vspeer | span(2)) |" end) +
		(if $sqlite == "" then "" else " \($vssqlite | span(2)) |" end) +
		" \($mine | map(.cpu) | span(2)) |" +
		(if $memory == "" then "" else " \(if $t == $peer then "-" else $overmemory | span(2) end) |" end) +
		" \($mine | map(.p99) | span(1)) | \($mine | map(.errors) | add) |"'
	echo
	echo "Spreads are min–max over the rounds; a ratio or a difference is taken within each round (both figures from the same round), then spread. CPU is the server process's own (user + system) per completed run${memory_col:+; CPU − memory is a target's CPU per run less the memory store's in that round (what storing costs it)}."
	echo
	echo "Commands (paths are in the temporary work directory):"
	echo
	echo '```sh'
	cat "$COMMANDS"
	echo '```'
}
if [[ -n $OUT ]]; then
	report | tee "$OUT"
else
	report
fi
