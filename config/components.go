package config

import (
	"fmt"
	"slices"
	"strings"

	"github.com/agno-go/agno/component"
	"github.com/agno-go/agno/model"
	"github.com/agno-go/agno/tool"
)

// ComponentsConfig is [components]: the operator's allowlist of what a
// component — an agent, team or workflow config written through AgentOS's
// /components routes by any caller holding components:write — may name.
// A declarative file is the operator's own and may name anything; a
// component is a caller's, so it gets only what is listed here. An unset
// list keeps its default; an empty list allows nothing.
type ComponentsConfig struct {
	// AllowedTools are the tools entries a component may name: built-in
	// toolkits ("shell", "file", "daytona"), MCP servers ("mcp:<server>")
	// and Go functions of Functions.Tools. Unset: the Go functions only
	// (a program registers them for this use); never a built-in toolkit
	// or an MCP server unless listed, since those reach the host.
	AllowedTools *[]string `toml:"allowed_tools"`
	// AllowedModels are the [models] keys a component may name (model,
	// fallback_models, reasoning_model, a workflow's agent.model), and agno's
	// "<provider>:<id>" strings it may name. Unset: every key, and no
	// such string (one builds a client on the server's key for whatever
	// model the caller picks, so the operator lists those it pays for).
	AllowedModels *[]string `toml:"allowed_models"`
	// AllowedKnowledge are the [knowledge] bases a component may attach.
	// Unset: every one.
	AllowedKnowledge *[]string `toml:"allowed_knowledge"`
}

// validateComponents checks the lists name things that exist: models and
// knowledge bases of this file; tools of this file's built-ins and MCP
// servers (Go functions are known at Build).
func (c *Config) validateComponents(p *problems) {
	cc := c.Components
	check := func(key string, list *[]string, known func(string) bool, what string) {
		if list == nil {
			return
		}
		for i, name := range *list {
			k := fmt.Sprintf("components.%s[%d]", key, i)
			switch {
			case strings.TrimSpace(name) == "":
				p.at(k, "components.%s has an empty entry: remove it", key)
			case slices.Index(*list, name) != i:
				p.at(k, "components.%s lists %q twice: remove one", key, name)
			case !known(name):
				p.at(k, "%s: %q is not %s", k, name, what)
			}
		}
	}
	check("allowed_models", cc.AllowedModels, func(n string) bool {
		if _, ok := c.Models[n]; ok {
			return true
		}
		_, err := providerOf(n)
		return isModelString(n) && err == nil
	}, fmt.Sprintf("a key of [models] (keys: %s) or a \"<provider>:<model id>\" string of a registered provider (%s)",
		listOr(quoteAll(sortedKeys(c.Models)), "none defined"), strings.Join(model.ProviderNames(), ", ")))
	check("allowed_knowledge", cc.AllowedKnowledge, func(n string) bool { _, ok := c.Knowledge[n]; return ok },
		fmt.Sprintf("a [knowledge] base (names: %s)", listOr(quoteAll(sortedKeys(c.Knowledge)), "none defined")))
	check("allowed_tools", cc.AllowedTools, func(n string) bool {
		if server, ok := strings.CutPrefix(n, "mcp:"); ok {
			_, known := c.MCP.Servers[server]
			return known
		}
		return !strings.Contains(n, ":") // a built-in or a Go function, checked at Build
	}, "a tool a component can name: a built-in toolkit (shell, file, daytona), mcp:<a server of [mcp.servers]> or a Go function of Functions.Tools")
}

// checkComponentTools refuses allowed_tools entries that name neither a
// built-in toolkit, an MCP server nor a registered Go function (Build).
func (c *Config) checkComponentTools(fn Functions) error {
	if c.Components.AllowedTools == nil {
		return nil
	}
	for i, name := range *c.Components.AllowedTools {
		if strings.Contains(name, ":") || isToolkit(name) || fn.Tools[name] != nil {
			continue
		}
		return fmt.Errorf("config: components.allowed_tools[%d] = %q names no tool: use a built-in toolkit (%s), mcp:<server>, or a Go function registered in config.Functions.Tools (registered: %s)",
			i, name, strings.Join(tool.ToolkitNames(), ", "), listOr(sortedKeys(fn.Tools), "none"))
	}
	return nil
}

// allowsTool reports whether a component may name the tools entry t
// (parsed kind: builtin, mcp or function; agent and team references are
// AgentOS's to check against the writer's scopes).
func (cc ComponentsConfig) allowsTool(kind, source string) bool {
	if cc.AllowedTools == nil {
		return kind == "function"
	}
	return slices.Contains(*cc.AllowedTools, source)
}

func allowedIn(list *[]string, name string) bool { return list == nil || slices.Contains(*list, name) }

// componentRefusals lists what a parsed component file names that
// [components] does not allow, each an error naming the key, the entry
// and the allowlist to extend.
func (l *loader) componentRefusals(f *resFile) error {
	cc := l.cfg.Components
	p := &problems{file: f.path, idx: f.idx}
	refuse := func(key, value, list string) {
		p.at(key, "%s = %q is %v: the operator lists what components may use in [components] %s of config.toml", key, value, component.ErrNotAllowed, list)
	}
	tools := func(list []string) {
		for i, ref := range l.checkTools(&problems{}, &resFile{}, list) {
			if ref.kind == "agent" || ref.kind == "team" {
				continue
			}
			if !cc.allowsTool(ref.kind, ref.source) {
				refuse(fmt.Sprintf("tools[%d]", i), ref.source, "allowed_tools")
			}
		}
	}
	model := func(key, name string) {
		if _, isKey := l.res.Models[name]; !isKey && isModelString(name) && cc.AllowedModels == nil {
			refuse(key, name, "allowed_models (an unset list allows the [models] keys, not \"<provider>:<id>\" strings)")
			return
		}
		if name != "" && !allowedIn(cc.AllowedModels, name) {
			refuse(key, name, "allowed_models")
		}
	}
	kb := func(name string) {
		if name != "" && !allowedIn(cc.AllowedKnowledge, name) {
			refuse("knowledge", name, "allowed_knowledge")
		}
	}
	switch {
	case f.agent != nil:
		a := f.agent
		model("model", a.Model)
		for i, m := range a.FallbackModels {
			model(fmt.Sprintf("fallback_models[%d]", i), m)
		}
		model("reasoning_model", a.ReasoningModel)
		tools(a.Tools)
		kb(a.Knowledge)
	case f.team != nil:
		t := f.team
		model("model", t.Model)
		model("reasoning_model", t.ReasoningModel)
		tools(t.Tools)
		kb(t.Knowledge)
	case f.workflow != nil && f.workflow.Agent != nil:
		model("agent.model", f.workflow.Agent.Model)
	}
	return p.err()
}
