#!/usr/bin/env bash
# Concurrent streams: N clients start one streamed run each, all at the
# same moment, against `agno agentos start` in front of fakellm (500 ms to
# the first token, then 20 tokens 20 ms apart: ideal ≈ 0.9 s). Reports
# time to first token and to RunCompleted, errors, and the server's RSS
# per open stream, for each N and storage. See bench/README.md.
#
#   bench/run-streams.sh                                   # N = 1000 3000 10000 × sqlite, postgres; 2 runs each
#   STREAMS="3000" STORAGES=sqlite REPEAT=1 bench/run-streams.sh
set -euo pipefail

STREAMS=${STREAMS:-"1000 3000 10000"}
STORAGES=${STORAGES-"sqlite postgres"} # sqlite, postgres and/or memory ("": only the BASELINE rows)
REPEAT=${REPEAT:-2}             # measurements per row (fresh processes and database each)
TTFT=${TTFT:-500ms}             # fakellm: time to first token
TOKENS=${TOKENS:-20}            # fakellm: tokens per answer
TOKEN_DELAY=${TOKEN_DELAY:-20ms} # fakellm: delay between tokens
WARMUP=${WARMUP:-64}            # streamed runs (8 at a time) before each measurement
TIMEOUT=${TIMEOUT:-2m}          # per run
PRECONNECT=${PRECONNECT:-1}     # 1: every client's connection is open before the runs start
BASELINE=${BASELINE:-1}         # 1: also N streams straight at fakellm (the machine's floor)
NOFILE=${NOFILE:-}              # open-file limit for the three processes; default 2 × max N + 4096, at least 65536
PG_DSN=${PG_DSN:-postgres://postgres@127.0.0.1:5432/test?sslmode=disable} # postgres: a fresh schema per measurement
PORT=${PORT:-}                  # AgentOS port; default the first free one from 17877
OUT=${OUT:-}                    # also write the report (markdown) to this file
KEEP_WORK=${KEEP_WORK:-0}       # 1: keep the work directory (configs, logs, JSON results)
AGNO_BIN=${AGNO_BIN:-}          # measure this agno binary instead of building ./cmd/agno
LABEL=${LABEL:-}                # names the agno build in the report (e.g. "before")

BENCH_NAME=run-streams.sh
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

check_tools
maxn=0
for n in $STREAMS; do
	[[ $n =~ ^[1-9][0-9]*$ ]] || die "STREAMS: \"$n\" is not a positive number"
	((n > maxn)) && maxn=$n
done
for s in $STORAGES; do
	[[ $s == sqlite || $s == postgres || $s == memory ]] || die "STORAGES: \"$s\" is not sqlite, postgres or memory"
done
[[ $REPEAT =~ ^[1-9][0-9]*$ ]] || die "REPEAT: \"$REPEAT\" is not a positive number"
[[ -r /proc/net/netstat ]] || die "needs Linux (/proc)"

# ---- open files ---------------------------------------------------------------
# AgentOS holds two sockets per stream (the client's and the one to the
# model); the limits set here are inherited by all three processes (Go
# raises its soft limit to the hard one at start).
need=$((2 * maxn + 64))
NOFILE=${NOFILE:-$((need > 65536 ? need : 65536))}
hard=$(ulimit -Hn)
NOFILE_NOTE=
if [[ $hard != unlimited ]] && ((hard < NOFILE)); then
	if ! ulimit -Hn "$NOFILE" 2>/dev/null; then
		NOFILE=$hard
		if ((hard < need)); then
			NOFILE_NOTE="the hard open-file limit is $hard and could not be raised (no CAP_SYS_RESOURCE): AgentOS needs about 2 per stream plus a few, $need for N=$maxn, so its last model connections fail with \"too many open files\" and count as errors"
			echo "run-streams.sh: warning: $NOFILE_NOTE. Run as root with CAP_SYS_RESOURCE, raise it first (ulimit -Hn $need), or lower STREAMS." >&2
		fi
	fi
fi
ulimit -Sn "$NOFILE" 2>/dev/null || die "could not set the open-file limit to $NOFILE (hard limit $(ulimit -Hn))"
somaxconn=$(cat /proc/sys/net/core/somaxconn 2>/dev/null || echo 0)

SCHEMAS=()
cleanup_hook() { # drop the measurements' Postgres schemas
	local s
	if ((${#SCHEMAS[@]} > 0)) && command -v psql >/dev/null; then
		for s in "${SCHEMAS[@]}"; do
			psql -q "$PG_DSN" -c "DROP SCHEMA IF EXISTS $s CASCADE" >/dev/null 2>&1 || true
		done
	fi
}
init_work agno-streams

# ---- build ----------------------------------------------------------------
echo "ulimit -Hn $(ulimit -Hn); ulimit -Sn $(ulimit -Sn)" >>"$COMMANDS"
build_bins
"$AGNO" agentos start --help >/dev/null 2>&1 || die "\`$AGNO agentos start\` is not available in this build"

export AGNO_BENCH_API_KEY=sk-agno-bench AGNO_BENCH_PG_DSN=$PG_DSN
unset OS_SECURITY_KEY

pick_port 17877 18100
write_agent

# write_config storage base_url data_dir row
write_config() {
	config_toml agno-streams "$2" "$1" >"$WORK/os/config.toml"
	case $1 in
	sqlite) echo "path = \"$3/agno.db\"" >>"$WORK/os/config.toml" ;;
	postgres)
		# A schema of its own per measurement: the runs start on empty tables.
		local schema
		schema=streams_$$_$(tr -c 'a-z0-9\n' _ <<<"$4")
		SCHEMAS+=("$schema")
		printf 'dsn_env = "AGNO_BENCH_PG_DSN"\nschema = "%s"\n' "$schema" >>"$WORK/os/config.toml"
		;;
	esac
}

# Listen-queue drops on this network namespace (TcpExt ListenDrops): a
# dial that overflowed a listener's backlog waits ≥ 1 s for its SYN retry.
listen_drops() {
	awk '/^TcpExt:/ { if (!h) { for (i = 1; i <= NF; i++) col[$i] = i; h = 1 } else { print $col["ListenDrops"]; exit } }' /proc/net/netstat
}

# meta file key=value...: what the JSON result does not say.
meta() {
	local f=$1
	shift
	jq -n --arg load "$(cut -d' ' -f1-3 /proc/loadavg)" '$ARGS.named + {loadavg_before: $load}' "$@" >"$f"
}

pre=()
[[ $PRECONNECT == 1 ]] && pre=(-preconnect)

# ---- load -----------------------------------------------------------------------
for storage in $STORAGES; do
	for n in $STREAMS; do
		for ((rep = 1; rep <= REPEAT; rep++)); do
			row=$storage-n$n-r$rep
			echo "== $row: AgentOS ($(date -u +%H:%M:%S), load $(cut -d' ' -f1-3 /proc/loadavg))" >&2
			start_fakellm "$LOGS/fakellm-$row.log"
			data=$WORK/data-$row
			mkdir -p "$data"
			write_config "$storage" "$LLM_URL" "$data" "$row"
			cp "$WORK/os/config.toml" "$WORK/config-$row.toml"
			start_agentos "$LOGS/agentos-$row.log"
			RECORD_SUFFIX="> $RES/warmup-$row.json" run "$BIN/agnoload" -url "$OS_URL" -agent "$AGENT" -c 8 -n "$WARMUP" -stream -json >"$RES/warmup-$row.json"
			if [[ $(jq .errors "$RES/warmup-$row.json") != 0 ]]; then
				echo "warning: warm-up of $row had errors:" >&2
				jq -c '.error_kinds, .error_samples' "$RES/warmup-$row.json" >&2
			fi
			sleep 1
			meta "$RES/meta-$row.json" --arg kind agentos --arg storage "$storage" --argjson n "$n" --argjson rep "$rep"
			d0=$(listen_drops)
			RECORD_SUFFIX="> $RES/agentos-$row.json" run "$BIN/agnoload" -url "$OS_URL" -agent "$AGENT" -c "$n" -n "$n" -stream "${pre[@]}" \
				-timeout "$TIMEOUT" -server-pid "$OS_PID" -json >"$RES/agentos-$row.json"
			d1=$(listen_drops)
			jq --argjson d $((d1 - d0)) '. + {listen_drops: $d}' "$RES/meta-$row.json" >"$RES/meta-$row.tmp" && mv "$RES/meta-$row.tmp" "$RES/meta-$row.json"
			stop_pid "$OS_PID"
			stop_pid "$LLM_PID"
		done
	done
done
if [[ $BASELINE == 1 ]]; then
	for n in $STREAMS; do
		for ((rep = 1; rep <= REPEAT; rep++)); do
			row=model-n$n-r$rep
			echo "== $row: fakellm alone" >&2
			start_fakellm "$LOGS/fakellm-$row.log"
			meta "$RES/meta-$row.json" --arg kind model --arg storage "-" --argjson n "$n" --argjson rep "$rep"
			d0=$(listen_drops)
			RECORD_SUFFIX="> $RES/agentos-$row.json" run "$BIN/agnoload" -target openai -url "$LLM_URL" -key "$AGNO_BENCH_API_KEY" -c "$n" -n "$n" -stream "${pre[@]}" \
				-timeout "$TIMEOUT" -server-pid "$LLM_PID" -json >"$RES/agentos-$row.json"
			d1=$(listen_drops)
			jq --argjson d $((d1 - d0)) '. + {listen_drops: $d}' "$RES/meta-$row.json" >"$RES/meta-$row.tmp" && mv "$RES/meta-$row.tmp" "$RES/meta-$row.json"
			stop_pid "$LLM_PID"
		done
	done
fi

# ---- report -----------------------------------------------------------------------
for m in "$RES"/meta-*.json; do
	row=${m#"$RES"/meta-}
	row=${row%.json}
	jq -s '.[0] + {meta: .[1]}' "$RES/agentos-$row.json" "$m"
done | jq -s 'sort_by(.meta.kind, .meta.storage, .meta.n, .meta.rep)' >"$RES/all.json"

report() {
	echo "## Concurrent streams ($(date -u +%Y-%m-%dT%H:%MZ))"
	echo
	echo "- agno: ${LABEL:-this tree} — commit $(git -C "$ROOT" rev-parse --short HEAD 2>/dev/null || echo unknown)$([[ -z $AGNO_BIN && -n $(git -C "$ROOT" status --porcelain 2>/dev/null) ]] && echo ' (working tree has changes)')${AGNO_BIN:+, binary $AGNO_BIN}"
	echo "- $(go version), $(nproc) CPUs ($(sed -n 's/^model name[[:space:]]*: //p' /proc/cpuinfo | head -n1)), Linux $(uname -r); open files $(ulimit -Sn); somaxconn $somaxconn"
	echo "- fakellm: TTFT $TTFT, $TOKENS tokens, $TOKEN_DELAY apart; N clients, one streamed run each, started together$([[ $PRECONNECT == 1 ]] && echo ' on connections opened beforehand'); fresh AgentOS, fakellm and database per measurement after $WARMUP warm-up runs"
	[[ -n $NOFILE_NOTE ]] && echo "- **open files:** $NOFILE_NOTE"
	echo "- load generator, AgentOS and fakellm share the machine (and whatever else runs on it: see the load average per row)"
	echo
	echo "| storage | N | # | TTFT p50 ms | TTFT p99 ms | total p50 ms | total p99 ms | errors | open at once | RSS idle MB | RSS open MB | KB per open stream | server CPU s | listen drops | load before |"
	echo "|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---|"
	jq -r '
		def f(d): if . == null then "-" else (. * pow(10; d) | round) / pow(10; d) | tostring end;
		.[] | "| \(if .meta.kind == "model" then "fakellm alone" else .meta.storage end) | \(.meta.n) | \(.meta.rep) | \(.ttft.p50_ms | f(0)) | \(.ttft.p99_ms | f(0)) | \(.latency.p50_ms | f(0)) | \(.latency.p99_ms | f(0)) | \(.errors) | \(.peak_open) | \(.server.idle_rss_mb | f(1)) | \(.server.open_rss_mb | f(1)) | \(.server.kb_per_open | f(1)) | \(.server.cpu_ms / 1000 | f(2)) | \(.meta.listen_drops) | \(.meta.loadavg_before) |"
	' "$RES/all.json"
	echo
	local errs
	errs=$(jq -r '.[] | select(.errors > 0) | "- \(.meta.kind) \(.meta.storage) N=\(.meta.n) #\(.meta.rep): \(.error_kinds | tostring) first: \(.error_samples | tostring)"' "$RES/all.json")
	if [[ -n $errs ]]; then
		echo "Errors:"
		echo
		echo "$errs"
		echo
	fi
	echo "TTFT: request sent → first RunContent event (fakellm alone: first chunk with content). Total: request sent → end of the stream after RunCompleted. KB per open stream: (AgentOS VmRSS sampled every 50 ms while the most streams were open − VmRSS before the test) ÷ streams open then. Listen drops: the namespace's TcpExt ListenDrops during the measurement (each delays a dial by ≥ 1 s)."
	echo
	echo "Commands (paths are in the temporary work directory; config of the first measurement after them):"
	echo
	echo '```sh'
	cat "$COMMANDS"
	echo '```'
	echo
	echo '```toml'
	local first
	first=$(ls "$WORK"/config-*.toml 2>/dev/null | head -n1)
	[[ -n $first ]] && cat "$first"
	echo
	echo "# $WORK/os/agents/$AGENT.toml"
	cat "$WORK/os/agents/$AGENT.toml"
	echo '```'
}
if [[ -n $OUT ]]; then
	report | tee "$OUT"
	cp "$RES/all.json" "${OUT%.md}.json"
else
	report
fi
