package engine

import (
	"encoding/json"
	"fmt"
	"regexp"
	"strings"
	"time"

	"github.com/agno-go/agno/internal/pyjson"
	"github.com/agno-go/agno/memory"
	"github.com/agno-go/agno/model"
	"github.com/agno-go/agno/run"
	"github.com/agno-go/agno/storage"
)

// buildMessages assembles agno's run messages: system message, additional
// input, history, then the input.
func (st *runState) buildMessages(input string) error {
	st.messages = st.messages[:0]
	sys, err := st.systemMessage()
	if err != nil {
		return err
	}
	if sys != "" {
		st.messages = append(st.messages, model.Message{ID: run.NewID(), Role: st.spec.systemRole, Content: sys, CreatedAt: run.Now()})
	}
	if len(st.spec.AdditionalInput) > 0 {
		st.messages = append(st.messages, st.spec.AdditionalInput...)
		st.out.AdditionalInput = st.spec.AdditionalInput
	}
	if err := st.addHistory(); err != nil {
		return err
	}
	if len(st.req.Messages) > 0 {
		st.messages = append(st.messages, st.req.Messages...)
		return nil
	}
	st.messages = append(st.messages, model.Message{ID: run.NewID(), Role: model.RoleUser, Content: st.withReferences(input), Images: st.req.Images, Files: st.req.Files, CreatedAt: run.Now()})
	return nil
}

// systemMessage builds the system message in agno's order (§1.5).
func (st *runState) systemMessage() (string, error) {
	s := st.spec
	if s.SystemMessageFunc != nil || s.SystemMessage != "" {
		msg := s.SystemMessage
		if s.SystemMessageFunc != nil {
			m, err := s.SystemMessageFunc(st.ctx, st.rc)
			if err != nil {
				return "", fmt.Errorf("system message: %w", err)
			}
			msg = m
		}
		if !off(s.ResolveInContext) {
			msg = st.substitute(msg)
		}
		return msg, nil
	}
	if off(s.BuildContext) {
		return "", nil
	}
	if s.Team {
		return st.teamSystemMessage()
	}
	instructions, info, err := st.instructionsAndInfo()
	if err != nil {
		return "", err
	}

	var b strings.Builder
	// One allocation for the usual message: its fixed parts' size plus
	// room for what a run adds.
	size := len(s.Description) + len(s.Role) + len(s.ExpectedOutput) + len(s.AdditionalContext) + len(st.spec.schemaPrompt)
	for _, in := range instructions {
		size += len(in) + 4
	}
	for _, ti := range s.toolInstr {
		size += len(ti) + 1
	}
	if size > 0 {
		size += 256
		b.Grow(size)
	}
	if s.Description != "" {
		b.WriteString(s.Description)
		b.WriteByte('\n')
	}
	if s.Role != "" {
		b.WriteString("\n<your_role>\n" + s.Role + "\n</your_role>\n\n")
	}
	writeInstructions(&b, instructions, s.UseInstructionTags)
	writeInfo(&b, info)
	for _, ti := range s.toolInstr {
		b.WriteString(ti)
		b.WriteByte('\n')
	}
	if !off(s.ResolveInContext) {
		content := b.String()
		// Only a message with {var}s is rewritten; the builder goes on.
		if sub := st.substitute(content); sub != content {
			b.Reset()
			b.Grow(len(sub) + size - len(content))
			b.WriteString(sub)
		}
	}
	if s.ExpectedOutput != "" {
		b.WriteString("<expected_output>\n" + strings.TrimSpace(s.ExpectedOutput) + "\n</expected_output>\n\n")
	}
	if s.AdditionalContext != "" {
		b.WriteString(s.AdditionalContext + "\n")
	}
	st.writeMemories(&b)
	st.writeSummary(&b)
	b.WriteString(st.knowledgeContext())
	if st.schema != nil && st.needsJSONPrompt() {
		b.WriteString(st.jsonOutputPrompt())
	}
	if s.AddSessionStateToContext {
		b.WriteString("\n<session_state>\n" + pythonRepr(st.rc.StateSnapshot()) + "\n</session_state>\n\n")
	}
	return strings.TrimSpace(b.String()), nil
}

// instructionsAndInfo resolves the instruction list and the
// <additional_information> bullets.
func (st *runState) instructionsAndInfo() (instructions, info []string, err error) {
	s := st.spec
	instructions = s.Instructions
	if s.InstructionsFunc != nil {
		more, err := s.InstructionsFunc(st.ctx, st.rc)
		if err != nil {
			return nil, nil, fmt.Errorf("instructions: %w", err)
		}
		instructions = append(append([]string(nil), instructions...), more...)
	}
	if s.Markdown && st.schema == nil {
		info = append(info, "Use markdown to format your answers.")
	}
	if s.AddDatetime {
		now := time.Now()
		if s.Timezone != nil {
			now = now.In(s.Timezone)
		}
		info = append(info, fmt.Sprintf("The current time is %s.", now.Format("2006-01-02 15:04:05.000000")))
	}
	if s.Name != "" && s.AddNameToContext {
		info = append(info, fmt.Sprintf("Your name is: %s.", s.Name))
	}
	return instructions, info, nil
}

func writeInstructions(b *strings.Builder, instructions []string, tags bool) {
	if len(instructions) == 0 {
		return
	}
	switch {
	case tags:
		b.WriteString("<instructions>")
		if len(instructions) > 1 {
			for _, in := range instructions {
				b.WriteString("\n- " + in)
			}
		} else {
			b.WriteString("\n" + instructions[0])
		}
		b.WriteString("\n</instructions>\n\n")
	case len(instructions) > 1:
		for _, in := range instructions {
			b.WriteString("- ")
			b.WriteString(in)
			b.WriteByte('\n')
		}
	default:
		b.WriteString(instructions[0])
		b.WriteString("\n\n")
	}
}

func writeInfo(b *strings.Builder, info []string) {
	if len(info) == 0 {
		return
	}
	b.WriteString("<additional_information>")
	for _, i := range info {
		b.WriteString("\n- " + i)
	}
	b.WriteString("\n</additional_information>\n\n")
}

// writeMemories adds the user's memories (agno's memories block).
func (st *runState) writeMemories(b *strings.Builder) {
	s := st.spec
	if !s.memoriesInContext || s.MemoryManager == nil {
		return
	}
	mems, err := s.MemoryManager.UserMemories(st.ctx, st.rc.UserID)
	if err != nil {
		s.logger.Warn("could not read user memories", "user_id", st.rc.UserID, "error", err)
		return
	}
	b.WriteString(memory.RenderMemories(mems, s.EnableAgenticMemory))
}

func (st *runState) writeSummary(b *strings.Builder) {
	if st.session == nil || st.session.Summary == nil || st.session.Summary.Summary == "" || !st.spec.summaryInContext {
		return
	}
	b.WriteString("Here is a brief summary of your previous interactions:\n\n<summary_of_previous_interactions>\n")
	b.WriteString(st.session.Summary.Summary)
	b.WriteString("\n</summary_of_previous_interactions>\n\nNote: this information is from previous interactions and may be outdated. You should ALWAYS prefer information from this conversation over the past summary.\n\n")
}

// teamSystemMessage builds a team leader's system message in agno's team
// order: team context, description, role, instructions, summary, then
// additional information, tool instructions, expected output, additional
// context, session state and the JSON prompt; {var} substitution last.
func (st *runState) teamSystemMessage() (string, error) {
	s := st.spec
	instructions, info, err := st.instructionsAndInfo()
	if err != nil {
		return "", err
	}
	var b strings.Builder
	if s.TeamContext != nil {
		b.WriteString(s.TeamContext(st.rc))
	}
	if s.Description != "" {
		b.WriteString("<description>\n" + s.Description + "\n</description>\n\n")
	}
	if s.Role != "" {
		b.WriteString("<your_role>\n" + s.Role + "\n</your_role>\n\n")
	}
	writeInstructions(&b, instructions, s.UseInstructionTags)
	b.WriteString(st.knowledgeContext())
	st.writeMemories(&b)
	st.writeSummary(&b)
	writeInfo(&b, info)
	for _, ti := range s.toolInstr {
		b.WriteString(ti + "\n")
	}
	if s.ExpectedOutput != "" {
		b.WriteString("<expected_output>\n" + strings.TrimSpace(s.ExpectedOutput) + "\n</expected_output>\n\n")
	}
	if s.AdditionalContext != "" {
		b.WriteString("<additional_context>\n" + strings.TrimSpace(s.AdditionalContext) + "\n</additional_context>\n\n")
	}
	if s.AddSessionStateToContext {
		b.WriteString("\n<session_state>\n" + pythonRepr(st.rc.StateSnapshot()) + "\n</session_state>\n\n")
	}
	if st.schema != nil && st.needsJSONPrompt() {
		b.WriteString(st.jsonOutputPrompt())
	}
	content := b.String()
	if !off(s.ResolveInContext) {
		content = st.substitute(content)
	}
	return strings.TrimSpace(content), nil
}

// needsJSONPrompt: a schema the provider cannot enforce is asked for in
// the prompt (agno 3.3.15).
func (st *runState) needsJSONPrompt() bool {
	info := st.spec.Model.Info()
	return !(info.NativeStructuredOutputs && !st.spec.UseJSONMode)
}

// responseFormat chooses the provider's structured-output mode (§1.9).
func (st *runState) responseFormat(info model.Info) *model.ResponseFormat {
	os := st.schema
	if os == nil {
		return nil
	}
	if info.NativeStructuredOutputs && !st.spec.UseJSONMode {
		return &model.ResponseFormat{Type: "json_schema", Name: os.Name, Schema: os.Schema, Strict: os.Strict}
	}
	if info.JSONMode {
		return &model.ResponseFormat{Type: "json_object"}
	}
	return nil
}

// jsonOutputPrompt is the run's schema prompt: the spec's, made once at
// Prepare, or the request's own.
func (st *runState) jsonOutputPrompt() string {
	if st.schema == st.spec.OutputSchema && st.spec.schemaPrompt != "" {
		return st.spec.schemaPrompt
	}
	return jsonOutputPrompt(st.schema)
}

// jsonOutputPrompt asks for JSON matching the schema, as agno's
// get_json_output_prompt: field names in declaration order and their
// properties, rendered with Python's json.dumps.
func jsonOutputPrompt(os *OutputSchema) string {
	var b strings.Builder
	b.WriteString("Provide your output as a JSON containing the following fields:")
	props, names := schemaProperties(os.Schema)
	if len(names) > 0 {
		list := make([]any, len(names))
		for i, n := range names {
			list[i] = n
		}
		nb, _ := pyjson.Dumps(list)
		b.WriteString("\n<json_fields>\n" + nb + "\n</json_fields>")
		b.WriteString("\n\nHere are the properties for each field:\n<json_field_properties>\n")
		pb, _ := pyjson.DumpsOpts(props, pyjson.Options{Indent: 2})
		b.WriteString(pb + "\n</json_field_properties>")
	}
	b.WriteString("\nStart your response with `{` and end it with `}`.")
	b.WriteString("\nYour output will be passed to json.loads() to convert it to a Python object.")
	b.WriteString("\nMake sure it only contains valid JSON.")
	return b.String()
}

// schemaProperties returns a schema's "properties" (order kept) and the
// property names in order.
func schemaProperties(schema json.RawMessage) (json.RawMessage, []string) {
	var top map[string]json.RawMessage
	if json.Unmarshal(schema, &top) != nil || len(top["properties"]) == 0 {
		return nil, nil
	}
	dec := json.NewDecoder(strings.NewReader(string(top["properties"])))
	var names []string
	if tok, err := dec.Token(); err != nil || tok != json.Delim('{') {
		return nil, nil
	}
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			break
		}
		names = append(names, tok.(string))
		var skip json.RawMessage
		if dec.Decode(&skip) != nil {
			break
		}
	}
	return top["properties"], names
}

var varPattern = regexp.MustCompile(`\{([A-Za-z_][A-Za-z0-9_]*)\}`)

// substitute replaces {var} from session state ▸ dependencies ▸ metadata
// ▸ user_id; unknown names stay as written (agno's safe_substitute).
func (st *runState) substitute(msg string) string {
	if !strings.Contains(msg, "{") {
		return msg
	}
	state := st.rc.StateSnapshot()
	return varPattern.ReplaceAllStringFunc(msg, func(m string) string {
		name := m[1 : len(m)-1]
		for _, src := range []map[string]any{state, st.rc.Dependencies, st.rc.Metadata} {
			if v, ok := src[name]; ok {
				return pythonStr(v)
			}
		}
		if name == "user_id" && st.rc.UserID != "" {
			return st.rc.UserID
		}
		return m
	})
}

// addHistory prepends earlier runs' messages of this session (§9).
func (st *runState) addHistory() error {
	s := st.spec
	on := s.AddHistoryToContext
	if st.req.AddHistory != nil {
		on = *st.req.AddHistory
	}
	if !on || s.Store == nil || st.h.NewSession() {
		return nil // a session this run created has no history
	}
	q := storage.RunQuery{
		SessionID:   st.out.SessionID,
		ComponentID: s.ID,
		TopLevel:    !st.req.HistoryOfChildRuns,
		Status:      []run.Status{run.StatusCompleted},
		Newest:      true,
	}
	if s.historyRuns > 0 {
		q.Limit = s.historyRuns
	}
	recs, err := s.Store.ListRuns(st.ctx, q)
	if err != nil {
		return fmt.Errorf("read history: %w", err)
	}
	// agno drops the system message role from history only when it is not
	// a conversation role: with "user" that would drop every user turn.
	skipRole := s.systemRole
	if skipRole == model.RoleUser || skipRole == model.RoleAssistant || skipRole == model.RoleTool {
		skipRole = ""
	}
	var hist []model.Message
	for i := len(recs) - 1; i >= 0; i-- {
		if recs[i].RunID == st.out.RunID {
			continue
		}
		var past struct {
			Messages []model.Message `json:"messages"`
		}
		if err := json.Unmarshal(recs[i].Data, &past); err != nil {
			s.logger.Warn("skipping unreadable run in history", "run_id", recs[i].RunID, "error", err)
			continue
		}
		for _, m := range past.Messages {
			if m.FromHistory || (skipRole != "" && m.Role == skipRole) || m.Role == model.RoleSystem {
				continue
			}
			m.FromHistory = true
			hist = append(hist, m)
		}
	}
	if s.historyMessages > 0 && len(hist) > s.historyMessages {
		hist = hist[len(hist)-s.historyMessages:]
		for len(hist) > 0 && hist[0].Role == model.RoleTool {
			hist = hist[1:]
		}
	}
	st.messages = append(st.messages, hist...)
	return nil
}
