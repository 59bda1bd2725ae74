package agentos_test

import (
	"testing"

	"github.com/agno-go/agno/agent"
	"github.com/agno-go/agno/agentos"
	"github.com/agno-go/agno/model/modeltest"
	"github.com/agno-go/agno/workflow"
)

// A container node lists its description, as a step does (agno's
// to_dict of every step type carries one).
func TestWorkflowStepsListDescriptions(t *testing.T) {
	a, err := agent.New(agent.Config{Name: "Writer", Model: modeltest.New(modeltest.Response{Content: "ok"})})
	if err != nil {
		t.Fatal(err)
	}
	w, err := workflow.New(workflow.Config{Name: "Described", Steps: []workflow.Node{
		&workflow.Loop{Name: "again", Description: "until done", MaxIterations: 2,
			Steps: []workflow.Node{&workflow.Step{Name: "write", Description: "one draft", Agent: a}}},
	}})
	if err != nil {
		t.Fatal(err)
	}
	srv := osWith(t, agentos.Config{Agents: []*agent.Agent{a}, Workflows: []*workflow.Workflow{w}})
	loop := obj(list(obj(getOK(t, srv, "/workflows/"+w.ID()))["steps"])[0])
	inner := obj(list(loop["steps"])[0])
	if loop["type"] != "Loop" || loop["description"] != "until done" || inner["description"] != "one draft" {
		t.Errorf("loop %v, its step %v", loop, inner)
	}
}
