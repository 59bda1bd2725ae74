package geminiinteractions

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"strings"
	"time"

	"google.golang.org/genai/interactions/models/apierrors"
	"google.golang.org/genai/interactions/models/interactions"
	"google.golang.org/genai/interactions/models/operations"

	"github.com/agno-go/agno/internal/httpretry"
	"github.com/agno-go/agno/model"
)

// pendingCall is a function call whose arguments are still streaming.
type pendingCall struct {
	id, name string
	args     strings.Builder
	whole    map[string]any
}

// stream yields text and thought summaries as their deltas arrive, then
// one final chunk with the calls, usage and interaction id, as agno's
// _parse_provider_response_delta reads the events.
func (m *Model) stream(ctx context.Context, res *operations.CreateInteractionResponse, start time.Time, yield func(*model.Chunk, error) bool) {
	es := res.InteractionSSEStreamEvent
	if es == nil {
		yield(nil, &model.ProviderError{Provider: ProviderName, Model: m.id, Message: "the response is not an event stream"})
		return
	}
	defer es.Close()
	final := &model.Chunk{}
	calls := map[int]*pendingCall{}
	var order []int
	var first time.Duration
	completed := false
	emit := func(c *model.Chunk) bool {
		if first == 0 {
			first = time.Since(start)
		}
		return yield(c, nil)
	}
	for es.Next() {
		ev := es.Value().Data
		switch {
		case ev.InteractionCreatedEvent != nil:
			if id := ev.InteractionCreatedEvent.Interaction.ID; id != "" {
				setData(final, InteractionIDKey, id)
			}
		case ev.StepStart != nil:
			st := ev.StepStart.Step
			switch {
			case st.FunctionCallStep != nil:
				calls[ev.StepStart.Index] = &pendingCall{id: st.FunctionCallStep.ID, name: st.FunctionCallStep.Name, whole: st.FunctionCallStep.Arguments}
				order = append(order, ev.StepStart.Index)
			case st.ModelOutputStep != nil:
				for _, ct := range st.ModelOutputStep.Content {
					if ct.TextContent != nil && ct.TextContent.Text != "" && !emit(&model.Chunk{Content: ct.TextContent.Text}) {
						return
					}
				}
			case st.ThoughtStep != nil:
				if s := st.ThoughtStep.Signature; s != nil && *s != "" {
					setData(final, "thought_signature", *s)
				}
				for _, s := range st.ThoughtStep.Summary {
					if s.TextContent != nil && s.TextContent.Text != "" && !emit(&model.Chunk{ReasoningContent: s.TextContent.Text}) {
						return
					}
				}
			}
		case ev.StepDelta != nil:
			d := ev.StepDelta.Delta
			switch {
			case d.TextDelta != nil:
				if d.TextDelta.Text != "" && !emit(&model.Chunk{Content: d.TextDelta.Text}) {
					return
				}
			case d.ThoughtSummaryDelta != nil:
				if c := d.ThoughtSummaryDelta.Content; c != nil && c.TextContent != nil && c.TextContent.Text != "" {
					if !emit(&model.Chunk{ReasoningContent: c.TextContent.Text}) {
						return
					}
				}
			case d.ThoughtSignatureDelta != nil:
				if s := d.ThoughtSignatureDelta.Signature; s != nil && *s != "" {
					setData(final, "thought_signature", *s)
				}
			case d.ArgumentsDelta != nil:
				if pc := calls[ev.StepDelta.Index]; pc != nil && d.ArgumentsDelta.Arguments != nil {
					pc.args.WriteString(*d.ArgumentsDelta.Arguments)
				}
			}
		case ev.InteractionCompletedEvent != nil:
			in := ev.InteractionCompletedEvent.Interaction
			switch in.Status {
			case "failed", "cancelled", "incomplete":
				yield(nil, &model.ProviderError{Provider: ProviderName, Model: m.id, Message: "interaction ended with status " + string(in.Status)})
				return
			}
			completed = true
			final.Usage = usageOf(in.Usage)
			if in.ID != "" {
				setData(final, InteractionIDKey, in.ID)
			}
		case ev.ErrorEvent != nil:
			msg := "stream error"
			if e := ev.ErrorEvent.Error; e != nil && e.Message != nil {
				msg = *e.Message
			}
			pe := &model.ProviderError{Provider: ProviderName, Model: m.id, Message: msg}
			if e := ev.ErrorEvent.Error; e != nil && e.Code != nil {
				pe.StatusCode = statusOfCode[strings.ToUpper(*e.Code)]
			}
			yield(nil, pe)
			return
		}
	}
	if err := es.Err(); err != nil {
		yield(nil, m.convertError(ctx, err))
		return
	}
	if err := ctx.Err(); err != nil {
		yield(nil, err)
		return
	}
	if !completed {
		yield(nil, &model.ProviderError{Provider: ProviderName, Model: m.id, Message: "stream ended before interaction.completed"})
		return
	}
	for _, i := range order {
		pc := calls[i]
		args := strings.TrimSpace(pc.args.String())
		if args == "" {
			args = "{}"
			if pc.whole != nil {
				b, _ := json.Marshal(pc.whole)
				args = string(b)
			}
		}
		final.ToolCalls = append(final.ToolCalls, model.NewToolCall(pc.id, pc.name, args))
	}
	final.FinishReason = finishReason(final.ToolCalls)
	if final.Usage != nil {
		final.Usage.TimeToFirstToken = first
	}
	yield(final, nil)
}

// statusOfCode gives the HTTP status of a google.rpc.Code name, for an
// error whose status is only named.
var statusOfCode = map[string]int{
	"INVALID_ARGUMENT":    http.StatusBadRequest,
	"FAILED_PRECONDITION": http.StatusBadRequest,
	"UNAUTHENTICATED":     http.StatusUnauthorized,
	"PERMISSION_DENIED":   http.StatusForbidden,
	"NOT_FOUND":           http.StatusNotFound,
	"RESOURCE_EXHAUSTED":  http.StatusTooManyRequests,
	"INTERNAL":            http.StatusInternalServerError,
	"UNAVAILABLE":         http.StatusServiceUnavailable,
	"DEADLINE_EXCEEDED":   http.StatusGatewayTimeout,
}

// contextOverflowPhrases are how the API words an input over the window.
var contextOverflowPhrases = []string{"exceeds the maximum number of tokens", "input token count", "context window", "too many tokens"}

// convertError turns an SDK error into a *model.ProviderError; a cancelled
// or expired ctx is returned as ctx.Err(). The SDK reports a failed status
// as a typed error when the body fits its error schema, else with the raw
// body (Google's {"error": {"code": 429, "message", "status"}}), which is
// read here.
func (m *Model) convertError(ctx context.Context, err error) error {
	if ctxErr := ctx.Err(); ctxErr != nil {
		return ctxErr
	}
	pe := &model.ProviderError{Provider: ProviderName, Model: m.id, Message: err.Error(), Err: err}
	var (
		ce   *apierrors.CreateInteractionClientError
		se   *apierrors.CreateInteractionServerError
		ae   *apierrors.APIError
		ve   *apierrors.ResponseValidationError
		ier  *interactions.Error
		body string
	)
	var res *http.Response
	switch {
	case errors.As(err, &ce):
		ier, res = &ce.Error_, ce.HTTPMeta.Response
	case errors.As(err, &se):
		ier, res = &se.Error_, se.HTTPMeta.Response
	case errors.As(err, &ae):
		res, pe.StatusCode, body = ae.RawResponse, ae.StatusCode, ae.Body
	case errors.As(err, &ve):
		res, pe.StatusCode, body = ve.RawResponse, ve.StatusCode, ve.Body
	}
	if res != nil {
		pe.StatusCode = res.StatusCode
		// The retry transport turned a RetryInfo delay into Retry-After-Ms.
		pe.RetryAfter, _ = httpretry.RetryAfter(res.Header)
	}
	code := ""
	if ier != nil {
		if ier.Message != nil {
			pe.Message = *ier.Message
		}
		if ier.Code != nil {
			code = *ier.Code
		}
	} else if body != "" {
		var wire struct {
			Error struct {
				Message string `json:"message"`
				Status  string `json:"status"`
				Code    any    `json:"code"`
			} `json:"error"`
		}
		if json.Unmarshal([]byte(body), &wire) == nil && wire.Error.Message != "" {
			pe.Message, code = wire.Error.Message, wire.Error.Status
		} else {
			pe.Message = strings.TrimSpace(body)
		}
	}
	if pe.StatusCode == 0 && code != "" {
		pe.StatusCode = statusOfCode[strings.ToUpper(code)]
	}
	if len(pe.Message) > 1024 {
		pe.Message = pe.Message[:1024] + "…"
	}
	if pe.StatusCode == http.StatusBadRequest {
		lower := strings.ToLower(pe.Message)
		for _, p := range contextOverflowPhrases {
			if strings.Contains(lower, p) {
				pe.ContextOverflow = true
				break
			}
		}
	}
	return pe
}
