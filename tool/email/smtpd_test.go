package email

import (
	"bufio"
	"crypto/tls"
	"crypto/x509"
	"encoding/base64"
	"net"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
)

// smtpd is a minimal SMTP server after RFC 5321 (greeting 220; EHLO
// with its 250 multiline extension list; MAIL FROM, RCPT TO; DATA ended
// by a line holding only "." with dot-unstuffing, section 4.5.2; RSET,
// NOOP, QUIT), with AUTH PLAIN (RFC 4954/4616) and STARTTLS (RFC 3207).
// It records every message accepted.
type smtpd struct {
	ln       net.Listener
	tlsConf  *tls.Config // the server's certificate
	clientTL *tls.Config // a client config trusting it
	user     string
	pass     string
	starttls bool
	reject   string // a reply to RCPT TO, when set

	wg   sync.WaitGroup
	mu   sync.Mutex
	msgs []received
}

type received struct {
	from string
	to   []string
	data string
	tls  bool
}

// newSMTPD listens on loopback: implicit TLS when mode is ssl, plain
// otherwise (STARTTLS offered when mode is starttls).
func newSMTPD(t *testing.T, mode string) *smtpd {
	t.Helper()
	// httptest's TLS server carries a certificate for 127.0.0.1 and a
	// client that trusts it; only its configs are used.
	h := httptest.NewTLSServer(nil)
	s := &smtpd{tlsConf: h.TLS.Clone(), user: "bot@example.com", pass: "app-pass", starttls: mode == SecuritySTARTTLS}
	pool := x509.NewCertPool()
	pool.AddCert(h.Certificate())
	s.clientTL = &tls.Config{RootCAs: pool}
	h.Close()
	var err error
	s.ln, err = net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	if mode == SecuritySSL {
		s.ln = tls.NewListener(s.ln, s.tlsConf)
	}
	s.wg.Add(1)
	go s.serve()
	t.Cleanup(func() { s.ln.Close(); s.wg.Wait() })
	return s
}

func (s *smtpd) serve() {
	defer s.wg.Done()
	for {
		c, err := s.ln.Accept()
		if err != nil {
			return
		}
		s.wg.Add(1)
		go func() {
			defer s.wg.Done()
			defer c.Close()
			s.session(c)
		}()
	}
}

func (s *smtpd) session(c net.Conn) {
	_, isTLS := c.(*tls.Conn)
	r, w := bufio.NewReader(c), bufio.NewWriter(c)
	reply := func(lines ...string) {
		for _, l := range lines {
			_, _ = w.WriteString(l + "\r\n")
		}
		_ = w.Flush()
	}
	reply("220 fake.example ESMTP ready")
	var m received
	authed := false
	for {
		line, err := r.ReadString('\n')
		if err != nil {
			return
		}
		line = strings.TrimRight(line, "\r\n")
		verb, arg, _ := strings.Cut(line, " ")
		switch strings.ToUpper(verb) {
		case "EHLO", "HELO":
			ext := []string{"250-fake.example greets you", "250-8BITMIME", "250-AUTH PLAIN"}
			if s.starttls && !isTLS {
				ext = append(ext, "250-STARTTLS")
			}
			reply(append(ext, "250 SIZE 1048576")...)
		case "STARTTLS":
			if !s.starttls || isTLS {
				reply("503 5.5.1 TLS not available")
				continue
			}
			reply("220 2.0.0 Ready to start TLS")
			tc := tls.Server(c, s.tlsConf)
			if tc.Handshake() != nil {
				return
			}
			c, isTLS = tc, true
			r, w = bufio.NewReader(tc), bufio.NewWriter(tc)
			m, authed = received{}, false
		case "AUTH":
			mech, b64, _ := strings.Cut(arg, " ")
			raw, _ := base64.StdEncoding.DecodeString(b64)
			parts := strings.Split(string(raw), "\x00")
			if strings.ToUpper(mech) != "PLAIN" || len(parts) != 3 || parts[1] != s.user || parts[2] != s.pass {
				reply("535 5.7.8 Username and Password not accepted")
				continue
			}
			authed = true
			reply("235 2.7.0 Accepted")
		case "MAIL":
			if !authed {
				reply("530 5.7.0 Authentication Required")
				continue
			}
			// The path, without the parameters after it (BODY=8BITMIME).
			path, _, _ := strings.Cut(strings.TrimPrefix(arg, "FROM:<"), ">")
			m = received{from: path, tls: isTLS}
			reply("250 2.1.0 OK")
		case "RCPT":
			if s.reject != "" {
				reply(s.reject)
				continue
			}
			m.to = append(m.to, strings.TrimSuffix(strings.TrimPrefix(arg, "TO:<"), ">"))
			reply("250 2.1.5 OK")
		case "DATA":
			if len(m.to) == 0 {
				reply("503 5.5.1 RCPT first")
				continue
			}
			reply("354 Go ahead")
			var b strings.Builder
			for {
				l, err := r.ReadString('\n')
				if err != nil {
					return
				}
				if l == ".\r\n" {
					break
				}
				b.WriteString(strings.TrimPrefix(l, "."))
			}
			m.data = b.String()
			s.mu.Lock()
			s.msgs = append(s.msgs, m)
			s.mu.Unlock()
			reply("250 2.0.0 OK queued")
		case "RSET":
			m = received{}
			reply("250 2.0.0 OK")
		case "NOOP":
			reply("250 2.0.0 OK")
		case "QUIT":
			reply("221 2.0.0 Bye")
			return
		default:
			reply("502 5.5.2 Command not recognized")
		}
	}
}

func (s *smtpd) port() int { return s.ln.Addr().(*net.TCPAddr).Port }

func (s *smtpd) received() []received {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]received(nil), s.msgs...)
}
