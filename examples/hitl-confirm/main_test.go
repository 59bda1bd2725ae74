package main

import (
	"bytes"
	"context"
	"strings"
	"testing"
)

func TestConfirmFlow(t *testing.T) {
	var out bytes.Buffer
	if err := runExample(context.Background(), strings.NewReader("y\n"), &out, false, ""); err != nil {
		t.Fatal(err)
	}
	got := out.String()
	for _, want := range []string{"status: PAUSED — I have tools to execute, but I need confirmation.", "The agent wants to call send_email", "status: COMPLETED — Done: Email sent to alice@example.com."} {
		if !strings.Contains(got, want) {
			t.Fatalf("missing %q in:\n%s", want, got)
		}
	}
}

func TestRejectFlow(t *testing.T) {
	var out bytes.Buffer
	if err := runExample(context.Background(), strings.NewReader("n\n"), &out, false, ""); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(out.String(), "status: COMPLETED — Done: The human declined.") {
		t.Fatalf("output:\n%s", out.String())
	}
}
