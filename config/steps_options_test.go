package config

import (
	"reflect"
	"slices"
	"testing"

	"github.com/agno-go/agno/workflow"
)

// Every option of a workflow node type has the file key that sets it
// (its toml tag), that key is one a [[steps]] entry of that type accepts,
// and every key a type accepts sets an option: a field added to
// workflow.Loop without a key, or a key the loader reads and drops (as
// description once was on every node but a step), fails here.
func TestEveryStepOptionHasAFileKey(t *testing.T) {
	goOnly := map[string]string{"OutputReviewIf": "a Go function", "Value": "the human's answer, not configuration"}
	// fileOnly are keys that set no field of their own.
	fileOnly := map[string]string{"type": "picks the node type", "team": "sets Agent, as agent does (a team is an executor)"}
	// Pauses a node type has through HumanReview but the engine only
	// takes on a Step (user input also on a Router, to pick the route).
	stepPauses := []string{"RequiresUserInput", "UserInputMessage", "UserInputSchema", "RequiresOutputReview", "OutputReviewMessage"}
	notUsed := map[string][]string{StepTypeSteps: stepPauses, StepTypeLoop: stepPauses, StepTypeParallel: stepPauses,
		StepTypeCondition: stepPauses, StepTypeRouter: {"UserInputSchema", "RequiresOutputReview", "OutputReviewMessage"}}
	types := map[string]reflect.Type{
		StepTypeStep: reflect.TypeFor[workflow.Step](), StepTypeSteps: reflect.TypeFor[workflow.Steps](),
		StepTypeLoop: reflect.TypeFor[workflow.Loop](), StepTypeParallel: reflect.TypeFor[workflow.Parallel](),
		StepTypeCondition: reflect.TypeFor[workflow.Condition](), StepTypeRouter: reflect.TypeFor[workflow.Router](),
	}
	for name, typ := range types {
		keys := map[string]bool{}
		for _, f := range reflect.VisibleFields(typ) {
			if !f.IsExported() || f.Anonymous || slices.Contains(notUsed[name], f.Name) {
				continue
			}
			tag, ok := f.Tag.Lookup("toml")
			switch {
			case !ok:
				t.Errorf("%s.%s has no toml tag: give it the [[steps]] key that sets it, or toml:\"-\" and a reason in goOnly", typ, f.Name)
			case tag == "-":
				if goOnly[f.Name] == "" {
					t.Errorf("%s.%s is toml:\"-\" without a reason", typ, f.Name)
				}
			case !stepKeys[name][tag]:
				t.Errorf("%s.%s is set by %q, which a %s step does not accept (stepKeys)", typ, f.Name, tag, name)
			case !hasStepFileKey(tag):
				t.Errorf("%s.%s: StepFile has no %q", typ, f.Name, tag)
			default:
				keys[tag] = true
			}
		}
		for key := range stepKeys[name] {
			if !keys[key] && fileOnly[key] == "" {
				t.Errorf("a %s step accepts %q, but no field of %s takes it", name, key, typ)
			}
		}
	}
	in := reflect.TypeFor[workflow.InputField]()
	for _, f := range reflect.VisibleFields(in) {
		tag := f.Tag.Get("toml")
		if tag == "-" && goOnly[f.Name] != "" {
			continue
		}
		if _, ok := fieldByTOMLName(reflect.TypeFor[InputFieldFile](), tag); !ok {
			t.Errorf("workflow.InputField.%s: user_input_schema entries have no %q", f.Name, tag)
		}
	}
}

func hasStepFileKey(key string) bool {
	_, ok := fieldByTOMLName(reflect.TypeFor[StepFile](), key)
	return ok || slices.Contains([]string{"type"}, key)
}
