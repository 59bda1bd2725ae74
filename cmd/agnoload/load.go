package main

import (
	"bufio"
	"bytes"
	"context"
	"crypto/rand"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"
)

// Targets: what the requests are sent to.
const (
	// TargetAgentOS posts agno's run form to /agents/{id}/runs.
	TargetAgentOS = "agentos"
	// TargetOpenAI posts a Chat Completions request to {url}/chat/completions:
	// the fake model measured on its own, as the baseline for AgentOS's
	// added latency.
	TargetOpenAI = "openai"
)

// Error kinds in Report.ErrorKinds (plus "http_<status>" for non-2xx).
const (
	errTransport   = "transport"         // connection refused, reset, broken stream
	errTimeout     = "timeout"           // -timeout passed
	errIncomplete  = "incomplete_stream" // stream ended without a terminal event
	errRunFailed   = "run_error"         // the run ended in error, cancelled or paused
	errBadResponse = "bad_response"      // a 2xx body that is not what the API returns
)

// Config is one load test.
type Config struct {
	// URL is the AgentOS base URL (TargetOpenAI: the API base ending in /v1).
	URL    string
	Target string // TargetAgentOS (default) or TargetOpenAI
	Agent  string // agent id (TargetAgentOS)
	Model  string // model id (TargetOpenAI)

	Concurrency int           // parallel clients, 1 or more
	Requests    int           // total requests; or
	Duration    time.Duration // keep sending for this long
	Timeout     time.Duration // per request (default 1m)

	Stream  bool
	Message string
	// Sessions is how many distinct session ids requests cycle through;
	// 0 gives every request its own.
	Sessions int
	UserID   string
	Key      string // bearer key (OS_SECURITY_KEY)

	// ServerPID, when set, is sampled for CPU time and peak RSS, and
	// every Sample for its resident set while answers are open.
	ServerPID int
	Sample    time.Duration // default 50ms

	// Preconnect opens every client's keep-alive connection (a GET of
	// /health, or /models for TargetOpenAI) before the test, then starts
	// all clients together: N streams open at once, without a burst of
	// N dials in the measured time.
	Preconnect bool

	// Client replaces the keep-alive client built from Concurrency.
	Client *http.Client
}

func (c *Config) normalize() error {
	if c.Target == "" {
		c.Target = TargetAgentOS
	}
	if c.Message == "" {
		c.Message = "Hello"
	}
	if c.Model == "" {
		c.Model = "fake-model"
	}
	if c.Timeout == 0 {
		c.Timeout = time.Minute
	}
	if c.Sample == 0 {
		c.Sample = 50 * time.Millisecond
	}
	if c.URL == "" {
		return errors.New("-url is required: the AgentOS base URL, such as http://127.0.0.1:7777")
	}
	u, err := url.Parse(c.URL)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return fmt.Errorf("-url %q is not an http(s) URL; give one such as http://127.0.0.1:7777", c.URL)
	}
	c.URL = strings.TrimRight(c.URL, "/")
	switch c.Target {
	case TargetAgentOS:
		if c.Agent == "" {
			return errors.New("-agent is required: the id of the agent to run (GET /agents lists them)")
		}
	case TargetOpenAI:
	default:
		return fmt.Errorf("-target %q is unknown; use %q or %q", c.Target, TargetAgentOS, TargetOpenAI)
	}
	switch {
	case c.Concurrency < 1:
		return fmt.Errorf("-c %d: concurrency must be 1 or more", c.Concurrency)
	case c.Requests < 0:
		return fmt.Errorf("-n %d: the number of requests must be 1 or more", c.Requests)
	case c.Duration < 0:
		return fmt.Errorf("-d %s: the duration must be positive", c.Duration)
	case c.Requests > 0 && c.Duration > 0:
		return errors.New("-n and -d both given; give one: a number of requests or a duration")
	case c.Requests == 0 && c.Duration == 0:
		return errors.New("give -n (total requests) or -d (duration, such as 10s)")
	case c.Sessions < 0:
		return fmt.Errorf("-sessions %d: give 0 (a new session per request) or more", c.Sessions)
	case c.Timeout < 0:
		return fmt.Errorf("-timeout %s: the request timeout must be positive", c.Timeout)
	case c.ServerPID < 0:
		return fmt.Errorf("-server-pid %d is not a process id", c.ServerPID)
	case c.Sample < 0:
		return fmt.Errorf("-sample %s: the sampling interval must be positive", c.Sample)
	}
	if c.Requests > 0 {
		c.Concurrency = min(c.Concurrency, c.Requests)
	}
	return nil
}

// Report is the outcome of a load test. Latencies and per-run figures
// cover successful requests only.
type Report struct {
	Target      string `json:"target"`
	URL         string `json:"url"`
	Agent       string `json:"agent,omitempty"`
	Stream      bool   `json:"stream"`
	Concurrency int    `json:"concurrency"`
	Sessions    int    `json:"sessions"`
	// Interrupted: the test was stopped early (Ctrl-C); requests cut
	// short by it are not counted.
	Interrupted bool `json:"interrupted"`

	Requests     int               `json:"requests"` // finished: OK + Errors
	OK           int               `json:"ok"`
	Errors       int               `json:"errors"`
	ErrorKinds   map[string]int    `json:"error_kinds,omitempty"`
	ErrorSamples map[string]string `json:"error_samples,omitempty"` // first message of each kind

	ElapsedSeconds float64       `json:"elapsed_s"`
	RunsPerSecond  float64       `json:"runs_per_s"`
	Latency        Distribution  `json:"latency"`
	TTFE           *Distribution `json:"ttfe,omitempty"` // stream: time to the first event
	// TTFT (stream): time to the first content — the first RunContent
	// (TeamRunContent) event, or for TargetOpenAI the first chunk with
	// content.
	TTFT *Distribution `json:"ttft,omitempty"`
	// PeakOpen is the most answers open at once: headers received, body
	// not yet read to its end.
	PeakOpen int `json:"peak_open"`

	ClientCPUMsPerRun float64      `json:"client_cpu_ms_per_run"`
	Server            *ServerUsage `json:"server,omitempty"`
}

// ServerUsage is what /proc said about the server process.
type ServerUsage struct {
	PID         int     `json:"pid"`
	CPUMs       float64 `json:"cpu_ms"`
	CPUMsPerRun float64 `json:"cpu_ms_per_run"`
	// PeakRSSMB is VmHWM after the test: the process's peak resident set
	// since it started (PeakRSSBeforeMB is the same before the test).
	PeakRSSMB       float64 `json:"peak_rss_mb"`
	PeakRSSBeforeMB float64 `json:"peak_rss_before_mb"`
	// IdleRSSMB is VmRSS before the test (before -preconnect). OpenRSSMB is the largest VmRSS
	// sampled while PeakOpen answers were open (OpenStreams of them), and
	// KBPerOpen is (OpenRSSMB − IdleRSSMB) per open answer: what an open
	// stream costs the server. MaxRSSMB is the largest VmRSS sampled.
	IdleRSSMB   float64 `json:"idle_rss_mb"`
	OpenRSSMB   float64 `json:"open_rss_mb"`
	OpenStreams int     `json:"open_streams"`
	KBPerOpen   float64 `json:"kb_per_open"`
	MaxRSSMB    float64 `json:"max_rss_mb"`
	Samples     int     `json:"rss_samples"`
	Error       string  `json:"error,omitempty"`
}

// outcome is one finished request.
type outcome struct {
	latency time.Duration
	ttfe    time.Duration // 0: no event arrived
	ttft    time.Duration // 0: no content arrived
	kind    string        // "" on success
	detail  string
}

// tally is one worker's results, merged after the workers stop.
type tally struct {
	latencies, ttfes, ttfts []time.Duration
	errs                    map[string]int
	samples                 map[string]string
}

func (t *tally) add(o outcome) {
	if o.kind == "" {
		t.latencies = append(t.latencies, o.latency)
		if o.ttfe > 0 {
			t.ttfes = append(t.ttfes, o.ttfe)
		}
		if o.ttft > 0 {
			t.ttfts = append(t.ttfts, o.ttft)
		}
		return
	}
	if t.errs == nil {
		t.errs, t.samples = map[string]int{}, map[string]string{}
	}
	t.errs[o.kind]++
	if _, ok := t.samples[o.kind]; !ok {
		t.samples[o.kind] = o.detail
	}
}

// Run sends requests until -n are done, -d has passed or ctx ends. When
// ctx ends it returns the partial report (Interrupted) rather than an
// error; it returns an error only for bad configuration or an unreadable
// -server-pid.
func Run(ctx context.Context, cfg Config) (*Report, error) {
	if err := cfg.normalize(); err != nil {
		return nil, err
	}
	client := cfg.Client
	if client == nil {
		tr := &http.Transport{
			DialContext:         (&net.Dialer{Timeout: 10 * time.Second, KeepAlive: 30 * time.Second}).DialContext,
			MaxIdleConnsPerHost: cfg.Concurrency, // every worker keeps its connection
			IdleConnTimeout:     90 * time.Second,
			DisableCompression:  true,
		}
		defer tr.CloseIdleConnections()
		client = &http.Client{Transport: tr}
	}
	l := &loader{cfg: cfg, client: client, prefix: "agnoload-" + strings.ToLower(rand.Text()[:10])}
	if cfg.Target == TargetAgentOS {
		l.endpoint = cfg.URL + "/agents/" + url.PathEscape(cfg.Agent) + "/runs"
	} else {
		l.endpoint = cfg.URL + "/chat/completions"
	}

	// The idle RSS is taken before any connection is open: a stream
	// needs its connection, so that is part of what it costs.
	var idle, before procSample
	if cfg.ServerPID > 0 {
		var err error
		if idle, err = readProc(cfg.ServerPID); err != nil {
			return nil, err
		}
	}
	if cfg.Preconnect {
		if err := l.preconnect(ctx); err != nil {
			return nil, err
		}
	}
	if cfg.ServerPID > 0 {
		var err error
		if before, err = readProc(cfg.ServerPID); err != nil {
			return nil, err
		}
	}
	var sampler *rssSampler
	if cfg.ServerPID > 0 {
		sampler = startSampler(cfg.ServerPID, cfg.Sample, &l.open)
	}
	clientBefore := selfCPU()
	tallies := make([]tally, cfg.Concurrency)
	var next atomic.Int64
	var wg sync.WaitGroup
	start := time.Now()
	deadline := start.Add(cfg.Duration)
	for w := range tallies {
		t := &tallies[w]
		wg.Go(func() {
			for ctx.Err() == nil {
				i := next.Add(1) - 1
				if cfg.Requests > 0 && i >= int64(cfg.Requests) {
					return
				}
				if cfg.Duration > 0 && !time.Now().Before(deadline) {
					return
				}
				o := l.do(ctx, i)
				if o.kind != "" && ctx.Err() != nil {
					return // cut short by the interrupt: not the server's doing
				}
				t.add(o)
			}
		})
	}
	wg.Wait()
	elapsed := time.Since(start)
	clientCPU := selfCPU() - clientBefore

	rep := &Report{Target: cfg.Target, URL: cfg.URL, Stream: cfg.Stream, Concurrency: cfg.Concurrency, Sessions: cfg.Sessions,
		Interrupted: ctx.Err() != nil, ElapsedSeconds: elapsed.Seconds(), PeakOpen: int(l.open.peak.Load())}
	if cfg.Target == TargetAgentOS {
		rep.Agent = cfg.Agent
	}
	var lat, ttfe, ttft []time.Duration
	for _, t := range tallies {
		lat = append(lat, t.latencies...)
		ttfe = append(ttfe, t.ttfes...)
		ttft = append(ttft, t.ttfts...)
		for k, n := range t.errs {
			if rep.ErrorKinds == nil {
				rep.ErrorKinds, rep.ErrorSamples = map[string]int{}, map[string]string{}
			}
			rep.ErrorKinds[k] += n
			rep.Errors += n
			if _, ok := rep.ErrorSamples[k]; !ok {
				rep.ErrorSamples[k] = t.samples[k]
			}
		}
	}
	rep.OK = len(lat)
	rep.Requests = rep.OK + rep.Errors
	rep.Latency = summarize(lat)
	if cfg.Stream {
		d, c := summarize(ttfe), summarize(ttft)
		rep.TTFE, rep.TTFT = &d, &c
	}
	if elapsed > 0 {
		rep.RunsPerSecond = float64(rep.OK) / elapsed.Seconds()
	}
	if rep.OK > 0 {
		rep.ClientCPUMsPerRun = ms(clientCPU) / float64(rep.OK)
	}
	if cfg.ServerPID > 0 {
		rep.Server = serverUsage(cfg.ServerPID, before, rep.OK)
		rep.Server.IdleRSSMB = float64(idle.RSSKB) / 1024
		sampler.stop().fill(rep.Server, idle)
	}
	return rep, nil
}

func serverUsage(pid int, before procSample, runs int) *ServerUsage {
	u := &ServerUsage{PID: pid, PeakRSSBeforeMB: float64(before.PeakKB) / 1024}
	after, err := readProc(pid)
	if err != nil {
		u.Error = err.Error() // the server died during the test
		return u
	}
	u.CPUMs = ms(after.CPU - before.CPU)
	u.PeakRSSMB = float64(after.PeakKB) / 1024
	if runs > 0 {
		u.CPUMsPerRun = u.CPUMs / float64(runs)
	}
	return u
}

// gauge counts answers open now and the most open at once.
type gauge struct{ now, peak atomic.Int64 }

func (g *gauge) inc() {
	n := g.now.Add(1)
	for p := g.peak.Load(); n > p && !g.peak.CompareAndSwap(p, n); p = g.peak.Load() {
	}
}

func (g *gauge) dec() { g.now.Add(-1) }

// rssSampler reads the server's VmRSS every interval, with how many
// answers were open then: RSS per open stream is only meaningful while
// they are open, not from the peak after the test.
type rssSampler struct {
	done chan struct{}
	wg   sync.WaitGroup
	// best is the largest RSS at the most open answers; max the largest.
	bestOpen, bestKB, maxKB int64
	n                       int
}

func startSampler(pid int, every time.Duration, open *gauge) *rssSampler {
	s := &rssSampler{done: make(chan struct{})}
	s.wg.Go(func() {
		t := time.NewTicker(every)
		defer t.Stop()
		for {
			select {
			case <-s.done:
				return
			case <-t.C:
			}
			o := open.now.Load()
			kb, err := readRSS(pid)
			if err != nil {
				continue
			}
			s.add(o, kb)
		}
	})
	return s
}

func (s *rssSampler) add(open, kb int64) {
	s.n++
	s.maxKB = max(s.maxKB, kb)
	if open > s.bestOpen || (open == s.bestOpen && kb > s.bestKB) {
		s.bestOpen, s.bestKB = open, kb
	}
}

func (s *rssSampler) stop() *rssSampler {
	close(s.done)
	s.wg.Wait()
	return s
}

func (s *rssSampler) fill(u *ServerUsage, before procSample) {
	u.Samples, u.MaxRSSMB = s.n, float64(s.maxKB)/1024
	if s.bestOpen == 0 {
		return
	}
	u.OpenStreams, u.OpenRSSMB = int(s.bestOpen), float64(s.bestKB)/1024
	u.KBPerOpen = float64(s.bestKB-before.RSSKB) / float64(s.bestOpen)
}

// loader sends the requests.
type loader struct {
	cfg      Config
	client   *http.Client
	endpoint string
	prefix   string // makes session ids unique to this test
	open     gauge  // answers being read
}

// preconnect opens every client's connection with a cheap GET, all at
// once, and leaves them idle in the pool for the test to use.
func (l *loader) preconnect(ctx context.Context) error {
	target := l.cfg.URL + "/health"
	if l.cfg.Target == TargetOpenAI {
		target = l.cfg.URL + "/models"
	}
	var opened, failed atomic.Int64
	var first sync.Once
	var firstErr error
	var wg sync.WaitGroup
	// Every answer is held open until all have arrived, or the pool
	// would hand a connection back to the next GET instead of dialling.
	hold := make(chan struct{})
	n := int64(l.cfg.Concurrency)
	for range n {
		wg.Go(func() {
			if err := l.get(ctx, target, hold, &opened); err != nil {
				failed.Add(1)
				first.Do(func() { firstErr = err })
			}
		})
	}
	for opened.Load()+failed.Load() < n && ctx.Err() == nil {
		time.Sleep(time.Millisecond)
	}
	close(hold)
	wg.Wait()
	if f := failed.Load(); f > 0 {
		return fmt.Errorf("-preconnect: %d of %d connections to %s failed; first: %w", f, n, target, firstErr)
	}
	return nil
}

func (l *loader) get(ctx context.Context, target string, hold <-chan struct{}, opened *atomic.Int64) error {
	ctx, cancel := context.WithTimeout(ctx, l.cfg.Timeout)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, target, nil)
	if err != nil {
		return err
	}
	if l.cfg.Key != "" {
		req.Header.Set("Authorization", "Bearer "+l.cfg.Key)
	}
	resp, err := l.client.Do(req)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	opened.Add(1)
	select {
	case <-hold:
	case <-ctx.Done():
		return ctx.Err()
	}
	_, err = io.Copy(io.Discard, io.LimitReader(resp.Body, 1<<20))
	return err
}

func (l *loader) sessionID(i int64) string {
	if l.cfg.Sessions > 0 {
		i %= int64(l.cfg.Sessions)
	}
	return l.prefix + "-" + strconv.FormatInt(i, 10)
}

func (l *loader) newRequest(ctx context.Context, i int64) (*http.Request, error) {
	var req *http.Request
	var err error
	if l.cfg.Target == TargetOpenAI {
		body := map[string]any{"model": l.cfg.Model, "stream": l.cfg.Stream,
			"messages": []map[string]string{{"role": "user", "content": l.cfg.Message}}}
		if l.cfg.Stream {
			body["stream_options"] = map[string]bool{"include_usage": true}
		}
		b, _ := json.Marshal(body)
		if req, err = http.NewRequestWithContext(ctx, http.MethodPost, l.endpoint, bytes.NewReader(b)); err != nil {
			return nil, err
		}
		req.Header.Set("Content-Type", "application/json")
	} else {
		form := url.Values{"message": {l.cfg.Message}, "stream": {strconv.FormatBool(l.cfg.Stream)}, "session_id": {l.sessionID(i)}}
		if l.cfg.UserID != "" {
			form.Set("user_id", l.cfg.UserID)
		}
		if req, err = http.NewRequestWithContext(ctx, http.MethodPost, l.endpoint, strings.NewReader(form.Encode())); err != nil {
			return nil, err
		}
		req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	}
	if l.cfg.Stream {
		req.Header.Set("Accept", "text/event-stream")
	}
	if l.cfg.Key != "" {
		req.Header.Set("Authorization", "Bearer "+l.cfg.Key)
	}
	return req, nil
}

// do sends request i and reads the whole answer.
func (l *loader) do(ctx context.Context, i int64) outcome {
	ctx, cancel := context.WithTimeout(ctx, l.cfg.Timeout)
	defer cancel()
	req, err := l.newRequest(ctx, i)
	if err != nil {
		return outcome{kind: errTransport, detail: err.Error()}
	}
	start := time.Now()
	resp, err := l.client.Do(req)
	if err != nil {
		return failed(err)
	}
	defer resp.Body.Close()
	if resp.StatusCode < 200 || resp.StatusCode > 299 {
		head, _ := io.ReadAll(io.LimitReader(resp.Body, 512))
		_, _ = io.Copy(io.Discard, io.LimitReader(resp.Body, 1<<20)) // lets the connection be reused
		return outcome{kind: "http_" + strconv.Itoa(resp.StatusCode), detail: strings.TrimSpace(string(head))}
	}
	l.open.inc()
	defer l.open.dec()
	var o outcome
	if l.cfg.Stream {
		o = l.readStream(resp.Body, start)
	} else {
		o = l.readJSON(resp.Body)
	}
	o.latency = time.Since(start)
	return o
}

func failed(err error) outcome {
	if errors.Is(err, context.DeadlineExceeded) {
		return outcome{kind: errTimeout, detail: err.Error()}
	}
	return outcome{kind: errTransport, detail: err.Error()}
}

// terminal maps the events that end a run to whether the run succeeded.
// Team runs carry a "Team" prefix.
var terminal = map[string]bool{
	"RunCompleted": true, "RunError": false, "RunCancelled": false, "RunPaused": false,
	"TeamRunCompleted": true, "TeamRunError": false, "TeamRunCancelled": false, "TeamRunPaused": false,
}

// readStream reads SSE until the server ends the stream. An AgentOS run
// succeeded when the last run-ending event is RunCompleted (events of
// member and sub-agent runs come before their parent's); a Chat
// Completions stream when it sent [DONE].
func (l *loader) readStream(body io.Reader, start time.Time) outcome {
	var o outcome
	var last string
	var done, cancelled bool
	events := 0
	keep := sseDataPrefix
	if l.cfg.Target == TargetOpenAI {
		keep = chunkPrefix
	}
	err := scanSSE(body, keep, func(name string, data []byte) {
		if events == 0 {
			o.ttfe = time.Since(start)
		}
		events++
		if o.ttft == 0 && l.isContent(name, data) {
			o.ttft = time.Since(start)
		}
		if _, ok := terminal[name]; ok {
			// A cancelled run closes with RunCancelled then RunCompleted
			// (agno); the pair counts as the cancel.
			if cancelled && strings.HasSuffix(name, "RunCompleted") {
				cancelled = false
				return
			}
			last = name
			cancelled = strings.HasSuffix(name, "RunCancelled")
		}
		if bytes.Equal(data, []byte("[DONE]")) {
			done = true
		}
	})
	switch {
	case err != nil:
		o = failed(err)
		o.detail = fmt.Sprintf("stream broken after %d events: %s", events, o.detail)
	case l.cfg.Target == TargetOpenAI && !done:
		o.kind, o.detail = errIncomplete, fmt.Sprintf("stream ended after %d events without data: [DONE]", events)
	case l.cfg.Target == TargetOpenAI:
	case last == "":
		o.kind, o.detail = errIncomplete, fmt.Sprintf("stream ended after %d events without RunCompleted or RunError", events)
	case !terminal[last]:
		o.kind, o.detail = errRunFailed, "stream ended with "+last
	}
	return o
}

// readJSON reads a non-stream answer: a RunOutput (status COMPLETED) or a
// chat completion (with choices).
func (l *loader) readJSON(body io.Reader) outcome {
	b, err := io.ReadAll(body)
	if err != nil {
		return failed(err)
	}
	var v struct {
		Status  string            `json:"status"`
		Choices []json.RawMessage `json:"choices"`
	}
	if err := json.Unmarshal(b, &v); err != nil {
		return outcome{kind: errBadResponse, detail: fmt.Sprintf("%v: %.200s", err, b)}
	}
	switch {
	case l.cfg.Target == TargetOpenAI && len(v.Choices) == 0:
		return outcome{kind: errBadResponse, detail: fmt.Sprintf("no choices: %.200s", b)}
	case l.cfg.Target == TargetOpenAI, v.Status == "COMPLETED":
		return outcome{}
	case v.Status == "":
		return outcome{kind: errBadResponse, detail: fmt.Sprintf("no run status: %.200s", b)}
	}
	return outcome{kind: errRunFailed, detail: "run ended with status " + v.Status}
}

// sseDataPrefix is how much of an event's first data line scanSSE keeps:
// enough to recognise "[DONE]". chunkPrefix is enough of a Chat
// Completions chunk to find its delta's content.
const (
	sseDataPrefix = 64
	chunkPrefix   = 4 << 10
)

// isContent reports the first content of an answer: a RunContent event
// (a team's too), or a Chat Completions chunk with non-empty content.
func (l *loader) isContent(name string, data []byte) bool {
	if l.cfg.Target != TargetOpenAI {
		return name == "RunContent" || name == "TeamRunContent"
	}
	_, rest, ok := bytes.Cut(data, []byte(`"content":"`))
	return ok && len(rest) > 0 && rest[0] != '"'
}

// scanSSE calls dispatch for each event of an SSE stream with its name and
// the start of its data. Data lines longer than the read buffer are
// skipped past rather than held.
func scanSSE(r io.Reader, keep int, dispatch func(name string, data []byte)) error {
	// Small: thousands of streams are read at once.
	br := bufio.NewReaderSize(r, max(4<<10, 2*keep))
	var name string
	var data []byte
	pending := false
	for {
		line, err := br.ReadSlice('\n')
		if errors.Is(err, bufio.ErrBufferFull) {
			line = append([]byte(nil), line[:min(len(line), max(256, keep))]...)
			for errors.Is(err, bufio.ErrBufferFull) {
				_, err = br.ReadSlice('\n')
			}
		}
		line = bytes.TrimRight(line, "\r\n")
		switch {
		case len(line) == 0:
			if pending && err == nil {
				dispatch(name, data)
			}
			name, data, pending = "", data[:0], false
		case line[0] == ':': // comment (heartbeat)
		default:
			field, value, _ := bytes.Cut(line, []byte(":"))
			value = bytes.TrimPrefix(value, []byte(" "))
			switch string(field) {
			case "event":
				name, pending = string(value), true
			case "data":
				if len(data) == 0 { // the first data line is enough
					data = append(data[:0], value[:min(len(value), keep)]...)
				}
				pending = true
			}
		}
		if err == io.EOF {
			return nil // an event without its closing blank line is dropped, as SSE says
		}
		if err != nil {
			return err
		}
	}
}
