package email

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"go.uber.org/goleak"

	"github.com/agno-go/agno/tool"
	"github.com/agno-go/agno/tool/tooltest"
)

func TestConformance(t *testing.T) {
	tooltest.Run(t, tooltest.Harness{
		Toolkit: ToolkitName,
		Name:    "email_tools",
		// agno's email_user(subject, body, **kwargs) reaches the model
		// with a required "kwargs".
		Functions:  []tooltest.Function{{Name: "email_user", Args: []string{"subject", "body", "kwargs"}}},
		Deviations: map[string]string{"email_user(kwargs)": "agno's **kwargs shows the model a required \"kwargs\" that email_user never reads"},
		Setup: func(t *testing.T, _ *tool.ToolkitEnv) string {
			s := newSMTPD(t, SecurityNone)
			s.reject = "550 5.1.1 The email account that you tried to reach does not exist"
			t.Setenv("TEST_SMTP_PASS", s.pass)
			return fmt.Sprintf("receiver_email = \"nobody@example.com\"\nsender_name = \"Bot\"\nsender_email = %q\nsender_passkey_env = \"TEST_SMTP_PASS\"\nsmtp_host = \"127.0.0.1\"\nsmtp_port = %d\nsecurity = \"none\"", s.user, s.port())
		},
		Failures: map[string][]tooltest.Call{
			"email_user": {{Args: `{"subject": "hi", "body": "there"}`, Want: "error: 550 5.1.1 The email account"}},
		},
		Unbounded: "email_user answers with a fixed text or the SMTP server's one-line reply",
		BadOptions: []tooltest.BadOption{
			{Table: `sender_passkey_env = "1X"`, Key: "sender_passkey_env"},
			{Table: `sender_passkey_env = "X"` + "\n" + `sender_passkey = "p"`, Key: "sender_passkey_env"},
			{Table: "smtp_port = 0", Key: "smtp_port"},
			{Table: `smtp_host = ""`, Key: "smtp_host"},
			{Table: `security = "tls"`, Key: "security"},
			{Table: "timeout_seconds = -1", Key: "timeout_seconds"},
		},
	})
}

func emailUser(t *testing.T, cfg Config, args map[string]any) string {
	t.Helper()
	cfg.EnableEmailUser = true
	tk, err := New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	fns, _ := tk.Functions(context.Background())
	res, err := fns[0].Invoke(context.Background(), nil, args)
	if err != nil {
		t.Fatal(err)
	}
	return res.Content
}

func TestEmailUserOverTLS(t *testing.T) {
	// Registered first, run last: after the servers stopped.
	t.Cleanup(func() { goleak.VerifyNone(t) })
	for _, mode := range []string{SecuritySSL, SecuritySTARTTLS} {
		t.Run(mode, func(t *testing.T) {
			s := newSMTPD(t, mode)
			cfg := Config{
				ReceiverEmail: "user@example.com", SenderName: "Agno Bot", SenderEmail: s.user, SenderPasskey: s.pass,
				Host: "127.0.0.1", Port: s.port(), Security: mode, TLSConfig: s.clientTL,
			}
			out := emailUser(t, cfg, map[string]any{"subject": "Weekly report", "body": "All good.\n.hidden dot line\nCafé ☕"})
			if out != "email sent successfully" {
				t.Fatalf("email_user = %q", out)
			}
			got := s.received()
			if len(got) != 1 || got[0].from != s.user || len(got[0].to) != 1 || got[0].to[0] != "user@example.com" || !got[0].tls {
				t.Fatalf("received %+v: want one message over TLS from the sender to the receiver", got)
			}
			data := got[0].data
			for _, want := range []string{
				"Subject: Weekly report\r\n", "From: \"Agno Bot\" <bot@example.com>\r\n", "To: user@example.com\r\n",
				"Content-Type: text/plain; charset=\"utf-8\"\r\n", "Content-Transfer-Encoding: quoted-printable\r\n",
				"\r\n\r\nAll good.\r\n.hidden dot line\r\nCaf=C3=A9 =E2=98=95\r\n",
			} {
				if !strings.Contains(data, want) {
					t.Errorf("message lacks %q:\n%s", want, data)
				}
			}
		})
	}
}

func TestEmailUserErrors(t *testing.T) {
	// Registered first, run last: after the servers stopped.
	t.Cleanup(func() { goleak.VerifyNone(t) })
	s := newSMTPD(t, SecurityNone)
	full := Config{ReceiverEmail: "u@example.com", SenderName: "Bot", SenderEmail: s.user, SenderPasskey: s.pass, Host: "127.0.0.1", Port: s.port(), Security: SecurityNone}
	args := map[string]any{"subject": "s", "body": "b"}
	for _, c := range []struct {
		edit func(*Config)
		want string
	}{
		{func(c *Config) { c.ReceiverEmail = "" }, "error: No receiver email provided"},
		{func(c *Config) { c.SenderName = "" }, "error: No sender name provided"},
		{func(c *Config) { c.SenderEmail = "" }, "error: No sender email provided"},
		{func(c *Config) { c.SenderPasskey = "" }, "error: No sender passkey provided"},
		{func(c *Config) { c.SenderPasskey = "wrong" }, "error: 535 5.7.8 Username and Password not accepted"},
		// Implicit TLS against a plain server fails the handshake.
		{func(c *Config) { c.Security = SecuritySSL }, "error: "},
	} {
		cfg := full
		c.edit(&cfg)
		if out := emailUser(t, cfg, args); !strings.HasPrefix(out, c.want) {
			t.Errorf("%+v: %q, want %q", cfg, out, c.want)
		}
	}
	if out := emailUser(t, full, map[string]any{"subject": "hi\r\nBcc: evil@example.com", "body": "b"}); out != "error: Header values may not contain linefeed or carriage return characters" {
		t.Errorf("a subject with a line break: %q", out)
	}
	if len(s.received()) != 0 {
		t.Errorf("messages were sent: %+v", s.received())
	}
}
