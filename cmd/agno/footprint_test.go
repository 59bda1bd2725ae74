package main

import (
	"bufio"
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
)

// TestLinkerDropsUnusedMethods links agno as `make agno` does and fails
// when a reflect Method/MethodByName call with a computed name is
// reachable (text/template or html/template execution, most often): the
// linker then keeps every exported method of every type in the binary,
// 23 MB of the SDKs' generated code, 7 MB of it resident.
func TestLinkerDropsUnusedMethods(t *testing.T) {
	if testing.Short() {
		t.Skip("links the agno binary")
	}
	//lint:ignore SA1019 the test runs the go command of the toolchain that built it; PATH may name none or another
	cmd := exec.Command(filepath.Join(runtime.GOROOT(), "bin", "go"), "build", "-tags", "grpcnotrace", "-ldflags=-dumpdep", "-o", os.DevNull, ".")
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("go build -ldflags=-dumpdep: %v\n%.2000s", err, out)
	}
	var reached []string
	sc := bufio.NewScanner(bytes.NewReader(out))
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		if line := sc.Text(); strings.Contains(line, "<ReflectMethod>") && len(reached) < 10 {
			reached = append(reached, line)
		}
	}
	if len(reached) > 0 {
		t.Errorf("a dynamic reflect method lookup is linked in, so dead exported methods are kept; render without text/template or html/template (see agentos/docs.go):\n%s", strings.Join(reached, "\n"))
	}
}
