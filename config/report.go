package config

import (
	"fmt"
	"log/slog"
	"strings"
)

// Report says what loading the registry sources did: which directories
// were scanned, what was found there, what loaded and what failed and
// why. Its String is the start-up log's answer to "why is my registry
// empty?".
type Report struct {
	// ConfigFile is the config file the sources belong to.
	ConfigFile string
	// AutoPopulate and RefreshOnStart are the [agentos] and
	// [agentos.registry] switches; with either off at start-up the sources
	// are not scanned.
	AutoPopulate   bool
	RefreshOnStart bool
	// Sources are the configured directories (absolute).
	Sources []string
	// DefaultSources: Sources were not set in the file (agents, teams,
	// workflows beside it), so a missing one is reported, not warned.
	DefaultSources bool
	// Scanned has one entry per directory actually scanned.
	Scanned  []ScannedDir
	Counts   Counts
	Failures []Failure
	// MissingKeys are models whose API key variable is not set.
	MissingKeys []MissingKey
}

// ScannedDir is one scanned source directory.
type ScannedDir struct {
	Path string
	// Kind is the kind its name gives its files ("" when the files must
	// say kind = ...).
	Kind   Kind
	Exists bool
	// Err is why the directory could not be read (not a directory,
	// permissions).
	Err error
	// Files are the *.toml files found (base names); Ignored the other
	// files, which are not loaded.
	Files   []string
	Ignored []string
}

// Counts are the resources loaded.
type Counts struct {
	Agents, Teams, Workflows int
}

// Total is the number of resources loaded.
func (c Counts) Total() int { return c.Agents + c.Teams + c.Workflows }

// Failure is a file that did not load; the others still do.
type Failure struct {
	File string
	Kind Kind // "" when the kind could not be told
	ID   string
	Err  error
}

func (r Report) scanned() bool { return r.AutoPopulate && r.RefreshOnStart }

// String renders the report for the start-up log, one finding a line.
func (r Report) String() string {
	var b strings.Builder
	for _, l := range r.lines() {
		b.WriteString(l.msg)
		b.WriteByte('\n')
	}
	return strings.TrimSuffix(b.String(), "\n")
}

type reportLine struct {
	warn bool
	msg  string
	// built: Build already logged it, with its fields.
	built bool
}

func (r Report) lines() []reportLine {
	var out []reportLine
	add := func(warn bool, format string, a ...any) {
		out = append(out, reportLine{warn: warn, msg: fmt.Sprintf(format, a...)})
	}
	for _, m := range r.MissingKeys {
		add(true, "model %q: its API key variable %s is not set; runs using it will fail until you export %s=<your key> and restart", m.Model, m.Env, m.Env)
		out[len(out)-1].built = true
	}
	if len(r.Scanned) == 0 && !r.scanned() {
		switch {
		case !r.AutoPopulate:
			add(true, "registry: sources not scanned: registry_auto_populate = false in [agentos] of %s; set it to true to register the agents, teams and workflows in %s",
				r.ConfigFile, listOr(r.Sources, "the sources directories"))
		case !r.RefreshOnStart:
			add(true, "registry: sources not scanned at start: refresh_on_start = false in [agentos.registry] of %s; set it to true to register the agents, teams and workflows in %s",
				r.ConfigFile, listOr(r.Sources, "the sources directories"))
		}
		return out
	}
	if len(r.Scanned) == 0 {
		add(true, "registry: no sources directories are configured ([agentos.registry] sources in %s is empty)", r.ConfigFile)
	}
	for _, d := range r.Scanned {
		kind := "files with kind = ..."
		if d.Kind != "" {
			kind = string(d.Kind) + " files"
		}
		switch {
		case d.Err != nil:
			add(true, "registry: scanned %s (%s): unreadable: %v", d.Path, kind, d.Err)
		case !d.Exists && r.DefaultSources:
			add(false, "registry: scanned %s (%s): not there (a default source; create it to add %s)", d.Path, kind, kind)
		case !d.Exists:
			add(true, "registry: scanned %s (%s): missing; create it or fix [agentos.registry] sources in %s (relative paths are relative to that file)", d.Path, kind, r.ConfigFile)
		case len(d.Files) == 0:
			msg := fmt.Sprintf("registry: scanned %s (%s): empty, no *.toml files", d.Path, kind)
			if len(d.Ignored) > 0 {
				msg += fmt.Sprintf(" (ignored, not .toml: %s)", strings.Join(d.Ignored, ", "))
			}
			add(true, "%s", msg)
		default:
			msg := fmt.Sprintf("registry: scanned %s (%s): %d found: %s", d.Path, kind, len(d.Files), strings.Join(d.Files, ", "))
			if len(d.Ignored) > 0 {
				msg += fmt.Sprintf(" (ignored, not .toml: %s)", strings.Join(d.Ignored, ", "))
			}
			add(false, "%s", msg)
		}
	}
	add(false, "registry: loaded %d agents, %d teams, %d workflows from files; %d files failed", r.Counts.Agents, r.Counts.Teams, r.Counts.Workflows, len(r.Failures))
	for _, f := range r.Failures {
		what := "file"
		if f.Kind != "" {
			what = string(f.Kind)
			if f.ID != "" {
				what += fmt.Sprintf(" %q", f.ID)
			}
		}
		msg := indent(f.Err)
		if f.File != "" && !strings.HasPrefix(msg, f.File) {
			msg = f.File + ": " + msg
		}
		add(true, "registry: skipped %s: %s", what, msg)
	}
	if r.Counts.Total() == 0 && len(r.Failures) == 0 {
		add(true, "registry: no agents, teams or workflows came from files: check that [agentos.registry] sources in %s point at directories holding *.toml files", r.ConfigFile)
	}
	return out
}

func listOr(list []string, none string) string {
	if len(list) == 0 {
		return none
	}
	return strings.Join(list, ", ")
}

// indent keeps a multi-problem error readable on following lines.
func indent(err error) string {
	return strings.ReplaceAll(err.Error(), "\n", "\n    ")
}

// Log writes the report to a logger: findings at info, problems at warn;
// what Build warned of already is not said twice.
func (r Report) Log(log *slog.Logger) {
	for _, l := range r.lines() {
		if l.built {
			continue
		}
		if l.warn {
			log.Warn(l.msg)
		} else {
			log.Info(l.msg)
		}
	}
}
