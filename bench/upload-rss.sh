#!/usr/bin/env bash
# Measures what one large upload costs AgentOS: peak RSS of `agno agentos
# start` (SQLite storage, one agent in front of fakellm) after a run with
# one SIZE_MB text file, and the size of the stored run row and blobs.
#
#   bench/upload-rss.sh                 # SIZE_MB=30
#   AGNO_BIN=/path/to/agno bench/upload-rss.sh   # another build
set -euo pipefail
SIZE_MB=${SIZE_MB:-30}
BENCH_NAME=upload-rss.sh
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
WORK=$(mktemp -d "${TMPDIR:-/tmp}/agno-upload.XXXXXX")
PIDS=()
cleanup() {
	for p in "${PIDS[@]}"; do kill "$p" 2>/dev/null || true; wait "$p" 2>/dev/null || true; done
	rm -rf "$WORK"
}
trap cleanup EXIT
cd "$ROOT"
export CGO_ENABLED=0
AGNO=${AGNO_BIN:-$WORK/agno}
[[ -n ${AGNO_BIN:-} ]] || go build -o "$AGNO" ./cmd/agno
go build -o "$WORK/fakellm" ./cmd/fakellm
export AGNO_BENCH_API_KEY=sk-agno-bench
unset OS_SECURITY_KEY
"$WORK/fakellm" -tokens 5 -api-key "$AGNO_BENCH_API_KEY" >"$WORK/fakellm.url" 2>"$WORK/fakellm.log" &
PIDS+=($!)
for _ in $(seq 100); do [[ -s $WORK/fakellm.url ]] && break; sleep 0.1; done
PORT=18777
mkdir -p "$WORK/os/agents"
printf 'id = "bench"\nname = "Bench Agent"\nmodel = "default"\n' >"$WORK/os/agents/bench.toml"
cat >"$WORK/os/config.toml" <<CFG
[agentos]
host = "127.0.0.1"
port = $PORT
[agentos.registry]
sources = ["agents"]
$(model_toml "$(head -n1 "$WORK/fakellm.url")")
[storage]
driver = "sqlite"
path = "$WORK/agno.db"
CFG
"$AGNO" agentos start --config "$WORK/os/config.toml" >"$WORK/agno.log" 2>&1 &
OS_PID=$!
PIDS+=("$OS_PID")
for _ in $(seq 100); do curl -sf "http://127.0.0.1:$PORT/health" >/dev/null && break; sleep 0.1; done
head -c $((SIZE_MB << 20)) /dev/zero | tr '\0' 'a' >"$WORK/upload.txt"
before=$(awk '/VmHWM/ {print $2}' /proc/$OS_PID/status)
code=$(curl -s -o "$WORK/resp.json" -w '%{http_code}' -F message=read -F stream=false -F "files=@$WORK/upload.txt;type=text/plain" \
	"http://127.0.0.1:$PORT/agents/bench/runs")
peak=$(awk '/VmHWM/ {print $2}' /proc/$OS_PID/status)
row=$(go run ./bench/internal/dbsize "$WORK/agno.db" 2>/dev/null || echo "?")
echo "upload ${SIZE_MB} MiB: HTTP $code; peak RSS before $((before / 1024)) MB, after $((peak / 1024)) MB; $row"
