// Package providertest is the conformance suite every model provider
// runs: the same checks of text, streaming, tool calls, usage, structured
// output, reasoning, images, errors, retries and cancellation, made
// against the provider's real SDK client talking to a fake of its vendor's
// server.
//
// A provider's test supplies a Harness: the name it registered under with
// model.RegisterProvider, and a Start function that runs a fake server
// speaking the vendor's documented wire format, answering the abstract
// Turns the suite scripts. The suite builds the model through the
// registry, pointed at the fake, so a new provider gets the whole suite
// by writing its fake:
//
//	func TestConformance(t *testing.T) {
//		providertest.Run(t, providertest.Harness{Provider: "acme", Start: startAcmeFake})
//	}
package providertest

import (
	"encoding/json"
	"net/http"
	"testing"
	"time"
)

// APIKey is the key the suite builds every model with. A fake answers a
// request that does not carry it, the vendor's way, with the vendor's 401.
const APIKey = "sk-providertest-0123456789"

// MaxRetries is the ProviderSettings.MaxRetries of every model the suite
// builds: a retryable failure is sent 1+MaxRetries times.
const MaxRetries = 2

// Harness is what a provider supplies to run the suite.
type Harness struct {
	// Provider is the name the provider registered under ("openai").
	Provider string
	// ID is the model id to build; "" builds the provider's default.
	ID string
	// Options are passed to the provider's New; nil is its defaults. The
	// same value is used for every model the suite builds.
	Options any
	// Start starts a fake of the vendor's server that answers requests
	// with turns in order, repeating the last one. The suite closes it.
	Start func(t *testing.T, turns ...Turn) Fake
	// Unsupported names the features the vendor does not have, each with
	// the reason; the suite skips their checks and says why.
	Unsupported map[Feature]string
}

// Feature is something a vendor may lack.
type Feature string

// Features a Harness may declare unsupported.
const (
	// Reasoning: the vendor returns the model's reasoning (thinking) text.
	Reasoning Feature = "reasoning"
	// Images: user messages may carry images.
	Images Feature = "images"
	// ToolCalls: the model calls tools, several in one turn.
	ToolCalls Feature = "tool calls"
)

var features = []Feature{Reasoning, Images, ToolCalls}

// Turn is one scripted answer, in vendor-neutral terms; a fake renders it
// in its vendor's wire format (a JSON body, or an event stream when the
// request asked for one).
type Turn struct {
	// Text is the answer's text as its streamed deltas: each element is
	// one delta on the wire; a JSON body carries their concatenation.
	Text []string
	// Reasoning is the reasoning (thinking) text, likewise in deltas. It
	// comes before Text, as vendors send it.
	Reasoning []string
	// ToolCalls are the calls the model makes, in order after Text. A
	// stream splits each call's arguments across several deltas.
	ToolCalls []ToolCall
	// InputTokens and OutputTokens are the usage the vendor reports.
	InputTokens, OutputTokens int

	// Status, when non-zero, fails the request with this HTTP status and
	// the vendor's error body carrying ErrorMessage. RetryAfter is sent
	// in the vendor's retry header (whole seconds, if that is all the
	// vendor sends, rounded down).
	Status       int
	ErrorMessage string
	RetryAfter   time.Duration

	// End is how a streamed response ends; it applies after all deltas.
	End Ending
}

// ToolCall is a call the model makes: Arguments is the JSON object text.
type ToolCall struct {
	ID, Name, Arguments string
}

// Ending is how a fake ends a streamed response.
type Ending int

const (
	// Complete ends it as the vendor does (finish reason, usage, end event).
	Complete Ending = iota
	// Stall keeps the connection open after the deltas, sending nothing
	// more, until the client goes away (Fake.Disconnected then fires) or
	// the fake is closed.
	Stall
	// Cut drops the connection after the deltas, without the stream's end
	// and without finishing the HTTP body, as a failing network does.
	Cut
)

// Fake is a running fake vendor server.
type Fake interface {
	// URL is the base URL the provider is configured with.
	URL() string
	// Requests returns the requests received so far, in order, failed
	// and retried ones included.
	Requests() []Request
	// Disconnected is closed once a client has gone away from a stalled
	// stream: the server saw the connection close.
	Disconnected() <-chan struct{}
	// Close ends stalled streams, shuts the server down and waits for its
	// handlers. It may be called more than once.
	Close()
}

// Request is a request as a fake received it, read from the vendor's wire
// format into what the suite checks.
type Request struct {
	Header http.Header
	// Body is the raw body, for failure messages.
	Body []byte
	// Model is the model id the request names.
	Model string
	// Stream reports whether the request asked for an event stream.
	Stream bool
	// UserText is the text of each user message, in order.
	UserText []string
	// Images are the images of the user messages, in order.
	Images []Image
	// Tools are the names of the tools offered, in order.
	Tools []string
	// ResponseSchema is the JSON schema the request asks the vendor to
	// enforce on the answer, where the vendor takes one; nil when none.
	ResponseSchema json.RawMessage
}

// Image is an image as a request carries it: by URL, or inline.
type Image struct {
	URL       string
	MediaType string
	Data      []byte
}
