package agentos_test

import (
	"bytes"
	"context"
	"mime/multipart"
	"net/http"
	"net/http/httptest"
	"net/textproto"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/coder/websocket"

	"github.com/agno-go/agno/agentos"
	"github.com/agno-go/agno/internal/safe/safetest"
	"github.com/agno-go/agno/run"
)

func fuzzOS(f *testing.F, log *safetest.PanicLog) *hostile {
	return newHostile(f, agentos.Config{Logger: log.Logger(), MaxUploadBytes: 64 << 10, MaxFileBytes: 16 << 10})
}

func multipartSeed(fields map[string]string, file string) (string, []byte) {
	var b bytes.Buffer
	mw := multipart.NewWriter(&b)
	for k, v := range fields {
		_ = mw.WriteField(k, v)
	}
	if file != "" {
		hdr := textproto.MIMEHeader{}
		hdr.Set("Content-Disposition", `form-data; name="files"; filename="`+file+`"`)
		hdr.Set("Content-Type", "text/plain")
		w, _ := mw.CreatePart(hdr)
		_, _ = w.Write([]byte("hello file"))
	}
	_ = mw.Close()
	return mw.FormDataContentType(), b.Bytes()
}

// FuzzRunForm sends arbitrary run requests (content type and body) to
// the agent, workflow and background run routes: a client error is a
// 4xx, never a 500 or a recovered panic.
func FuzzRunForm(f *testing.F) {
	f.Add("application/x-www-form-urlencoded", []byte("message=hi&stream=false&session_id=s"))
	f.Add("application/x-www-form-urlencoded", []byte("message=hi&background=true&stream=false&run_id=r-1"))
	f.Add("application/x-www-form-urlencoded", []byte("message=%zz&stream=maybe"))
	f.Add("application/x-www-form-urlencoded", []byte("message=x&session_state=%7B%22a%22%3A1%7D&output_schema=%5B1%5D&run_id=..%2F"))
	ct, body := multipartSeed(map[string]string{"message": "read", "stream": "false"}, "notes.txt")
	f.Add(ct, body)
	ct, body = multipartSeed(map[string]string{"message": "x"}, "evil.exe")
	f.Add(ct, body)
	f.Add("multipart/form-data; boundary=zz", []byte("--zz\r\nContent-Disposition: form-data; name=\"message\"\r\n\r\nhi\r\n--zz"))
	f.Add("text/plain", []byte("message=hi"))
	log := &safetest.PanicLog{}
	h := fuzzOS(f, log)
	f.Fuzz(func(t *testing.T, contentType string, body []byte) {
		// In process, so header values no client would send reach it too.
		for _, path := range []string{"/agents/cashier/runs", "/workflows/pay-flow/runs"} {
			req := httptest.NewRequest(http.MethodPost, path, bytes.NewReader(body))
			req.RemoteAddr, req.Host = "127.0.0.1:5000", "localhost:7777"
			req.Header["Content-Type"] = []string{contentType}
			rec := httptest.NewRecorder()
			h.srv.Config.Handler.ServeHTTP(rec, req)
			if rec.Code >= 500 {
				t.Fatalf("%s %q %q: %d %s", path, contentType, body, rec.Code, rec.Body)
			}
		}
		log.Check(t, body)
	})
}

// FuzzContinueForm answers a fresh paused agent run and a fresh paused
// workflow run (an executor pause) with arbitrary continue payloads: a
// payload that does not fit is a 4xx and leaves the run paused.
func FuzzContinueForm(f *testing.F) {
	f.Add("tools", `[{"tool_call_id":"c1","confirmed":true}]`)
	f.Add("tools", `[null]`)
	f.Add("requirements", `[{"id":"x","confirmation":false}]`)
	f.Add("requirements", `[{},{}]`)
	f.Add("step_requirements", `[{"step_id":"S","executor_requirements":[null]}]`)
	f.Add("step_requirements", `[{"step_id":"S","confirmed":true},{"step_id":"S","confirmed":false}]`)
	f.Add("step_requirements", `{"step_id":1}`)
	f.Add("tools", `[{"tool_call_id":"c1","confirmed":true,"user_input_schema":[null]}]`)
	log := &safetest.PanicLog{}
	h := fuzzOS(f, log)
	f.Fuzz(func(t *testing.T, field, value string) {
		session := run.NewID()
		resp := postForm(t, h.srv, "/agents/cashier/runs", url.Values{"message": {"pay"}, "session_id": {session}, "stream": {"false"}})
		var out map[string]any
		decode(t, resp, &out)
		agentRun, _ := out["run_id"].(string)
		wfRun, stepID, _ := h.pausedWorkflow(t, session)
		value = strings.ReplaceAll(value, `"S"`, `"`+stepID+`"`)
		for _, target := range []struct{ path, runID string }{
			{"/agents/cashier/runs/" + agentRun + "/continue", agentRun},
			{"/workflows/pay-flow/runs/" + wfRun + "/continue", wfRun},
		} {
			resp := postForm(t, h.srv, target.path, url.Values{field: {value}, "session_id": {session}, "stream": {"false"}})
			if resp.StatusCode >= 500 {
				t.Fatalf("%s %s=%q: %d %s", target.path, field, value, resp.StatusCode, detail(t, resp))
			}
			if resp.StatusCode != 200 {
				if st := h.status(t, target.runID); st != run.StatusPaused {
					t.Fatalf("%s=%q refused (%d) but the run is %s", field, value, resp.StatusCode, st)
				}
			}
		}
		// Keep the store small: each input has its own session.
		if err := h.store.DeleteSessions(context.Background(), session); err != nil {
			t.Fatal(err)
		}
		log.Check(t, value)
	})
}

// FuzzWorkflowWSFrame sends arbitrary frames on /workflows/ws: whatever
// they hold, the server answers the next ping on the same socket.
func FuzzWorkflowWSFrame(f *testing.F) {
	f.Add(`{"action":"ping"}`)
	f.Add(`{"action":"continue-workflow","workflow_id":"pay-flow","run_id":"r","step_requirements":[{"step_id":"S","executor_requirements":[null]}]}`)
	f.Add(`{"action":"start-workflow","workflow_id":"crash-flow","message":"x"}`)
	f.Add(`{"action":"reconnect","run_id":"r","last_event_index":-99999999}`)
	f.Add(`{"action":"authenticate","token":5}`)
	f.Add(`[1,2,3]`)
	f.Add("\xff\xfe")
	log := &safetest.PanicLog{}
	h := fuzzOS(f, log)
	dial, cancelDial := context.WithTimeout(context.Background(), 10*time.Second)
	c, _, err := websocket.Dial(dial, "ws"+strings.TrimPrefix(h.srv.URL, "http")+"/workflows/ws", nil)
	cancelDial()
	if err != nil {
		f.Fatal(err)
	}
	c.SetReadLimit(-1)
	f.Cleanup(func() { c.CloseNow() })
	f.Fuzz(func(t *testing.T, frame string) {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		if err := c.Write(ctx, websocket.MessageText, []byte(frame)); err != nil {
			t.Fatalf("write %q: %v", frame, err)
		}
		if err := c.Write(ctx, websocket.MessageText, []byte(`{"action":"ping"}`)); err != nil {
			t.Fatalf("ping after %q: %v", frame, err)
		}
		for {
			_, b, err := c.Read(ctx)
			if err != nil {
				t.Fatalf("after %q the socket failed: %v", frame, err)
			}
			if string(b) == `{"event":"pong"}` {
				break
			}
		}
		log.Check(t, frame)
	})
}
