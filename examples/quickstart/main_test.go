package main

import (
	"context"
	"os"
	"strings"
	"testing"
)

func TestQuickstartOffline(t *testing.T) {
	f, err := os.CreateTemp(t.TempDir(), "out")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if err := runQuickstart(context.Background(), "weather?", true, f); err != nil {
		t.Fatal(err)
	}
	b, _ := os.ReadFile(f.Name())
	if got := string(b); !strings.Contains(got, "→ get_weather(map[city:sf])") || !strings.Contains(got, "The forecast: It's always sunny in sf.") {
		t.Fatalf("output:\n%s", got)
	}
}

func TestQuickstartNamesEnvVars(t *testing.T) {
	t.Setenv("AGNO_BASE_URL", "")
	err := runQuickstart(context.Background(), "x", false, os.Stdout)
	if err == nil || !strings.Contains(err.Error(), "AGNO_BASE_URL") || !strings.Contains(err.Error(), "AGNO_API_KEY") || !strings.Contains(err.Error(), "AGNO_MODEL") {
		t.Fatalf("error %v", err)
	}
}
