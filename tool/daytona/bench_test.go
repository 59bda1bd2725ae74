package daytona

import (
	"strings"
	"testing"
)

func BenchmarkWriteFileCommand64KiB(b *testing.B) {
	content := strings.Repeat("line with 'quotes' and $VAR\n", 64<<10/28)
	b.SetBytes(int64(len(content)))
	for b.Loop() {
		writeFileCommand("/home/daytona/it's here.txt", content, heredocDelimiter(content))
	}
}

func BenchmarkPreparePythonCode(b *testing.B) {
	code := strings.Repeat("x = true if y is none else false  # true\nprint('none', \"false\")\n", 100)
	b.SetBytes(int64(len(code)))
	for b.Loop() {
		preparePythonCode(code)
	}
}
