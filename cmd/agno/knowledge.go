package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/url"
	"os"
	"os/signal"
	"path/filepath"
	"strings"
	"syscall"
	"time"

	"github.com/mattn/go-isatty"
	"github.com/spf13/cobra"

	"github.com/agno-go/agno/config"
	"github.com/agno-go/agno/knowledge"
	"github.com/agno-go/agno/knowledge/contents"
	"github.com/agno-go/agno/knowledge/reader"
)

func newKnowledgeCmd() *cobra.Command {
	cmd := &cobra.Command{Use: "knowledge", Short: "Manage the knowledge bases of config.toml"}
	cmd.AddCommand(newKnowledgeAddCmd(), newKnowledgeListCmd(), newKnowledgeSearchCmd(), newKnowledgeRemoveCmd())
	return cmd
}

type knowledgeAddFlags struct {
	kbFlags
	name, description, metadata string
	include, exclude            []string
	upsert, skipIfExists        bool
}

func newKnowledgeAddCmd() *cobra.Command {
	var f knowledgeAddFlags
	cmd := &cobra.Command{
		Use:   "add PATH|URL [--knowledge NAME] [--config config.toml]",
		Short: "Ingest a file, a directory or a URL into a knowledge base",
		Long: `Ingest into a [knowledge.NAME] of config.toml: read, chunk, embed and
store in the configured database (the SQLite file or Postgres AgentOS
uses), with every content's status in the contents table. A directory is
walked recursively (--include / --exclude globs), one content per file,
with a progress bar on a terminal and one line per file otherwise.
AgentOS may run meanwhile: it sees the new contents at once.`,
		Args: func(cmd *cobra.Command, args []string) error {
			if len(args) != 1 {
				return usageErr(cmd, fmt.Errorf("give one file, directory or URL to ingest, got %d arguments", len(args)))
			}
			return nil
		},
		RunE: func(cmd *cobra.Command, args []string) error {
			ctx, stop := signal.NotifyContext(cmd.Context(), os.Interrupt, syscall.SIGTERM)
			defer stop()
			return knowledgeAdd(ctx, cmd, f, args[0])
		},
	}
	f.kbFlags.bind(cmd)
	fl := cmd.Flags()
	fl.StringVar(&f.name, "name", "", "content name (default: the file name or the URL)")
	fl.StringVar(&f.description, "description", "", "content description")
	fl.StringVar(&f.metadata, "metadata", "", `metadata as a JSON object, e.g. '{"team": "ops"}'`)
	fl.StringArrayVar(&f.include, "include", nil, `only files matching this glob ("*.md"); repeatable`)
	fl.StringArrayVar(&f.exclude, "exclude", nil, `skip files or directories matching this glob ("drafts"); repeatable`)
	fl.BoolVar(&f.upsert, "upsert", true, "replace what an earlier ingestion of the same content stored")
	fl.BoolVar(&f.skipIfExists, "skip-if-exists", false, "leave contents already stored alone")
	return cmd
}

// loadConfig loads config.toml with settings.json (the one given, else
// the one beside the config file when present).
func loadConfig(configPath, settingsPath string, logger *slog.Logger) (*config.Config, error) {
	cfg, err := config.Load(configPath)
	if err != nil {
		return nil, err
	}
	cfg.Logger = logger
	if settingsPath == "" {
		if p := filepath.Join(filepath.Dir(configPath), "settings.json"); fileExists(p) {
			settingsPath = p
		}
	}
	if settingsPath == "" {
		return cfg, nil
	}
	// A path on the command line is relative to the working directory
	// (LoadSettingsFile would read it against the config's directory).
	if settingsPath, err = filepath.Abs(settingsPath); err != nil {
		return nil, err
	}
	if cfg, err = cfg.LoadSettingsFile(settingsPath); err != nil {
		return nil, err
	}
	logger.Info("settings loaded", "path", settingsPath)
	return cfg, nil
}

func knowledgeAdd(ctx context.Context, cmd *cobra.Command, f knowledgeAddFlags, target string) error {
	var md map[string]any
	if f.metadata != "" {
		var err error
		if md, err = knowledge.DecodeMetadata([]byte(f.metadata)); err != nil {
			return usageErr(cmd, fmt.Errorf(`--metadata must be a JSON object, for example '{"team": "ops"}': %w`, err))
		}
	}
	src, err := classifyTarget(target)
	if err != nil {
		return err
	}
	kb, err := f.open(ctx, cmd)
	if err != nil {
		return err
	}
	defer kb.Close()
	name, cfg := kb.name, kb.cfg

	base := knowledge.Input{Name: f.name, Description: f.description, Metadata: md, Upsert: &f.upsert, SkipIfExists: f.skipIfExists}
	var items []knowledge.Input
	switch {
	case src.url != "":
		in := base
		in.URL = src.url
		items = append(items, in)
	case src.dir:
		files, err := reader.Walk(src.path, f.include, f.exclude)
		if err != nil {
			return fmt.Errorf("walk %s: %w", src.path, err)
		}
		if len(files) == 0 {
			return fmt.Errorf("%s has no files to ingest (include %v, exclude %v)", src.path, f.include, f.exclude)
		}
		if f.name != "" {
			return usageErr(cmd, errors.New("--name names one content; a directory gives each file its own name"))
		}
		for _, p := range files {
			in := base
			in.Path = p
			items = append(items, in)
		}
	default:
		in := base
		in.Path, in.Include, in.Exclude = src.path, f.include, f.exclude
		items = append(items, in)
	}

	bar := newProgress(cmd.ErrOrStderr(), len(items), src.dir)
	var done, failed, kept int
	for i, in := range items {
		label := in.URL
		if in.Path != "" {
			label = in.Path
			if rel, err := filepath.Rel(src.path, in.Path); err == nil && src.dir {
				label = rel
			}
		}
		got, err := kb.Insert(ctx, in)
		if ctx.Err() != nil {
			bar.finish()
			return fmt.Errorf("interrupted after %d of %d: %w", i, len(items), ctx.Err())
		}
		status := "completed"
		switch {
		case err != nil:
			status, failed = "failed: "+err.Error(), failed+1
		case len(got) == 0:
			status = "skipped (left out by --include / --exclude)"
		case got[0].Status == contents.StatusFailed:
			status, failed = "failed: "+got[0].StatusMessage, failed+1
		case allSkipped(got):
			status, kept = "skipped (already stored: --skip-if-exists)", kept+1
		default:
			done++
		}
		bar.step(i+1, label, status)
	}
	bar.finish()
	msg := fmt.Sprintf("Ingested %d of %d into knowledge base %q (%s)", done, len(items), name, storeText(cfg))
	if kept > 0 {
		msg += fmt.Sprintf("; %d already stored, skipped", kept)
	}
	fmt.Fprintln(cmd.OutOrStdout(), msg+".")
	if failed > 0 {
		return fmt.Errorf("%d of %d failed (see above)", failed, len(items))
	}
	return nil
}

// target is what `knowledge add` ingests: a URL, a file or a directory.
type target struct {
	url  string
	path string
	dir  bool
}

func classifyTarget(s string) (target, error) {
	if u, err := url.Parse(s); err == nil && (u.Scheme == "http" || u.Scheme == "https") && u.Host != "" {
		return target{url: s}, nil
	}
	if strings.Contains(s, "://") {
		return target{}, fmt.Errorf("%s: only http and https URLs can be ingested", s)
	}
	abs, err := filepath.Abs(s)
	if err != nil {
		return target{}, err
	}
	st, err := os.Stat(abs)
	if err != nil {
		return target{}, fmt.Errorf("%s: no such file or directory; give a file, a directory or an http(s) URL", s)
	}
	return target{path: abs, dir: st.IsDir()}, nil
}

// pickKnowledge resolves --knowledge against the config's [knowledge]
// tables.
func pickKnowledge(cfg *config.Config, name string) (string, error) {
	names := cfg.KnowledgeNames()
	switch {
	case len(names) == 0:
		return "", fmt.Errorf("%s has no knowledge base: add one, for example\n\n  [knowledge.docs]\n  description = \"Product documentation\"\n\nand run again with --knowledge docs", cfg.Path)
	case name == "" && len(names) == 1:
		return names[0], nil
	case name == "":
		return "", fmt.Errorf("%s has %d knowledge bases: choose one with --knowledge (%s)", cfg.Path, len(names), strings.Join(names, ", "))
	}
	for _, n := range names {
		if n == name {
			return name, nil
		}
	}
	return "", fmt.Errorf("--knowledge %s: %s has no [knowledge.%s]; it has %s", name, cfg.Path, name, strings.Join(names, ", "))
}

func storeText(cfg *config.Config) string { return cfg.StorageWhere() }

func cmpOr(a, b string) string {
	if a != "" {
		return a
	}
	return b
}

func newLoggerTo(w io.Writer, level string) (*slog.Logger, error) {
	var l slog.Level
	if err := l.UnmarshalText([]byte(level)); err != nil {
		return nil, errors.New("--log-level must be debug, info, warn or error")
	}
	return slog.New(slog.NewTextHandler(w, &slog.HandlerOptions{Level: l})), nil
}

// progress reports ingestion: a bar redrawn in place on a terminal, one
// line per content anywhere else (logs, pipes, CI).
type progress struct {
	w        io.Writer
	total, n int
	tty      bool
	start    time.Time
}

// stderrIsTerminal is a variable so tests can play a terminal.
var stderrIsTerminal = func(w io.Writer) bool {
	f, ok := w.(*os.File)
	return ok && isatty.IsTerminal(f.Fd())
}

func newProgress(w io.Writer, total int, many bool) *progress {
	return &progress{w: w, total: total, tty: many && stderrIsTerminal(w), start: time.Now()}
}

const barWidth = 30

func (p *progress) step(n int, label, status string) {
	if !p.tty {
		fmt.Fprintf(p.w, "[%d/%d] %s: %s\n", n, p.total, label, status)
		return
	}
	if !strings.HasPrefix(status, "completed") {
		// Problems stay on screen above the bar.
		fmt.Fprintf(p.w, "\r\033[K%s: %s\n", label, status)
	}
	filled := barWidth * n / p.total
	fmt.Fprintf(p.w, "\r\033[K[%s%s] %d/%d %s", strings.Repeat("#", filled), strings.Repeat(".", barWidth-filled), n, p.total, shorten(label, 40))
	p.n = n
}

func (p *progress) finish() {
	if p.tty && p.n > 0 {
		fmt.Fprintf(p.w, "\r\033[K%d/%d files in %s\n", p.n, p.total, time.Since(p.start).Round(time.Millisecond))
	}
}

func shorten(s string, n int) string {
	r := []rune(s)
	if len(r) <= n {
		return s
	}
	return "…" + string(r[len(r)-n+1:])
}

// allSkipped reports whether every content of one item was already
// stored (--skip-if-exists).
func allSkipped(got []*knowledge.Content) bool {
	for _, c := range got {
		if !c.Skipped {
			return false
		}
	}
	return len(got) > 0
}
