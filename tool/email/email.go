// Package email is agno's EmailTools: email_user sends the user a
// message over SMTP with the sender's login.
//
// agno always connects to smtp.gmail.com:465 over TLS; here the server
// and the security (implicit TLS as agno, STARTTLS, or none for a local
// relay) are options with agno's as defaults. Differences from agno
// v2.6.13: the connection has a timeout, and the password may come from
// a variable (sender_passkey_env) so it need not sit in a config file.
package email

import (
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"log/slog"
	"mime"
	"mime/quotedprintable"
	"net"
	"net/mail"
	"net/smtp"
	"net/textproto"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/agno-go/agno/tool"
)

// Security is how the SMTP connection is protected.
const (
	// SecuritySSL is TLS from the first byte (SMTP_SSL, port 465): agno's.
	SecuritySSL = "ssl"
	// SecuritySTARTTLS upgrades a plain connection (port 587).
	SecuritySTARTTLS = "starttls"
	// SecurityNone sends in clear text; net/smtp then refuses to log in
	// anywhere but on this machine.
	SecurityNone = "none"
)

// Defaults are agno's server.
const (
	DefaultHost    = "smtp.gmail.com"
	DefaultPort    = 465
	DefaultTimeout = 30 * time.Second
)

// Config configures the toolkit; the first fields are agno's EmailTools
// arguments.
type Config struct {
	ReceiverEmail, SenderName, SenderEmail, SenderPasskey string
	EnableEmailUser, All                                  bool

	// Host and Port are the SMTP server (default smtp.gmail.com:465);
	// Security is SecuritySSL (default), SecuritySTARTTLS or SecurityNone.
	Host     string
	Port     int
	Security string
	// TLSConfig verifies the server (nil: the system roots and Host).
	TLSConfig *tls.Config
	// Timeout bounds one send (0: 30s).
	Timeout time.Duration

	Instructions         string
	AddInstructions      bool
	Include, Exclude     []string
	RequiresConfirmation []string
	Logger               *slog.Logger
}

type emailArgs struct {
	Subject string `json:"subject" description:"The subject of the email."`
	Body    string `json:"body" description:"The body of the email."`
}

type sender struct {
	cfg Config
	log *slog.Logger
}

// New returns agno's "email_tools" toolkit. Missing addresses or login
// are not errors here: email_user reports them to the model, as agno.
func New(cfg Config) (*tool.Toolkit, error) {
	if cfg.Host == "" {
		cfg.Host = DefaultHost
	}
	if cfg.Port == 0 {
		cfg.Port = DefaultPort
	}
	if cfg.Security == "" {
		cfg.Security = SecuritySSL
	}
	if cfg.Timeout <= 0 {
		cfg.Timeout = DefaultTimeout
	}
	switch cfg.Security {
	case SecuritySSL, SecuritySTARTTLS, SecurityNone:
	default:
		return nil, fmt.Errorf("email: Security %q: use %q, %q or %q", cfg.Security, SecuritySSL, SecuritySTARTTLS, SecurityNone)
	}
	s := &sender{cfg: cfg, log: cfg.Logger}
	if s.log == nil {
		s.log = slog.Default()
	}
	e := tool.Enabled{All: cfg.All}
	e.If(cfg.EnableEmailUser)(tool.New("email_user", "Emails the user with the given subject and body.", s.emailUser))
	fns, err := e.Functions()
	if err != nil {
		return nil, err
	}
	return tool.NewToolkit(tool.ToolkitConfig{
		Name: "email_tools", Functions: fns, Instructions: cfg.Instructions, AddInstructions: cfg.AddInstructions,
		Include: cfg.Include, Exclude: cfg.Exclude, RequiresConfirmation: cfg.RequiresConfirmation, Logger: s.log,
	})
}

func (s *sender) emailUser(ctx context.Context, a emailArgs) (string, error) {
	c := s.cfg
	switch {
	case c.ReceiverEmail == "":
		return "error: No receiver email provided", nil
	case c.SenderName == "":
		return "error: No sender name provided", nil
	case c.SenderEmail == "":
		return "error: No sender email provided", nil
	case c.SenderPasskey == "":
		return "error: No sender passkey provided", nil
	}
	msg, err := s.message(a.Subject, a.Body)
	if err != nil {
		return "error: " + err.Error(), nil
	}
	s.log.Info("Sending Email to " + c.ReceiverEmail)
	if err := s.send(ctx, msg); err != nil {
		s.log.Error("Error sending email", "error", err)
		var te *textproto.Error
		if errors.As(err, &te) {
			// The server's reply as it wrote it, not Go's quoted form.
			return fmt.Sprintf("error: %d %s", te.Code, te.Msg), nil
		}
		return "error: " + err.Error(), nil
	}
	return "email sent successfully", nil
}

// message is what Python's EmailMessage with set_content writes: the
// three headers, then a text/plain UTF-8 body.
func (s *sender) message(subject, body string) ([]byte, error) {
	c := s.cfg
	for _, h := range []string{subject, c.SenderName, c.SenderEmail, c.ReceiverEmail} {
		if strings.ContainsAny(h, "\r\n") {
			// Python's header policy refuses these too: a model must not
			// add headers (Bcc) through the subject.
			//lint:ignore ST1005 agno's error text, which the model sees as it is
			return nil, errors.New("Header values may not contain linefeed or carriage return characters")
		}
	}
	from := (&mail.Address{Name: c.SenderName, Address: c.SenderEmail}).String()
	var b strings.Builder
	fmt.Fprintf(&b, "Subject: %s\r\n", mime.QEncoding.Encode("utf-8", subject))
	fmt.Fprintf(&b, "From: %s\r\n", from)
	fmt.Fprintf(&b, "To: %s\r\n", c.ReceiverEmail)
	b.WriteString("MIME-Version: 1.0\r\n")
	if !strings.HasSuffix(body, "\n") {
		// set_content ends the body with a newline.
		body += "\n"
	}
	body = strings.ReplaceAll(strings.ReplaceAll(body, "\r\n", "\n"), "\n", "\r\n")
	if isASCII(body) {
		b.WriteString("Content-Type: text/plain; charset=\"utf-8\"\r\nContent-Transfer-Encoding: 7bit\r\n\r\n")
		b.WriteString(body)
		return []byte(b.String()), nil
	}
	b.WriteString("Content-Type: text/plain; charset=\"utf-8\"\r\nContent-Transfer-Encoding: quoted-printable\r\n\r\n")
	w := quotedprintable.NewWriter(&b)
	if _, err := w.Write([]byte(body)); err != nil {
		return nil, err
	}
	if err := w.Close(); err != nil {
		return nil, err
	}
	return []byte(b.String()), nil
}

func isASCII(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] >= utf8.RuneSelf {
			return false
		}
	}
	return true
}

// send is smtplib's login and send_message, within the timeout.
func (s *sender) send(ctx context.Context, msg []byte) error {
	c := s.cfg
	ctx, cancel := context.WithTimeout(ctx, c.Timeout)
	defer cancel()
	addr := net.JoinHostPort(c.Host, strconv.Itoa(c.Port))
	tlsConf := c.TLSConfig
	if tlsConf == nil {
		tlsConf = &tls.Config{}
	}
	tlsConf = tlsConf.Clone()
	if tlsConf.ServerName == "" {
		tlsConf.ServerName = c.Host
	}
	var conn net.Conn
	var err error
	if c.Security == SecuritySSL {
		conn, err = (&tls.Dialer{Config: tlsConf}).DialContext(ctx, "tcp", addr)
	} else {
		conn, err = (&net.Dialer{}).DialContext(ctx, "tcp", addr)
	}
	if err != nil {
		return err
	}
	// The deadline bounds every SMTP exchange; the context the dial.
	deadline, _ := ctx.Deadline()
	_ = conn.SetDeadline(deadline)
	stop := context.AfterFunc(ctx, func() { _ = conn.Close() })
	defer stop()
	client, err := smtp.NewClient(conn, c.Host)
	if err != nil {
		conn.Close()
		return err
	}
	defer client.Close()
	if err := client.Hello("localhost"); err != nil {
		return err
	}
	if c.Security == SecuritySTARTTLS {
		if err := client.StartTLS(tlsConf); err != nil {
			return err
		}
	}
	if err := client.Auth(smtp.PlainAuth("", c.SenderEmail, c.SenderPasskey, c.Host)); err != nil {
		return err
	}
	if err := client.Mail(c.SenderEmail); err != nil {
		return err
	}
	if err := client.Rcpt(c.ReceiverEmail); err != nil {
		return err
	}
	w, err := client.Data()
	if err != nil {
		return err
	}
	if _, err := w.Write(msg); err != nil {
		return err
	}
	if err := w.Close(); err != nil {
		return err
	}
	return client.Quit()
}
