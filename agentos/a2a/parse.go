package a2a

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/agno-go/agno/internal/pyjson"
	"github.com/agno-go/agno/model"
)

// ErrNotUser is agno's refusal of a message not sent by the user.
//
//lint:ignore ST1005 agno's message, word for word
var ErrNotUser = errors.New("Only user messages are accepted")

// InvalidError is a request a2a-sdk's models would not validate; agno
// answers it 400 "Invalid A2A request: …".
type InvalidError struct{ Msg string }

func (e *InvalidError) Error() string { return "Invalid A2A request: " + e.Msg }

func invalid(format string, a ...any) error { return &InvalidError{Msg: fmt.Sprintf(format, a...)} }

// ParseRequest reads the JSON-RPC envelope.
func ParseRequest(body []byte) (*Request, error) {
	var req Request
	dec := json.NewDecoder(bytes.NewReader(body))
	dec.UseNumber()
	if err := dec.Decode(&req); err != nil {
		return nil, invalid("the body is not a JSON-RPC object: %v", err)
	}
	return &req, nil
}

// ParseSend validates a message/send or message/stream request as
// a2a-sdk's SendMessageRequest does: jsonrpc "2.0", an id, and a
// message with messageId, role and well-formed parts.
func ParseSend(req *Request) (*SendParams, error) {
	if req.JSONRPC != "2.0" {
		return nil, invalid("jsonrpc must be \"2.0\"")
	}
	if len(req.ID) == 0 || !(req.ID[0] == '"' || req.ID[0] == '-' || (req.ID[0] >= '0' && req.ID[0] <= '9')) {
		return nil, invalid("id is required (a string or an integer)")
	}
	var p SendParams
	if len(req.Params) == 0 {
		return nil, invalid("params is required: {\"message\": {...}}")
	}
	if err := json.Unmarshal(req.Params, &p); err != nil {
		return nil, invalid("params: %v", err)
	}
	m := p.Message
	if m == nil {
		return nil, invalid("params.message is required")
	}
	if m.MessageID == "" {
		return nil, invalid("params.message.messageId is required")
	}
	if m.Kind != "" && m.Kind != KindMessage {
		return nil, invalid("params.message.kind must be \"message\"")
	}
	if m.Role != "user" && m.Role != "agent" {
		return nil, invalid("params.message.role must be \"user\" or \"agent\"")
	}
	if m.Parts == nil {
		return nil, invalid("params.message.parts is required")
	}
	for i, part := range m.Parts {
		if err := checkPart(part); err != nil {
			return nil, invalid("params.message.parts[%d]: %v", i, err)
		}
	}
	if m.Role != "user" {
		return nil, ErrNotUser
	}
	return &p, nil
}

func checkPart(p Part) error {
	switch p.Kind {
	case "text":
	case "file":
		if p.File == nil || (p.File.URI == "" && p.File.Bytes == "") {
			return errors.New("a file part needs file.uri or file.bytes")
		}
	case "data":
		if p.Data == nil {
			return errors.New("a data part needs data (an object)")
		}
	default:
		return fmt.Errorf("kind %q is not text, file or data", p.Kind)
	}
	return nil
}

// Input is a message mapped to a run's input (agno's
// map_a2a_request_to_run_input).
type Input struct {
	Text   string
	Images []model.Image
	Files  []model.File
}

// MapInput joins the text parts (data parts as json.dumps) with "\n";
// files with a mime type become images or files, others are skipped.
func MapInput(m *Message) (Input, error) {
	var in Input
	var texts []string
	for _, p := range m.Parts {
		switch p.Kind {
		case "text":
			texts = append(texts, p.Text)
		case "data":
			s, err := dumpsRaw(p.raw)
			if err != nil {
				return in, invalid("data part: %v", err)
			}
			texts = append(texts, s)
		case "file":
			f := p.File
			if f.MimeType == "" {
				continue
			}
			if f.URI != "" {
				if !strings.HasPrefix(f.MimeType, "image/") {
					return in, invalid("file part %q (%s): only images can be sent by uri; send other files inline as file.bytes (base64)", f.URI, f.MimeType)
				}
				in.Images = append(in.Images, model.Image{URL: f.URI})
				continue
			}
			b, err := base64.StdEncoding.DecodeString(f.Bytes)
			if err != nil {
				return in, invalid("file part: bytes are not base64: %v", err)
			}
			in.Files = append(in.Files, model.File{Filename: f.Name, Content: b, MimeType: f.MimeType})
		}
	}
	in.Text = strings.Join(texts, "\n")
	return in, nil
}

// Requirements returns the "requirements" of the message's data parts:
// how a client answers a paused (input-required) task.
func Requirements(m *Message) []any { return dataList(m, "requirements") }

// StepRequirements are the answered step requirements of a workflow's
// paused task: a data part {"step_requirements": [...]}, as its status
// message carried them.
func StepRequirements(m *Message) []any { return dataList(m, "step_requirements") }

// dataList is the last non-empty list under key in m's data parts.
func dataList(m *Message, key string) []any {
	var out []any
	for _, p := range m.Parts {
		if p.Kind != "data" {
			continue
		}
		if r, ok := p.Data[key].([]any); ok && len(r) > 0 {
			out = r
		}
	}
	return out
}

// dumpsRaw is Python's json.dumps(json.loads(raw)): the same keys in the
// same order, numbers as Python prints them, ", " and ": " separators.
func dumpsRaw(raw []byte) (string, error) {
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	var b strings.Builder
	var stack []bool // per open container: object?
	first := []bool{true}
	expectKey := false
	for {
		tok, err := dec.Token()
		if err == io.EOF {
			return b.String(), nil
		}
		if err != nil {
			return "", err
		}
		if d, ok := tok.(json.Delim); ok && (d == '}' || d == ']') {
			b.WriteRune(rune(d))
			stack, first = stack[:len(stack)-1], first[:len(first)-1]
			expectKey = len(stack) > 0 && stack[len(stack)-1]
			continue
		}
		inObj := len(stack) > 0 && stack[len(stack)-1]
		if inObj && expectKey {
			if !first[len(first)-1] {
				b.WriteString(", ")
			}
			first[len(first)-1] = false
			k, err := pyjson.Dumps(tok.(string))
			if err != nil {
				return "", err
			}
			b.WriteString(k + ": ")
			expectKey = false
			continue
		}
		if !inObj && len(stack) > 0 {
			if !first[len(first)-1] {
				b.WriteString(", ")
			}
			first[len(first)-1] = false
		}
		if d, ok := tok.(json.Delim); ok {
			b.WriteRune(rune(d))
			stack, first = append(stack, d == '{'), append(first, true)
			expectKey = d == '{'
			continue
		}
		v, err := pyjson.Dumps(tok)
		if err != nil {
			return "", err
		}
		b.WriteString(v)
		expectKey = inObj
	}
}
