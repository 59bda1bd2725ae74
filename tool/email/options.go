package email

import (
	"errors"
	"fmt"
	"os"
	"time"

	"github.com/agno-go/agno/tool"
)

// ToolkitName is the name agents list in tools.
const ToolkitName = "email"

// Options are the keys of [toolkits.email]: agno's EmailTools arguments
// and Toolkit keywords, plus the server, its security and a timeout.
type Options struct {
	ReceiverEmail string `toml:"receiver_email"`
	SenderName    string `toml:"sender_name"`
	SenderEmail   string `toml:"sender_email"`
	SenderPasskey string `toml:"sender_passkey"`
	// SenderPasskeyEnv names a variable holding the passkey, so the
	// config file need not.
	SenderPasskeyEnv          string   `toml:"sender_passkey_env"`
	EnableEmailUser           bool     `toml:"enable_email_user"`
	All                       bool     `toml:"all"`
	SMTPHost                  string   `toml:"smtp_host"`
	SMTPPort                  int      `toml:"smtp_port"`
	Security                  string   `toml:"security"`
	TimeoutSeconds            float64  `toml:"timeout_seconds"`
	Instructions              string   `toml:"instructions"`
	AddInstructions           bool     `toml:"add_instructions"`
	RequiresConfirmationTools []string `toml:"requires_confirmation_tools"`
}

func init() {
	tool.RegisterToolkit(tool.ToolkitSpec[Options]{
		Name: ToolkitName, Summary: "email_user sends the configured receiver an email over SMTP (agno's EmailTools)",
		Defaults: func(tool.ToolkitEnv) Options {
			return Options{EnableEmailUser: true, SMTPHost: DefaultHost, SMTPPort: DefaultPort, Security: SecuritySSL}
		},
		Check: func(_ tool.ToolkitEnv, o *Options, _ func(string) bool) error {
			var errs []error
			if o.SenderPasskeyEnv != "" {
				errs = append(errs, tool.CheckEnvName("sender_passkey_env", o.SenderPasskeyEnv))
				if o.SenderPasskey != "" {
					errs = append(errs, tool.OptionErrorf("sender_passkey_env", "sender_passkey_env = %q and sender_passkey are both set: keep one (the variable keeps the secret out of the file)", o.SenderPasskeyEnv))
				}
			}
			if o.SMTPHost == "" {
				errs = append(errs, tool.OptionErrorf("smtp_host", `smtp_host is empty: name the SMTP server (default "smtp.gmail.com")`))
			}
			if o.SMTPPort < 1 || o.SMTPPort > 65535 {
				errs = append(errs, tool.OptionErrorf("smtp_port", "smtp_port = %d: use a TCP port, 465 for ssl (default) or 587 for starttls", o.SMTPPort))
			}
			switch o.Security {
			case SecuritySSL, SecuritySTARTTLS, SecurityNone:
			default:
				errs = append(errs, tool.OptionErrorf("security", "security = %q: use %q (TLS from the start, agno's; default), %q or %q (a relay on this machine)", o.Security, SecuritySSL, SecuritySTARTTLS, SecurityNone))
			}
			if o.TimeoutSeconds < 0 {
				errs = append(errs, tool.OptionErrorf("timeout_seconds", "timeout_seconds = %v: use a positive number of seconds, or leave it out for 30", o.TimeoutSeconds))
			}
			return errors.Join(errs...)
		},
		New: func(env tool.ToolkitEnv, o *Options) (tool.Provider, error) {
			pass := o.SenderPasskey
			if o.SenderPasskeyEnv != "" {
				if pass = os.Getenv(o.SenderPasskeyEnv); pass == "" {
					return nil, fmt.Errorf("toolkits.email.sender_passkey_env: %s is not set: export it with the sender's (app) password", o.SenderPasskeyEnv)
				}
			}
			return New(Config{
				ReceiverEmail: o.ReceiverEmail, SenderName: o.SenderName, SenderEmail: o.SenderEmail, SenderPasskey: pass,
				EnableEmailUser: o.EnableEmailUser, All: o.All, Host: o.SMTPHost, Port: o.SMTPPort, Security: o.Security,
				Timeout:      time.Duration(o.TimeoutSeconds * float64(time.Second)),
				Instructions: o.Instructions, AddInstructions: o.AddInstructions,
				RequiresConfirmation: o.RequiresConfirmationTools, Logger: env.Logger,
			})
		},
	})
}
