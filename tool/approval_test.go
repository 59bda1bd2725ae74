package tool_test

import (
	"context"
	"strings"
	"testing"

	"github.com/agno-go/agno/tool"
)

func approvalFn(t *testing.T) *tool.Function {
	t.Helper()
	f, err := tool.NewRaw("pay", "Pay", nil, func(context.Context, map[string]any) (tool.Result, error) { return tool.Text("ok"), nil })
	if err != nil {
		t.Fatal(err)
	}
	return f
}

func TestApprovalTypeValidation(t *testing.T) {
	// required without a human flag asks for confirmation (agno's @approval),
	// even when set after New validated the function.
	f := approvalFn(t)
	f.ApprovalType = tool.ApprovalRequired
	if err := f.Validate(); err != nil || !f.RequiresConfirmation {
		t.Fatalf("required: %v, confirmation %v", err, f.RequiresConfirmation)
	}
	// required keeps another flag.
	f = approvalFn(t)
	f.ApprovalType, f.ExternalExecution = tool.ApprovalRequired, true
	if err := f.Validate(); err != nil || f.RequiresConfirmation {
		t.Fatalf("required+external: %v, confirmation %v", err, f.RequiresConfirmation)
	}
	// audit needs a human flag.
	f = approvalFn(t)
	f.ApprovalType = tool.ApprovalAudit
	if err := f.Validate(); err == nil || !strings.Contains(err.Error(), "RequiresConfirmation") {
		t.Fatalf("audit alone: %v", err)
	}
	f.RequiresConfirmation = true
	if err := f.Validate(); err != nil {
		t.Fatalf("audit+confirmation: %v", err)
	}
	f = approvalFn(t)
	f.ApprovalType = "sometimes"
	if err := f.Validate(); err == nil || !strings.Contains(err.Error(), `"required" or "audit"`) {
		t.Fatalf("unknown type: %v", err)
	}
}
