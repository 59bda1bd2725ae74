package watsonx

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"time"
)

// defaultIAMURL is IBM Cloud IAM's token endpoint
// (https://cloud.ibm.com/docs/account?topic=account-iamtoken_from_apikey).
// Tests point it at a fake.
var defaultIAMURL = "https://iam.cloud.ibm.com/identity/token"

// iamTokens exchanges an IBM Cloud API key for IAM access tokens and
// caches one until it is due for refresh. It is safe for concurrent use;
// concurrent callers share one exchange.
type iamTokens struct {
	tokenURL string
	apiKey   string
	client   *http.Client
	now      func() time.Time

	// lock is held for an exchange, as a channel so that a caller
	// waiting behind a slow one can give up when its context ends.
	lock      chan struct{}
	mu        sync.Mutex // guards token and refreshAt
	token     string
	refreshAt time.Time
}

func newIAMTokens(tokenURL, apiKey string, client *http.Client) *iamTokens {
	return &iamTokens{tokenURL: tokenURL, apiKey: apiKey, client: client, now: time.Now, lock: make(chan struct{}, 1)}
}

func (s *iamTokens) cached() (string, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.token, s.token != "" && s.now().Before(s.refreshAt)
}

// iamError is IAM's answer to a failed exchange: its status and message.
type iamError struct {
	status  int
	message string
}

func (e *iamError) Error() string {
	return fmt.Sprintf("IAM token exchange: status %d: %s", e.status, e.message)
}

// get returns a cached token, or exchanges the key for a new one.
func (s *iamTokens) get(ctx context.Context) (string, error) {
	if tok, ok := s.cached(); ok {
		return tok, nil
	}
	select {
	case s.lock <- struct{}{}:
	case <-ctx.Done():
		return "", ctx.Err()
	}
	defer func() { <-s.lock }()
	// Another caller may have exchanged while this one waited.
	if tok, ok := s.cached(); ok {
		return tok, nil
	}
	tok, refreshAt, err := s.exchange(ctx)
	if err != nil {
		return "", err
	}
	s.mu.Lock()
	s.token, s.refreshAt = tok, refreshAt
	s.mu.Unlock()
	return tok, nil
}

// invalidate drops tok if it is still the cached one: the service refused
// it (revoked, expired early), so the next call exchanges the key again.
func (s *iamTokens) invalidate(tok string) {
	s.mu.Lock()
	if s.token == tok {
		s.token = ""
	}
	s.mu.Unlock()
}

func (s *iamTokens) exchange(ctx context.Context) (string, time.Time, error) {
	form := url.Values{
		"grant_type": {"urn:ibm:params:oauth:grant-type:apikey"},
		"apikey":     {s.apiKey},
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, s.tokenURL, strings.NewReader(form.Encode()))
	if err != nil {
		return "", time.Time{}, err
	}
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	req.Header.Set("Accept", "application/json")
	issued := s.now()
	res, err := s.client.Do(req)
	if err != nil {
		return "", time.Time{}, err
	}
	defer res.Body.Close()
	body, err := io.ReadAll(io.LimitReader(res.Body, 1<<20))
	if err != nil {
		return "", time.Time{}, err
	}
	if res.StatusCode != http.StatusOK {
		return "", time.Time{}, &iamError{status: res.StatusCode, message: iamMessage(body, res.Status)}
	}
	var tok struct {
		AccessToken string `json:"access_token"`
		ExpiresIn   int64  `json:"expires_in"`
		Expiration  int64  `json:"expiration"`
	}
	if err := json.Unmarshal(body, &tok); err != nil || tok.AccessToken == "" {
		return "", time.Time{}, fmt.Errorf("IAM token exchange: no access_token in the answer (%d bytes)", len(body))
	}
	lifetime := time.Duration(tok.ExpiresIn) * time.Second
	if tok.Expiration > 0 {
		lifetime = time.Unix(tok.Expiration, 0).Sub(issued)
	}
	// Refresh at 80% of the lifetime, as IBM's SDKs do, so a token never
	// expires in flight.
	return tok.AccessToken, issued.Add(lifetime * 8 / 10), nil
}

// iamMessage reads IAM's error body, {"errorCode","errorMessage",...}.
func iamMessage(body []byte, status string) string {
	var e struct {
		Code    string `json:"errorCode"`
		Message string `json:"errorMessage"`
	}
	if json.Unmarshal(body, &e) == nil && e.Message != "" {
		if e.Code != "" && !strings.HasPrefix(e.Message, e.Code) {
			return e.Code + ": " + e.Message
		}
		return e.Message
	}
	return status
}
