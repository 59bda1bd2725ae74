package config_test

import (
	"context"
	"testing"

	"github.com/agno-go/agno/tool"
	"github.com/agno-go/agno/workflow"
)

// [tool_options.<function>] approval and a step's approval reach the
// tool.Function and the workflow node.
func TestApprovalKeysMapToToolsAndSteps(t *testing.T) {
	res, _ := tree(t, map[string]string{
		"agents/cashier.toml": `
name = "Cashier"
tools = ["lookup"]

[tool_options.lookup]
approval = "required"
`,
		"workflows/w.toml": `
name = "W"

[[steps]]
name = "pay"
function = "trim"
approval = "required"

[[steps]]
name = "audit"
function = "trim"
requires_confirmation = true
approval = "audit"
`,
	})
	if len(res.Agents) != 1 || len(res.Workflows) != 1 {
		t.Fatalf("report:\n%s", res.Report)
	}
	var fns []*tool.Function
	for _, p := range res.Agents[0].Config().Tools {
		got, err := p.Functions(context.Background())
		if err != nil {
			t.Fatal(err)
		}
		fns = append(fns, got...)
	}
	if len(fns) != 1 || fns[0].Name != "lookup" || fns[0].ApprovalType != tool.ApprovalRequired {
		t.Fatalf("functions: %+v", fns)
	}
	if err := fns[0].Validate(); err != nil || !fns[0].RequiresConfirmation {
		t.Fatalf("a required approval asks for confirmation: %v %v", err, fns[0].RequiresConfirmation)
	}
	// The registered function itself is unchanged (other agents share it).
	if orig := registryFunctions().Tools["lookup"].(*tool.Function); orig.ApprovalType != "" {
		t.Fatalf("registered function changed: %q", orig.ApprovalType)
	}
	steps := res.Workflows[0].Config().Steps
	pay, audit := steps[0].(*workflow.Step).HumanReview, steps[1].(*workflow.Step).HumanReview
	if pay.Approval != "required" || !pay.RequiresConfirmation {
		t.Errorf("pay step: %+v", pay)
	}
	if audit.Approval != "audit" || !audit.RequiresConfirmation {
		t.Errorf("audit step: %+v", audit)
	}
}

func TestApprovalKeysAreValidated(t *testing.T) {
	res, _ := tree(t, map[string]string{
		"agents/a.toml": `
name = "A"
tools = ["lookup"]

[tool_options.lookup]
approval = "maybe"

[tool_options.missing]
approval = "required"
`,
		"agents/b.toml": `
name = "B"
tools = ["lookup"]

[tool_options.lookup]
approval = "audit"
`,
		"workflows/w.toml": `
name = "W"

[[steps]]
name = "s"
function = "trim"
approval = "always"

[[steps]]
name = "quiet"
function = "trim"
approval = "audit"
`,
	})
	errs := configErrors(t, failure(t, res, "a.toml").Err)
	findError(t, errs, "a.toml", `tool_options.lookup.approval = "maybe": use`, `"required"`, `"audit"`)
	findError(t, errs, "tool_options.missing names no tool of this file", `"lookup"`)
	errs = configErrors(t, failure(t, res, "b.toml").Err)
	findError(t, errs, "b.toml", `tool_options.lookup.approval = "audit" records a human's answer, but tool "lookup" asks none`)
	errs = configErrors(t, failure(t, res, "w.toml").Err)
	e := findError(t, errs, "w.toml", `steps[0] ("s"): approval = "always": use`, `"required"`, `"audit"`)
	if e.Line != 7 {
		t.Errorf("%v: line %d, want 7", e, e.Line)
	}
	findError(t, errs, `steps[1] ("quiet"): approval = "audit" records a human's answer, but the step asks none`)
}
