# shellcheck shell=bash
# Shared by the bench scripts. Set before sourcing: BENCH_NAME (the name in
# messages); optionally AGENTS_URL_IN_ERROR=1. Define cleanup_hook to run
# extra cleanup after the processes stop.

die() {
	echo "$BENCH_NAME: $*" >&2
	exit 1
}

check_tools() {
	local tool
	for tool in go curl jq; do
		command -v "$tool" >/dev/null || die "$tool is required (apt-get install $tool, or see bench/README.md)"
	done
}

PIDS=()
running() { # pid: alive and not a zombie
	[[ -r /proc/$1/stat ]] || return 1
	local stat
	stat=$(</proc/"$1"/stat) || return 1
	stat=${stat##*) }
	[[ ${stat%% *} != Z ]]
}
stop_pid() {
	local pid=$1 i
	if running "$pid"; then
		kill -TERM "$pid" 2>/dev/null || true
		for ((i = 0; i < 150; i++)); do
			running "$pid" || break
			sleep 0.1
		done
		if running "$pid"; then
			echo "$BENCH_NAME: process $pid did not stop within 15s of SIGTERM; killing it" >&2
			kill -KILL "$pid" 2>/dev/null || true
		fi
	fi
	wait "$pid" 2>/dev/null || true
	local keep=() p
	for p in "${PIDS[@]}"; do [[ $p == "$pid" ]] || keep+=("$p"); done
	PIDS=("${keep[@]}")
}
cleanup() {
	local pid
	for pid in "${PIDS[@]}"; do stop_pid "$pid"; done
	if declare -F cleanup_hook >/dev/null; then cleanup_hook; fi
	if [[ $KEEP_WORK == 1 ]]; then
		echo "work directory kept: $WORK" >&2
	else
		rm -rf "$WORK"
	fi
}

# init_work prefix: ROOT, the work directory (WORK, BIN, RES, LOGS,
# COMMANDS) and the traps that clean up.
init_work() {
	ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
	WORK=$(mktemp -d "${TMPDIR:-/tmp}/$1.XXXXXX")
	BIN=$WORK/bin RES=$WORK/results LOGS=$WORK/logs
	mkdir -p "$BIN" "$RES" "$LOGS"
	COMMANDS=$WORK/commands.sh
	trap cleanup EXIT
	trap 'echo "$BENCH_NAME: interrupted; stopping AgentOS and fakellm" >&2; exit 130' INT TERM
}

# record appends a command, shell-quoted, to the list printed at the end;
# RECORD_SUFFIX (redirections, &) is appended as is.
record() {
	local line
	printf -v line '%q ' "$@"
	echo "${line% }${RECORD_SUFFIX:+ $RECORD_SUFFIX}" >>"$COMMANDS"
}
run() {
	record "$@"
	"$@"
}

# build_bins: AGNO (built unless AGNO_BIN), fakellm and agnoload in $BIN.
build_bins() {
	cd "$ROOT"
	export CGO_ENABLED=0
	if [[ -n $AGNO_BIN ]]; then
		AGNO=$AGNO_BIN
		echo "# agno binary given by AGNO_BIN: $AGNO" >>"$COMMANDS"
	else
		AGNO=$BIN/agno
		run go build -o "$AGNO" ./cmd/agno
	fi
	run go build -o "$BIN/fakellm" ./cmd/fakellm
	run go build -o "$BIN/agnoload" ./cmd/agnoload
}

# pick_port from to: unless PORT is set, the first free port in [from, to).
pick_port() {
	local p
	if [[ -z $PORT ]]; then
		for ((p = $1; p < $2; p++)); do
			if ! (: </dev/tcp/127.0.0.1/$p) 2>/dev/null; then
				PORT=$p
				break
			fi
		done
		[[ -n $PORT ]] || die "no free port in $1-$(($2 - 1)); set PORT"
	fi
	OS_URL=http://127.0.0.1:$PORT
}

# write_agent: the agent AGENT in $WORK/os/agents.
write_agent() {
	AGENT=bench
	mkdir -p "$WORK/os/agents"
	cat >"$WORK/os/agents/$AGENT.toml" <<'EOF'
name = "Bench Agent"
model = "default"
instructions = "You answer in one short sentence."
EOF
}

# model_toml base_url: the [models.default] table for fakellm.
model_toml() {
	cat <<EOF
[models.default]
provider = "openai-compatible"
base_url = "$1"
api_key_env = "AGNO_BENCH_API_KEY"
model = "fake-model"
max_retries = 0
EOF
}

# config_toml name base_url driver: an AgentOS config up to [storage] driver.
config_toml() {
	cat <<EOF
[agentos]
name = "$1"
host = "127.0.0.1"
port = $PORT
protected_mode = true
registry_auto_populate = true

[agentos.registry]
sources = ["agents"]
refresh_on_start = true

$(model_toml "$2")

[storage]
driver = "$3"
${STORAGE_TOML:-}
EOF
}

LLM_PID= LLM_URL=
start_fakellm() { # log
	local url_file=$WORK/fakellm.url
	: >"$url_file"
	local args=(-ttft "$TTFT" -token-delay "$TOKEN_DELAY" -tokens "$TOKENS" -api-key "$AGNO_BENCH_API_KEY")
	RECORD_SUFFIX="> $url_file 2> $1 &" record "$BIN/fakellm" "${args[@]}"
	"$BIN/fakellm" "${args[@]}" >"$url_file" 2>"$1" &
	LLM_PID=$!
	PIDS+=("$LLM_PID")
	local i
	for ((i = 0; i < 100; i++)); do
		LLM_URL=$(head -n1 "$url_file")
		[[ -n $LLM_URL ]] && return
		running "$LLM_PID" || break
		sleep 0.1
	done
	cat "$1" >&2
	die "fakellm did not print its URL"
}

OS_PID=
start_agentos() { # log
	if (: </dev/tcp/127.0.0.1/"$PORT") 2>/dev/null; then
		die "something already listens on 127.0.0.1:$PORT; stop it or set PORT"
	fi
	RECORD_SUFFIX="> $1 2>&1 &" record "$AGNO" agentos start --config "$WORK/os/config.toml"
	"$AGNO" agentos start --config "$WORK/os/config.toml" >"$1" 2>&1 &
	OS_PID=$!
	PIDS+=("$OS_PID")
	local i
	for ((i = 0; i < 300; i++)); do
		if curl -fsS -o /dev/null --max-time 1 "$OS_URL/health" 2>/dev/null; then
			# The agent must have loaded from its file.
			if ! curl -fsS --max-time 5 "$OS_URL/agents" | jq -e --arg id "$AGENT" 'any(.[]; .id == $id)' >/dev/null; then
				tail -n 40 "$1" >&2
				die "AgentOS is up but does not serve the agent \"$AGENT\"${AGENTS_URL_IN_ERROR:+ (GET $OS_URL/agents)}; its log is above"
			fi
			return
		fi
		if ! running "$OS_PID"; then
			tail -n 40 "$1" >&2
			die "agno agentos start exited before answering /health; its log is above"
		fi
		sleep 0.1
	done
	tail -n 40 "$1" >&2
	die "AgentOS did not answer $OS_URL/health within 30s"
}

# commit_line and machine_line: the report's first lines, what was measured
# and where.
commit_line() {
	echo "- commit: $(git -C "$ROOT" rev-parse --short HEAD 2>/dev/null || echo unknown)$([[ -n $(git -C "$ROOT" status --porcelain 2>/dev/null) ]] && echo ' (working tree has changes)')"
}
machine_line() {
	echo "- $(go version), $(nproc) CPUs ($(sed -n 's/^model name[[:space:]]*: //p' /proc/cpuinfo | head -n1)), Linux $(uname -r)"
}
