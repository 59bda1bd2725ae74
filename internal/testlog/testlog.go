// Package testlog is a sink for what tests capture from loggers and child
// processes: safe for their concurrent writes, read back as text or as
// the records of a JSON log handler.
package testlog

import (
	"bytes"
	"encoding/json"
	"strings"
	"sync"
)

// Buffer collects writes; the zero value is ready to use.
type Buffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (b *Buffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.b.Write(p)
}

// String is everything written so far.
func (b *Buffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.b.String()
}

// Records decodes the lines of a slog JSON handler written so far; lines
// that are not JSON objects are skipped.
func (b *Buffer) Records() []map[string]any {
	var out []map[string]any
	for _, line := range strings.Split(b.String(), "\n") {
		var m map[string]any
		if json.Unmarshal([]byte(line), &m) == nil && m != nil {
			out = append(out, m)
		}
	}
	return out
}

// Messages are the records whose msg is msg.
func (b *Buffer) Messages(msg string) []map[string]any {
	var out []map[string]any
	for _, r := range b.Records() {
		if r["msg"] == msg {
			out = append(out, r)
		}
	}
	return out
}
