package slack

import (
	"encoding/json"
	"errors"
	"net/http"
	"net/url"
	"strings"
	"time"

	"github.com/agno-go/agno/run"
)

// InteractionsRoute is the pattern of the interactions route.
func (c *Config) InteractionsRoute() string { return "POST " + c.Prefix + interactionsPath }

// InteractionsPath is the interactions URL path, left, like the events
// path, to the signature check instead of AgentOS's key.
func (c *Config) InteractionsPath() string { return c.Prefix + interactionsPath }

// InteractionsRouteSummary documents InteractionsRoute.
const InteractionsRouteSummary = "Process Slack interactive components (HITL approvals)"

// Action is one click on an approval card: agno's row approve / reject
// and Submit, with what the card said when it was clicked.
type Action struct {
	// ID is ActionApprove, ActionReject or ActionSubmit.
	ID string
	// RequirementID is the clicked row (approve and reject).
	RequirementID string
	RunID         string
	// AwaitingTS is the "⏸ Awaiting…" message, deleted once answered.
	AwaitingTS string
	// Channel, MessageTS (the card) and ThreadTS locate the card.
	Channel, MessageTS, ThreadTS string
	User, Team                   string
	// Decisions are the confirmations decided on the card so far, Values
	// what was typed: Card's fields.
	Decisions map[string]string
	Values    map[string]map[string]StateValue
}

// Card is the card the action was clicked on, for requirements.
func (a *Action) Card(reqs []*run.Requirement) *Card {
	return &Card{RunID: a.RunID, AwaitingTS: a.AwaitingTS, Requirements: reqs, Decisions: a.Decisions, Values: a.Values}
}

// Interactions answers POST {prefix}/interactions as agno's router: it
// checks the signature, acknowledges at once (Slack wants an answer
// within 3 s) and hands the card clicks to Handle, which must not block.
type Interactions struct {
	Config *Config
	Handle func(Action) error
	// Now is the clock of the timestamp window (default time.Now).
	Now func() time.Time
}

func (h *Interactions) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	body, ok := signedBody(w, r, h.Config.SigningSecret, h.Now, "interaction")
	if !ok {
		return
	}
	form, err := url.ParseQuery(string(body))
	if err != nil || form.Get("payload") == "" {
		writeDetail(w, http.StatusBadRequest, "Missing payload: Slack sends the interaction as the form field payload")
		return
	}
	a, ok, err := ParseAction([]byte(form.Get("payload")))
	if err != nil {
		writeDetail(w, http.StatusBadRequest, "Invalid payload: "+err.Error())
		return
	}
	if ok {
		if err := h.Handle(a); err != nil {
			writeHandoffError(w, err)
			return
		}
	}
	writeOK(w)
}

type interactionPayload struct {
	Type    string `json:"type"`
	User    struct{ ID string }
	Team    struct{ ID string }
	Channel struct{ ID string }
	Message struct {
		TS       string `json:"ts"`
		ThreadTS string `json:"thread_ts"`
		Blocks   []struct {
			BlockID string `json:"block_id"`
		} `json:"blocks"`
	} `json:"message"`
	Container struct {
		MessageTS string `json:"message_ts"`
		ChannelID string `json:"channel_id"`
		ThreadTS  string `json:"thread_ts"`
	} `json:"container"`
	State struct {
		Values map[string]map[string]struct {
			Value          string `json:"value"`
			SelectedOption *struct {
				Value string `json:"value"`
			} `json:"selected_option"`
			SelectedOptions []struct {
				Value string `json:"value"`
			} `json:"selected_options"`
		} `json:"values"`
	} `json:"state"`
	Actions []struct {
		ActionID string `json:"action_id"`
		BlockID  string `json:"block_id"`
		Value    string `json:"value"`
	} `json:"actions"`
}

// ParseAction reads a block_actions payload; ok is false for anything
// that is not a click on an approval card (agno ignores those).
func ParseAction(payload []byte) (a Action, ok bool, err error) {
	var p interactionPayload
	if err := json.Unmarshal(payload, &p); err != nil {
		return Action{}, false, err
	}
	if p.Type != "block_actions" || len(p.Actions) == 0 {
		return Action{}, false, nil
	}
	act := p.Actions[0]
	a = Action{ID: act.ActionID, User: p.User.ID, Team: p.Team.ID, Channel: p.Channel.ID,
		MessageTS: p.Message.TS, ThreadTS: p.Message.ThreadTS}
	if a.Channel == "" {
		a.Channel = p.Container.ChannelID
	}
	if a.MessageTS == "" {
		a.MessageTS = p.Container.MessageTS
	}
	if a.ThreadTS == "" {
		a.ThreadTS = p.Container.ThreadTS
	}
	if a.ThreadTS == "" {
		a.ThreadTS = a.MessageTS
	}
	parts := strings.Split(act.Value, "|")
	switch act.ActionID {
	case ActionApprove, ActionReject:
		if len(parts) != 3 || parts[0] == "" || parts[1] == "" {
			return Action{}, false, errors.New("row button value is not {req_id}|{run_id}|{awaiting_ts}")
		}
		a.RequirementID, a.RunID, a.AwaitingTS = parts[0], parts[1], parts[2]
	case ActionSubmit:
		if len(parts) != 2 || parts[0] == "" {
			return Action{}, false, errors.New("submit button value is not {run_id}|{awaiting_ts}")
		}
		a.RunID, a.AwaitingTS = parts[0], parts[1]
	default:
		return Action{}, false, nil // typing in an input, or not ours
	}
	if a.Channel == "" || a.MessageTS == "" {
		return Action{}, false, errors.New("the click names no channel or message")
	}
	a.Decisions = map[string]string{}
	for _, b := range p.Message.Blocks {
		// row:<req_id>:confirmation:decided:<choice>; ids may hold ':'.
		rest, found := strings.CutPrefix(b.BlockID, "row:")
		if !found {
			continue
		}
		head, choice, found := strings.Cut(rest, ":confirmation:decided:")
		if found && (choice == Approve || choice == Reject) {
			a.Decisions[head] = choice
		}
	}
	a.Values = map[string]map[string]StateValue{}
	for bid, actions := range p.State.Values {
		m := map[string]StateValue{}
		for aid, v := range actions {
			sv := StateValue{Value: v.Value}
			if v.SelectedOption != nil && v.SelectedOption.Value != "" {
				sv.Selected = []string{v.SelectedOption.Value}
			}
			for _, o := range v.SelectedOptions {
				sv.Selected = append(sv.Selected, o.Value)
			}
			m[aid] = sv
		}
		a.Values[bid] = m
	}
	// The click itself decides its row; a rejection's reason is kept.
	switch a.ID {
	case ActionApprove:
		a.Decisions[a.RequirementID] = Approve
	case ActionReject:
		a.Decisions[a.RequirementID] = Reject
	}
	return a, true, nil
}
