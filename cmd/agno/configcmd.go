package main

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"maps"
	"os"
	"os/signal"
	"slices"
	"strings"
	"sync"
	"syscall"

	"github.com/BurntSushi/toml"
	"github.com/spf13/cobra"

	"github.com/agno-go/agno/config"
	"github.com/agno-go/agno/storage/driver"
)

func newConfigCmd() *cobra.Command {
	cmd := &cobra.Command{Use: "config", Short: "Check config.toml, or print it with every default filled in"}
	cmd.AddCommand(newConfigCheckCmd(), newConfigShowCmd())
	return cmd
}

type configFlags struct {
	config, settings string
}

func (f *configFlags) bind(cmd *cobra.Command) {
	cmd.Flags().StringVar(&f.config, "config", "config.toml", "path of config.toml")
	cmd.Flags().StringVar(&f.settings, "settings", "", "path of settings.json (default: settings.json beside the config, when present)")
}

func newConfigCheckCmd() *cobra.Command {
	var f configFlags
	var connect, strict bool
	cmd := &cobra.Command{
		Use:   "check [--config config.toml]",
		Short: "Validate config.toml and every agent, team and workflow file, without serving",
		Long: `Load config.toml (and settings.json) and build what agno agentos start
would: models, toolkits, MCP servers (not started), knowledge bases, and
every agent, team and workflow file of the registry sources. Nothing is
served, and the storage is not touched: an in-memory database stands in
for it unless --connect is given. Every problem is printed once; the exit
status is 1 when AgentOS would fail to start or would skip a file, 0
otherwise (--strict: warnings fail too). For CI.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			ctx, stop := signal.NotifyContext(cmd.Context(), os.Interrupt, syscall.SIGTERM)
			defer stop()
			return configCheck(ctx, cmd.OutOrStdout(), f, connect, strict)
		},
	}
	f.bind(cmd)
	cmd.Flags().BoolVar(&connect, "connect", false, "open the configured storage too (creates the SQLite file, connects to Postgres)")
	cmd.Flags().BoolVar(&strict, "strict", false, "exit 1 on warnings too (a model key not set, a missing sources directory, ...)")
	return cmd
}

// errCheckFailed is returned once its findings are printed, so main adds
// only the summary line.
var errCheckFailed = errors.New("config check failed")

func configCheck(ctx context.Context, out io.Writer, f configFlags, connect, strict bool) error {
	h := &checkLog{w: out}
	logger := slog.New(&checkHandler{log: h})
	cfg, err := loadConfig(f.config, f.settings, logger)
	if err != nil {
		return err
	}
	dry := *cfg
	if !connect {
		if env := dry.StorageEnv(); env != "" && os.Getenv(env) == "" {
			logger.Warn(fmt.Sprintf("storage: %s reads its connection string from %s, which is not set here; agno agentos start needs it",
				cmp.Or(dry.Storage.Driver, driver.DefaultName()), env))
		}
		dry.Storage.Driver = driver.InProcessName()
	}
	// Check what a start with the sources scanned would load, even where
	// this file scans them later (refresh_on_start = false).
	dry.AgentOS.Registry.RefreshOnStart = true
	res, err := dry.Build(ctx, config.Functions{}, config.Existing{})
	if err != nil {
		return err
	}
	defer res.Close()
	res.Report.Log(logger)
	rep := res.Report
	failed := len(rep.Failures)
	for _, d := range rep.Scanned {
		if d.Err != nil {
			failed++
		}
	}
	summary := fmt.Sprintf("%s: %d agents, %d teams, %d workflows; %d files failed, %d warnings",
		cfg.Path, rep.Counts.Agents, rep.Counts.Teams, rep.Counts.Workflows, failed, h.warnings)
	switch {
	case failed > 0, strict && h.warnings > 0:
		fmt.Fprintln(out, summary+".")
		return errCheckFailed
	}
	fmt.Fprintln(out, summary+": OK.")
	return nil
}

// checkLog is where a check's findings go, and how many were warnings.
type checkLog struct {
	mu       sync.Mutex
	w        io.Writer
	warnings int
}

// checkHandler prints log records as a checklist: "warning: ..." for
// problems, the message alone for findings, attributes after it.
type checkHandler struct {
	log   *checkLog
	attrs []slog.Attr
}

func (h *checkHandler) Enabled(_ context.Context, l slog.Level) bool { return l >= slog.LevelInfo }

func (h *checkHandler) Handle(_ context.Context, r slog.Record) error {
	var b strings.Builder
	warn := r.Level >= slog.LevelWarn
	if warn {
		b.WriteString("warning: ")
	}
	b.WriteString(r.Message)
	attr := func(a slog.Attr) bool {
		fmt.Fprintf(&b, " %s=%q", a.Key, a.Value.String())
		return true
	}
	for _, a := range h.attrs {
		attr(a)
	}
	r.Attrs(attr)
	b.WriteByte('\n')
	h.log.mu.Lock()
	defer h.log.mu.Unlock()
	if warn {
		h.log.warnings++
	}
	_, err := io.WriteString(h.log.w, b.String())
	return err
}

func (h *checkHandler) WithAttrs(as []slog.Attr) slog.Handler {
	return &checkHandler{log: h.log, attrs: append(slices.Clone(h.attrs), as...)}
}

func (h *checkHandler) WithGroup(string) slog.Handler { return h }

func newConfigShowCmd() *cobra.Command {
	var f configFlags // --settings is accepted for symmetry; settings.json is not printed
	cmd := &cobra.Command{
		Use:   "show [--config config.toml]",
		Short: "Print the effective config.toml, with every default filled in",
		Long: `Print, as TOML that loads again, the configuration agno agentos start
would use: what config.toml sets, and the default of what it leaves out,
with paths resolved. Secrets are not in it: the config names the
environment variables that hold them.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			cfg, err := loadConfig(f.config, f.settings, slog.New(slog.DiscardHandler))
			if err != nil {
				return err
			}
			return showConfig(cmd.OutOrStdout(), cfg)
		},
	}
	f.bind(cmd)
	return cmd
}

// showConfig prints cfg as TOML that loads again: keys left unset (zero
// numbers, empty strings and lists, empty tables) are left out, as the
// file would leave them.
func showConfig(w io.Writer, cfg *config.Config) error {
	eff := cfg.Effective()
	doc, err := tomlMap(eff)
	if err != nil {
		return err
	}
	// A provider's own keys are beside the common ones in its table.
	models, _ := doc["models"].(map[string]any)
	for name, m := range eff.Models {
		table, _ := models[name].(map[string]any)
		if m.Options == nil || table == nil {
			continue
		}
		opts, err := tomlMap(m.Options)
		if err != nil {
			return err
		}
		maps.Copy(table, opts)
	}
	pruneUnset(doc)
	fmt.Fprintf(w, "# effective configuration of %s (the file, with defaults)\n", cfg.Path)
	return toml.NewEncoder(w).Encode(doc)
}

// tomlMap is v as TOML encodes it, read back as a document.
func tomlMap(v any) (map[string]any, error) {
	var b strings.Builder
	if err := toml.NewEncoder(&b).Encode(v); err != nil {
		return nil, err
	}
	var doc map[string]any
	if _, err := toml.Decode(b.String(), &doc); err != nil {
		return nil, err
	}
	return doc, nil
}

func pruneUnset(m map[string]any) {
	for k, v := range m {
		switch x := v.(type) {
		case map[string]any:
			pruneUnset(x)
			if len(x) == 0 {
				delete(m, k)
			}
		case string:
			if x == "" {
				delete(m, k)
			}
		case int64:
			if x == 0 {
				delete(m, k)
			}
		case float64:
			if x == 0 {
				delete(m, k)
			}
		case []any:
			if len(x) == 0 {
				delete(m, k)
			}
		case []map[string]any:
			if len(x) == 0 {
				delete(m, k)
			}
		}
	}
}
