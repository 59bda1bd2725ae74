package gemini_test

import (
	"reflect"
	"strings"
	"testing"

	"github.com/agno-go/agno/config"
	"github.com/agno-go/agno/model/gemini"
)

// agno's keys in a [models.<key>] table of provider "google" decode into
// Options, strictly.
func TestOptionsFromTOML(t *testing.T) {
	c, err := config.Parse("config.toml", []byte(`
[models.gem]
provider = "google"
model = "gemini-2.5-pro"
vertexai = true
project_id = "my-proj"
location = "us-central1"
thinking_budget = 512
include_thoughts = true
thinking_level = "low"
top_k = 20
safety_settings = [{ category = "HARM_CATEGORY_HARASSMENT", threshold = "BLOCK_NONE" }]
[storage]
driver = "memory"
`))
	if err != nil {
		t.Fatalf("Parse: %v", err)
	}
	got, ok := c.Models["gem"].Options.(*gemini.Options)
	if !ok {
		t.Fatalf("Options = %T", c.Models["gem"].Options)
	}
	budget, include, topK := 512, true, 20
	want := &gemini.Options{VertexAI: true, ProjectID: "my-proj", Location: "us-central1", ThinkingBudget: &budget,
		IncludeThoughts: &include, ThinkingLevel: "low", TopK: &topK,
		SafetySettings: []gemini.SafetySetting{{Category: "HARM_CATEGORY_HARASSMENT", Threshold: "BLOCK_NONE"}}}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("Options = %+v, want %+v", got, want)
	}

	_, err = config.Parse("config.toml", []byte(`
[models.gem]
provider = "google"
thinking_budjet = 512
[storage]
driver = "memory"
`))
	if err == nil || !strings.Contains(err.Error(), "thinking_budjet") {
		t.Errorf("unknown key: %v, want an error naming it", err)
	}
}
