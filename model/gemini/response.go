package gemini

import (
	"crypto/rand"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"strings"

	"google.golang.org/genai"

	"github.com/agno-go/agno/model"
)

// accumulator folds the responses of one call (one body, or the events
// of a stream) into the final chunk.
type accumulator struct {
	calls     []model.ToolCall
	callSigs  map[string]any
	textSig   string
	reason    genai.FinishReason
	blocked   string
	usage     *genai.GenerateContentResponseUsageMetadata
	respID    string
	finished  bool
	modelVers string
}

func newAccumulator() *accumulator { return &accumulator{} }

// add takes one response and returns its text and thought-summary text.
func (a *accumulator) add(resp *genai.GenerateContentResponse) (text, reasoning string) {
	if resp == nil {
		return "", ""
	}
	if resp.UsageMetadata != nil {
		// Streamed counts are cumulative: the last one is the total.
		a.usage = resp.UsageMetadata
	}
	a.respID = cmpOr(resp.ResponseID, a.respID)
	a.modelVers = cmpOr(resp.ModelVersion, a.modelVers)
	if pf := resp.PromptFeedback; pf != nil && pf.BlockReason != "" {
		a.blocked = string(pf.BlockReason)
		a.finished = true
	}
	if len(resp.Candidates) == 0 || resp.Candidates[0] == nil {
		return "", ""
	}
	cand := resp.Candidates[0]
	if cand.FinishReason != "" && cand.FinishReason != genai.FinishReasonUnspecified {
		a.reason = cand.FinishReason
		a.finished = true
	}
	if cand.Content == nil {
		return "", ""
	}
	var tb, rb strings.Builder
	for _, p := range cand.Content.Parts {
		if p == nil {
			continue
		}
		sig := ""
		if len(p.ThoughtSignature) > 0 {
			sig = base64.StdEncoding.EncodeToString(p.ThoughtSignature)
		}
		if fc := p.FunctionCall; fc != nil {
			id := fc.ID
			if id == "" {
				id = localCallID()
			}
			args := "{}"
			if fc.Args != nil {
				if b, err := json.Marshal(fc.Args); err == nil {
					args = string(b)
				}
			}
			a.calls = append(a.calls, model.NewToolCall(id, fc.Name, args))
			if sig != "" {
				if a.callSigs == nil {
					a.callSigs = map[string]any{}
				}
				a.callSigs[id] = sig
			}
			continue
		}
		if p.Thought {
			rb.WriteString(p.Text)
		} else {
			tb.WriteString(p.Text)
		}
		if sig != "" {
			// A signature may come on an empty text part at the end.
			a.textSig = sig
		}
	}
	return tb.String(), rb.String()
}

// final is the last chunk: tool calls, finish reason, usage, and what the
// next turn needs back (thought signatures).
func (a *accumulator) final() *model.Chunk {
	c := &model.Chunk{ToolCalls: a.calls, FinishReason: a.finishReason(), Usage: usage(a.usage)}
	pd := map[string]any{}
	if a.textSig != "" {
		pd[thoughtSignatureKey] = a.textSig
	}
	if len(a.callSigs) > 0 {
		pd[toolCallSignaturesKey] = a.callSigs
	}
	if a.respID != "" {
		pd["response_id"] = a.respID
	}
	if a.blocked != "" {
		pd["block_reason"] = a.blocked
	}
	if len(pd) > 0 {
		c.ProviderData = pd
	}
	return c
}

// finishReason maps Gemini's finish reasons onto OpenAI's words, which
// the rest of agno-go speaks; one without an equivalent is lower-cased.
func (a *accumulator) finishReason() string {
	if len(a.calls) > 0 {
		return "tool_calls"
	}
	if a.blocked != "" && a.reason == "" {
		return "content_filter"
	}
	switch a.reason {
	case genai.FinishReasonStop, "":
		return "stop"
	case genai.FinishReasonMaxTokens:
		return "length"
	case genai.FinishReasonSafety, genai.FinishReasonRecitation, genai.FinishReasonBlocklist,
		genai.FinishReasonProhibitedContent, genai.FinishReasonSPII, genai.FinishReasonImageSafety,
		genai.FinishReasonImageProhibitedContent, genai.FinishReasonImageRecitation, genai.FinishReasonModelArmor:
		return "content_filter"
	}
	return strings.ToLower(string(a.reason))
}

// usage is agno's metrics of Gemini's usage: output is the candidates'
// tokens, thoughts are reasoning tokens, the total is input + output.
func usage(u *genai.GenerateContentResponseUsageMetadata) *model.Usage {
	if u == nil {
		return &model.Usage{}
	}
	out := &model.Usage{
		InputTokens:     int(u.PromptTokenCount),
		OutputTokens:    int(u.CandidatesTokenCount),
		ReasoningTokens: int(u.ThoughtsTokenCount),
		CacheReadTokens: int(u.CachedContentTokenCount),
	}
	out.TotalTokens = out.InputTokens + out.OutputTokens
	return out
}

func localCallID() string {
	var b [12]byte
	_, _ = rand.Read(b[:])
	return localCallIDPrefix + hex.EncodeToString(b[:])
}
