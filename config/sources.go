package config

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"

	"github.com/BurntSushi/toml"

	"github.com/agno-go/agno/agent"
	"github.com/agno-go/agno/team"
	"github.com/agno-go/agno/workflow"
)

// Sources are the resources loaded from the registry sources directories.
type Sources struct {
	// Agents, Teams and Workflows are the files that loaded.
	Agents    []*agent.Agent
	Teams     []*team.Team
	Workflows []*workflow.Workflow
	// Files has one result per file scanned, in scan order.
	Files []FileResult
}

// FileResult is what became of one file.
type FileResult struct {
	File string
	Kind Kind
	ID   string
	// Err is why the file did not load; nil when it did.
	Err error
}

// LoadSources re-reads the registry sources directories, for a reload:
// models, MCP servers, toolkits and the store come from base (the
// Resources of Build), as do the code-defined resources files may refer
// to. Every file gets its own result, so the caller can keep the previous
// version of a file that fails now; and a file that refers to a resource
// whose file fails now is built against that previous version — base's
// Agents, Teams and Workflows, or, after earlier reloads, the versions
// being served: pass base.WithCatalog(served...).
//
// Unlike Build it scans whatever registry_auto_populate and
// refresh_on_start say: asking for a reload is asking for the scan.
func (c *Config) LoadSources(ctx context.Context, base *Resources, fn Functions) (*Sources, Report) {
	report := Report{ConfigFile: c.Path, AutoPopulate: true, RefreshOnStart: true, Sources: slices.Clone(c.AgentOS.Registry.Sources), DefaultSources: c.AgentOS.Registry.defaulted}
	if base == nil {
		report.Failures = append(report.Failures, Failure{Err: errors.New("config: LoadSources needs the Resources returned by Build")})
		return &Sources{}, report
	}
	if err := fn.validate(); err != nil {
		report.Failures = append(report.Failures, Failure{Err: err})
		return &Sources{}, report
	}
	// A view of base with these functions; nothing of base is changed.
	r := base.WithCatalog(nil, nil, nil)
	r.fn = fn
	prev := map[Kind]map[string]any{KindAgent: {}, KindTeam: {}, KindWorkflow: {}}
	for _, a := range base.Agents {
		prev[KindAgent][a.ID()] = a
	}
	for _, t := range base.Teams {
		prev[KindTeam][t.ID()] = t
	}
	for _, w := range base.Workflows {
		prev[KindWorkflow][w.ID()] = w
	}
	src, rep := c.loadSources(ctx, r, prev)
	rep.AutoPopulate, rep.RefreshOnStart = true, true
	return src, rep
}

// WithCatalog returns a view of r whose Agents, Teams and Workflows are
// the given ones (the versions being served), for LoadSources to fall
// back on. Nothing of r is changed; Close the original, not the view.
func (r *Resources) WithCatalog(agents []*agent.Agent, teams []*team.Team, workflows []*workflow.Workflow) *Resources {
	return &Resources{Store: r.Store, Models: r.Models, MCP: r.MCP, Toolkits: r.Toolkits,
		Knowledge: r.Knowledge, KnowledgeTables: r.KnowledgeTables, Outbound: r.Outbound,
		Agents: agents, Teams: teams, Workflows: workflows, Report: r.Report,
		cfg: r.cfg, fn: r.fn, existing: r.existing, mcpErr: r.mcpErr, toolkitErr: r.toolkitErr, toolkitMu: r.toolkitMu, strings: r.strings}
}

// loadSources scans, parses, resolves and builds; prev are earlier
// versions to fall back on for dependencies (nil at start-up).
func (c *Config) loadSources(ctx context.Context, r *Resources, prev map[Kind]map[string]any) (*Sources, Report) {
	report := Report{ConfigFile: c.Path, AutoPopulate: c.AgentOS.RegistryAutoPopulate, RefreshOnStart: c.AgentOS.Registry.RefreshOnStart,
		Sources: slices.Clone(c.AgentOS.Registry.Sources), DefaultSources: c.AgentOS.Registry.defaulted}
	l := &loader{cfg: c, res: r, fn: r.fn, prev: prev, byID: map[Kind]map[string]*resFile{KindAgent: {}, KindTeam: {}, KindWorkflow: {}}}
	for _, dir := range c.AgentOS.Registry.Sources {
		sd, files := scanDir(dir)
		report.Scanned = append(report.Scanned, sd)
		for _, name := range files {
			if ctx.Err() != nil {
				break
			}
			l.files = append(l.files, l.parse(filepath.Join(dir, name), sd.Kind))
		}
	}
	l.indexIDs()
	for _, f := range l.files {
		if f.err == nil {
			l.resolveRefs(f)
		}
	}
	for _, f := range l.files {
		l.visit(f)
	}

	out := &Sources{}
	for _, f := range l.files {
		out.Files = append(out.Files, FileResult{File: f.path, Kind: f.kind, ID: f.id, Err: f.err})
		if f.err != nil {
			report.Failures = append(report.Failures, Failure{File: f.path, Kind: f.kind, ID: f.id, Err: f.err})
			continue
		}
		switch o := f.obj.(type) {
		case *agent.Agent:
			out.Agents = append(out.Agents, o)
		case *team.Team:
			out.Teams = append(out.Teams, o)
		case *workflow.Workflow:
			out.Workflows = append(out.Workflows, o)
		}
	}
	report.Counts = Counts{Agents: len(out.Agents), Teams: len(out.Teams), Workflows: len(out.Workflows)}
	return out, report
}

// scanDir lists a source directory's files: *.toml to load (sorted), the
// rest ignored. Hidden files (editor swap files) are skipped silently.
func scanDir(dir string) (ScannedDir, []string) {
	sd := ScannedDir{Path: dir, Kind: dirKinds[filepath.Base(dir)]}
	entries, err := os.ReadDir(dir)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return sd, nil
	case err != nil:
		sd.Exists = true
		if fi, serr := os.Stat(dir); serr == nil && !fi.IsDir() {
			err = errors.New("not a directory")
		}
		sd.Err = err
		return sd, nil
	}
	sd.Exists = true
	for _, e := range entries {
		name := e.Name()
		if strings.HasPrefix(name, ".") || e.IsDir() {
			continue
		}
		if strings.EqualFold(filepath.Ext(name), ".toml") {
			sd.Files = append(sd.Files, name)
		} else {
			sd.Ignored = append(sd.Ignored, name)
		}
	}
	sort.Strings(sd.Files)
	return sd, sd.Files
}

// resFile is one resource file on its way to a live object.
type resFile struct {
	path string
	kind Kind
	id   string
	idx  *keyIndex

	agent    *AgentFile
	team     *TeamFile
	workflow *WorkflowFile

	unknown error // unknown keys
	refs    []*ref
	// compiled conditions, selectors and end conditions by key path.
	compiled map[string]any

	err   error
	state int // 0 new, 1 visiting, 2 done
	obj   any
}

// ref is a reference from a file to an agent, team or workflow.
type ref struct {
	key    string // indexed key path, for the line ("members[1]")
	source string // as written ("team:loop-a")
	kind   Kind   // wanted kind; "" is agent or team (team members)
	id     string

	file     *resFile // the target when file-defined
	existing any      // the target when code-defined
}

type loader struct {
	cfg   *Config
	res   *Resources
	fn    Functions
	prev  map[Kind]map[string]any
	files []*resFile
	byID  map[Kind]map[string]*resFile
	stack []*resFile
}

func (f *resFile) fail(err error) {
	if f.err == nil {
		f.err = err
	}
}

// parse reads a file and validates what it can alone.
func (l *loader) parse(path string, dirKind Kind) *resFile {
	data, err := os.ReadFile(path)
	if err != nil {
		f := &resFile{path: path, kind: dirKind}
		f.fail(fmt.Errorf("read: %w", err))
		return f
	}
	return l.parseData(path, data, dirKind)
}

// parseData parses the contents of a resource file.
func (l *loader) parseData(path string, data []byte, dirKind Kind) *resFile {
	f := &resFile{path: path, kind: dirKind, compiled: map[string]any{}}
	var err error
	src := strings.TrimPrefix(string(data), "\ufeff")
	f.idx = indexKeys(src)
	var probe struct {
		Kind any `toml:"kind"`
	}
	if _, err := toml.Decode(src, &probe); err != nil {
		f.fail(syntaxError(path, src, err))
		return f
	}
	p := &problems{file: path, idx: f.idx}
	if probe.Kind != nil {
		s, _ := probe.Kind.(string)
		k := Kind(s)
		switch {
		case k != KindAgent && k != KindTeam && k != KindWorkflow:
			p.at("kind", "kind = %v: use \"agent\", \"team\" or \"workflow\"", tomlValue(probe.Kind))
		case dirKind != "" && k != dirKind:
			p.at("kind", "kind = %q, but the file is in %s/, which holds %ss: move it to the %ss directory or remove kind", k, filepath.Base(filepath.Dir(path)), dirKind, k)
		default:
			f.kind = k
		}
	}
	if f.kind == "" && p.err() == nil {
		p.at("", "cannot tell whether this is an agent, a team or a workflow: put it in an agents/, teams/ or workflows/ source directory, or add kind = \"agent\" (or \"team\", \"workflow\")")
	}
	if err := p.err(); err != nil {
		f.fail(err)
		return f
	}
	stem := strings.TrimSuffix(filepath.Base(path), filepath.Ext(path))
	switch f.kind {
	case KindAgent:
		f.agent = &AgentFile{}
		err = l.decode(f, src, f.agent)
		f.id = firstNonEmpty(f.agent.ID, stem)
	case KindTeam:
		f.team = &TeamFile{}
		err = l.decode(f, src, f.team)
		f.id = firstNonEmpty(f.team.ID, stem)
	case KindWorkflow:
		f.workflow = &WorkflowFile{}
		err = l.decode(f, src, f.workflow)
		f.id = firstNonEmpty(f.workflow.ID, stem)
	}
	if err != nil {
		f.fail(err)
		return f
	}
	p = &problems{file: path, idx: f.idx}
	if f.unknown != nil {
		p.errs = append(p.errs, f.unknown)
	}
	checkID(p, f.id, stem)
	switch f.kind {
	case KindAgent:
		l.checkAgent(p, f)
	case KindTeam:
		l.checkTeam(p, f)
	case KindWorkflow:
		l.checkWorkflow(p, f)
	}
	f.fail(p.err())
	return f
}

// decode decodes a resource file; unknown keys are kept as the file's
// problems while validation goes on.
func (l *loader) decode(f *resFile, src string, v any) error {
	_, fatal, unknown := decodeStrict(f.path, src, v, f.idx)
	if fatal != nil {
		return fatal
	}
	f.unknown = unknown
	return nil
}

func tomlValue(v any) string {
	if s, ok := v.(string); ok {
		return fmt.Sprintf("%q", s)
	}
	return tomlKind(v)
}

func firstNonEmpty(vals ...string) string {
	for _, v := range vals {
		if v != "" {
			return v
		}
	}
	return ""
}

// checkID: ids are URL path segments (/agents/{id}/runs).
func checkID(p *problems, id, stem string) {
	key := "id"
	if !p.has("id") {
		key = ""
	}
	if strings.TrimSpace(id) == "" || strings.ContainsAny(id, "/\\?#% \t\n") {
		src := "the file name " + fmt.Sprintf("%q", stem)
		if key != "" {
			src = "id"
		}
		p.at(key, "the id %q (from %s) cannot be used in URLs: use letters, digits, -, _ and . only", id, src)
	}
}

// indexIDs records every file's id, failing duplicates and clashes with
// code-defined resources.
func (l *loader) indexIDs() {
	for _, f := range l.files {
		if f.err != nil || f.kind == "" {
			continue
		}
		if other, ok := l.byID[f.kind][f.id]; ok {
			f.fail(&Error{File: f.path, Msg: fmt.Sprintf("%s id %q is already defined by %s: give one of them another id (the id is the file name unless the file sets id)", f.kind, f.id, other.path)})
			continue
		}
		if l.existingByID(f.kind, f.id) != nil {
			f.fail(&Error{File: f.path, Msg: fmt.Sprintf("%s id %q is already used by a %s defined in code: give the file another id (the id is the file name unless the file sets id)", f.kind, f.id, f.kind)})
			continue
		}
		l.byID[f.kind][f.id] = f
	}
}

func (l *loader) existingByID(k Kind, id string) any {
	ex := l.res.existing
	switch k {
	case KindAgent:
		for _, a := range ex.Agents {
			if a != nil && a.ID() == id {
				return a
			}
		}
	case KindTeam:
		for _, t := range ex.Teams {
			if t != nil && t.ID() == id {
				return t
			}
		}
	case KindWorkflow:
		for _, w := range ex.Workflows {
			if w != nil && w.ID() == id {
				return w
			}
		}
	}
	return nil
}

// resolveRefs binds every reference of a file to its target.
func (l *loader) resolveRefs(f *resFile) {
	p := &problems{file: f.path, idx: f.idx}
	for _, r := range f.refs {
		kinds := []Kind{r.kind}
		if r.kind == "" {
			kinds = []Kind{KindAgent, KindTeam}
		}
		type hit struct {
			kind Kind
			file *resFile
			obj  any
		}
		var hits []hit
		for _, k := range kinds {
			if t := l.byID[k][r.id]; t != nil {
				hits = append(hits, hit{k, t, nil})
			} else if o := l.existingByID(k, r.id); o != nil {
				hits = append(hits, hit{k, nil, o})
			} else if t := l.failedByID(k, r.id); t != nil {
				hits = append(hits, hit{k, t, nil})
			}
		}
		switch len(hits) {
		case 0:
			p.at(r.key, "%s = %q: %s", r.key, r.source, l.unknownRef(r))
		case 1:
			r.kind, r.file, r.existing = hits[0].kind, hits[0].file, hits[0].obj
		default:
			p.at(r.key, "%s = %q: both an agent and a team have this id; write \"agent:%s\" or \"team:%s\"", r.key, r.source, r.id, r.id)
		}
	}
	f.fail(p.err())
}

// failedByID finds a file of that kind and id that failed before its id
// was indexed (a parse error), so a reference to it reports the failure
// rather than "unknown".
func (l *loader) failedByID(k Kind, id string) *resFile {
	for _, f := range l.files {
		if f.kind == k && f.id == id && f.err != nil {
			return f
		}
	}
	return nil
}

func (l *loader) unknownRef(r *ref) string {
	kinds := []Kind{r.kind}
	if r.kind == "" {
		kinds = []Kind{KindAgent, KindTeam}
	}
	var known []string
	var names []string
	for _, k := range kinds {
		ids := l.knownIDs(k)
		known = append(known, fmt.Sprintf("%ss: %s", k, listOr(ids, "none")))
		names = append(names, string(k))
	}
	what := strings.Join(names, " or ")
	return fmt.Sprintf("no %s has this id (%s): add a file %s.toml to a sources directory, define it in code, or fix the id (a file's id is its file name unless it sets id)",
		what, strings.Join(known, "; "), r.id)
}

func (l *loader) knownIDs(k Kind) []string {
	var ids []string
	for id := range l.byID[k] {
		ids = append(ids, id)
	}
	ex := l.res.existing
	switch k {
	case KindAgent:
		for _, a := range ex.Agents {
			if a != nil {
				ids = append(ids, a.ID())
			}
		}
	case KindTeam:
		for _, t := range ex.Teams {
			if t != nil {
				ids = append(ids, t.ID())
			}
		}
	case KindWorkflow:
		for _, w := range ex.Workflows {
			if w != nil {
				ids = append(ids, w.ID())
			}
		}
	}
	sort.Strings(ids)
	return slices.Compact(ids)
}

// visit builds a file after everything it refers to, failing reference
// cycles and files whose dependencies failed.
func (l *loader) visit(f *resFile) {
	if f.state == 2 {
		return
	}
	f.state = 1
	l.stack = append(l.stack, f)
	for _, r := range f.refs {
		t := r.file
		if t == nil {
			continue
		}
		if t.state == 1 {
			l.failCycle(t)
			continue
		}
		l.visit(t)
	}
	l.stack = l.stack[:len(l.stack)-1]
	f.state = 2
	if f.err != nil {
		return
	}
	for _, r := range f.refs {
		t := r.file
		if t == nil || t.err == nil {
			continue
		}
		if old := l.prev[t.kind][t.id]; old != nil {
			r.existing, r.file = old, nil
			continue
		}
		pos := &problems{file: f.path, idx: f.idx}
		pos.at(r.key, "%s = %q: %s %q (%s) failed to load, so this %s cannot be built; fix that file first", r.key, r.source, t.kind, t.id, t.path, f.kind)
		f.fail(pos.err())
		return
	}
	obj, err := l.construct(f)
	if err != nil {
		f.fail(err)
		return
	}
	f.obj = obj
}

// failCycle fails every file of the cycle that ends at t on the stack.
func (l *loader) failCycle(t *resFile) {
	i := slices.Index(l.stack, t)
	if i < 0 {
		return
	}
	cycle := l.stack[i:]
	var names []string
	for _, f := range cycle {
		names = append(names, fmt.Sprintf("%s %q (%s)", f.kind, f.id, filepath.Base(f.path)))
	}
	names = append(names, fmt.Sprintf("%s %q", t.kind, t.id))
	chain := strings.Join(names, " → ")
	for j, f := range cycle {
		next := t
		if j+1 < len(cycle) {
			next = cycle[j+1]
		}
		key := ""
		for _, r := range f.refs {
			if r.file == next {
				key = r.key
				break
			}
		}
		p := &problems{file: f.path, idx: f.idx}
		p.at(key, "reference cycle: %s; a team cannot contain itself and a resource cannot use itself, directly or through others: remove one of these references", chain)
		f.fail(p.err())
	}
}

// target returns the built object a reference points at.
func (r *ref) target() any {
	if r.file != nil {
		return r.file.obj
	}
	return r.existing
}
