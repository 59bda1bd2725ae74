package shellquote_test

import (
	"testing"

	"github.com/agno-go/agno/internal/shellquote"
)

func BenchmarkQuoteSafe(b *testing.B) {
	for b.Loop() {
		shellquote.Quote("/home/daytona/project/src/main.py")
	}
}

func BenchmarkQuoteHostile(b *testing.B) {
	for b.Loop() {
		shellquote.Quote("/home/daytona/it's a dir; $(touch CANARY)/name's.txt")
	}
}

func BenchmarkNormpath(b *testing.B) {
	for b.Loop() {
		shellquote.Normpath("/home/daytona/../tmp/./x//y/")
	}
}
