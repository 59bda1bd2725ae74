package engine

import (
	"reflect"
	"sync"

	"github.com/agno-go/agno/agent/agentconfig"
)

// AgentConfig is agent.Config, defined in the public agentconfig package
// so that its fields are documented where users read them.
type AgentConfig = agentconfig.Config

// The types AgentConfig's fields use, defined beside it.
type (
	Knowledge    = agentconfig.Knowledge
	Fallbacks    = agentconfig.Fallbacks
	PreHook      = agentconfig.PreHook
	PostHook     = agentconfig.PostHook
	HookInput    = agentconfig.HookInput
	CheckError   = agentconfig.CheckError
	OutputSchema = agentconfig.OutputSchema
)

// OptionsOf projects a struct of options (a team.Config) onto an
// AgentConfig by declaration: each field whose name and type match an
// AgentConfig field carries over; the others are the caller's own. A team
// leader runs as an agent with the team's options this way, with no
// hand-kept list of the fields they share.
func OptionsOf(src any) AgentConfig {
	v := reflect.ValueOf(src)
	var out AgentConfig
	dst := reflect.ValueOf(&out).Elem()
	for _, p := range sharedFields(v.Type()) {
		dst.Field(p[1]).Set(v.Field(p[0]))
	}
	return out
}

// SharedFields lists the names of t's fields OptionsOf carries over.
func SharedFields(t reflect.Type) []string {
	var names []string
	for _, p := range sharedFields(t) {
		names = append(names, t.Field(p[0]).Name)
	}
	return names
}

var shared sync.Map // reflect.Type → [][2]int (source index, AgentConfig index)

func sharedFields(t reflect.Type) [][2]int {
	if p, ok := shared.Load(t); ok {
		return p.([][2]int)
	}
	at := reflect.TypeFor[AgentConfig]()
	var pairs [][2]int
	for i := range t.NumField() {
		f := t.Field(i)
		if g, ok := at.FieldByName(f.Name); ok && f.IsExported() && g.Type == f.Type && len(g.Index) == 1 {
			pairs = append(pairs, [2]int{i, g.Index[0]})
		}
	}
	shared.Store(t, pairs)
	return pairs
}
