// Package python is agno's PythonTools: save Python code to a file and
// run it, run code, run a file and return one of its variables, read and
// list files.
//
// agno runs the code inside its own process; here every call runs a fresh
// interpreter (python3 by default) as a subprocess, in the base
// directory, with a timeout, and its result is cut to a size bound. So no
// state is kept between calls: a variable set by one run_python_code is
// gone in the next. The code itself is arbitrary code with the rights of
// this process (agno: "PythonTools can run arbitrary code, please provide
// human supervision"); only the files the tools name are confined to the
// base directory.
package python

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/agno-go/agno/tool"
	"github.com/agno-go/agno/tool/file"
)

// Defaults of Config.
const (
	DefaultInterpreter     = "python3"
	DefaultTimeout         = 60 * time.Second
	DefaultMaxResultLength = 100_000
	// pipTimeout bounds a package install, which downloads.
	pipTimeout = 10 * time.Minute
)

// Config configures the toolkit.
type Config struct {
	// BaseDir is where files are saved, read and run, and the
	// interpreter's working directory; empty means the current directory.
	BaseDir string
	// RestrictToBaseDir confines the files the tools name to BaseDir
	// (agno's restrict_to_base_dir, default true in Options).
	RestrictToBaseDir bool
	// Interpreter is the Python to run, a name looked up in PATH or a
	// path; empty means "python3".
	Interpreter string
	// Timeout bounds one run; 0 means 60 seconds.
	Timeout time.Duration
	// MaxResultLength bounds the characters of a returned value; 0 means
	// 100,000.
	MaxResultLength int
	// AllowPipInstall lets pip_install_package and uv_pip_install_package
	// install packages; without it they refuse (no downloads by default).
	AllowPipInstall bool

	Instructions    string
	AddInstructions bool
	Logger          *slog.Logger
}

type pythonTools struct {
	base        *file.Base
	restrict    bool
	interpreter string
	timeout     time.Duration
	maxResult   int
	allowPip    bool
	log         *slog.Logger
}

type saveRunArgs struct {
	FileName         string  `json:"file_name" description:"The name of the file the code will be saved to."`
	Code             string  `json:"code" description:"The code to save and run."`
	VariableToReturn *string `json:"variable_to_return,omitempty" description:"The variable to return."`
	Overwrite        *bool   `json:"overwrite,omitempty" description:"Overwrite the file if it already exists."`
}

type runCodeArgs struct {
	Code             string  `json:"code" description:"The code to run."`
	VariableToReturn *string `json:"variable_to_return,omitempty" description:"The variable to return."`
}

type pipArgs struct {
	PackageName string `json:"package_name" description:"The name of the package to install."`
}

type runFileArgs struct {
	FileName         string  `json:"file_name" description:"The name of the file to run."`
	VariableToReturn *string `json:"variable_to_return,omitempty" description:"The variable to return."`
}

type readArgs struct {
	FileName string `json:"file_name" description:"The name of the file to read."`
}

type listArgs struct{}

// New validates the configuration and returns agno's "python_tools".
func New(cfg Config) (*tool.Toolkit, error) {
	base, err := file.OpenBase(cfg.BaseDir)
	if err != nil {
		return nil, fmt.Errorf("python: BaseDir: %w", err)
	}
	if cfg.Timeout < 0 || cfg.MaxResultLength < 0 {
		return nil, errors.New("python: Timeout and MaxResultLength must not be negative (0 means the default)")
	}
	p := &pythonTools{base: base, restrict: cfg.RestrictToBaseDir, interpreter: cfg.Interpreter, timeout: cfg.Timeout,
		maxResult: cfg.MaxResultLength, allowPip: cfg.AllowPipInstall, log: cfg.Logger}
	if p.interpreter == "" {
		p.interpreter = DefaultInterpreter
	}
	if p.timeout == 0 {
		p.timeout = DefaultTimeout
	}
	if p.maxResult == 0 {
		p.maxResult = DefaultMaxResultLength
	}
	if p.log == nil {
		p.log = slog.Default()
	}
	var e tool.Enabled
	e.If(true)(tool.New("save_to_file_and_run", saveRunDoc, p.saveToFileAndRun))
	e.If(true)(tool.New("run_python_code", runCodeDoc, p.runPythonCode))
	e.If(true)(tool.New("pip_install_package", pipDoc, p.pipInstall))
	e.If(true)(tool.New("uv_pip_install_package", uvPipDoc, p.uvPipInstall))
	e.If(true)(tool.New("run_python_file_return_variable", runFileDoc, p.runFile))
	e.If(true)(tool.New("read_file", "Reads the contents of the file `file_name` and returns the contents if successful.", p.readFile))
	e.If(true)(tool.New("list_files", "Returns a list of files in the base directory", p.listFiles))
	fns, err := e.Functions()
	if err != nil {
		return nil, err
	}
	return tool.NewToolkit(tool.ToolkitConfig{Name: "python_tools", Functions: fns, Instructions: cfg.Instructions, AddInstructions: cfg.AddInstructions})
}

// agno's docstrings as its parser makes descriptions of them.
const (
	saveRunDoc = "This function saves Python code to a file called `file_name` and then runs it.\nIf successful, returns the value of `variable_to_return` if provided otherwise returns a success message.\nIf failed, returns an error message.\n\nMake sure the file_name ends with `.py`"
	runCodeDoc = "This function to runs Python code in the current environment.\nIf successful, returns the value of `variable_to_return` if provided otherwise returns a success message.\nIf failed, returns an error message.\n\nReturns the value of `variable_to_return` if successful, otherwise returns an error message."
	pipDoc     = "This function installs a package using pip in the current environment.\nIf successful, returns a success message.\nIf failed, returns an error message."
	uvPipDoc   = "This function installs a package using uv and pip in the current environment.\nIf successful, returns a success message.\nIf failed, returns an error message."
	runFileDoc = "This function runs code in a Python file.\nIf successful, returns the value of `variable_to_return` if provided otherwise returns a success message.\nIf failed, returns an error message."
)

// path resolves a file argument: confined to the base, or (with
// restrict_to_base_dir = false) anywhere, relative to the base.
func (p *pythonTools) path(name string) (abs string, ok bool) {
	if !p.restrict {
		if filepath.IsAbs(name) {
			return filepath.Clean(name), true
		}
		return filepath.Join(p.base.Dir(), name), true
	}
	rel, err := p.base.Resolve("file_name", name)
	if err != nil {
		return "", false
	}
	return filepath.Join(p.base.Dir(), rel), true
}

func (p *pythonTools) outside(name string) string {
	return fmt.Sprintf("Error: Path '%s' is outside the allowed base directory", name)
}

// result is agno's answer after a run: the variable's value, "Variable
// … not found", or the success message.
func (p *pythonTools) result(o *outcome, variable *string, success string) string {
	if variable == nil || *variable == "" {
		return success
	}
	if !o.Found {
		return fmt.Sprintf("Variable %s not found", *variable)
	}
	return o.text(p.maxResult)
}

func deref(s *string) string {
	if s == nil {
		return ""
	}
	return *s
}

func (p *pythonTools) saveToFileAndRun(ctx context.Context, a saveRunArgs) (string, error) {
	const prefix = "Error saving and running code: "
	abs, ok := p.path(a.FileName)
	if !ok {
		return p.outside(a.FileName), nil
	}
	overwrite := a.Overwrite == nil || *a.Overwrite
	if p.restrict {
		_, exists, err := p.base.WriteFile("file_name", a.FileName, []byte(a.Code), overwrite)
		if err != nil {
			return prefix + err.Error(), nil
		}
		if exists {
			return fmt.Sprintf("File %s already exists", a.FileName), nil
		}
	} else {
		if err := os.MkdirAll(filepath.Dir(abs), 0o755); err != nil {
			return prefix + err.Error(), nil
		}
		flags := os.O_WRONLY | os.O_CREATE | os.O_TRUNC
		if !overwrite {
			flags = os.O_WRONLY | os.O_CREATE | os.O_EXCL
		}
		if err := writeFile(abs, flags, a.Code); os.IsExist(err) {
			return fmt.Sprintf("File %s already exists", a.FileName), nil
		} else if err != nil {
			return prefix + err.Error(), nil
		}
	}
	p.log.Warn("python: running model-written code; PythonTools can run arbitrary code, please provide human supervision", "file", abs)
	o, err := p.run(ctx, "file", abs, "", deref(a.VariableToReturn))
	if err != nil {
		return prefix + err.Error(), nil
	}
	if o.Error {
		return prefix + o.text(p.maxResult), nil
	}
	return p.result(o, a.VariableToReturn, "successfully ran "+abs), nil
}

func writeFile(path string, flags int, s string) error {
	w, err := os.OpenFile(path, flags, 0o644)
	if err != nil {
		return err
	}
	if _, err := w.WriteString(s); err != nil {
		w.Close()
		return err
	}
	return w.Close()
}

func (p *pythonTools) runFile(ctx context.Context, a runFileArgs) (string, error) {
	const prefix = "Error running file: "
	abs, ok := p.path(a.FileName)
	if !ok {
		return p.outside(a.FileName), nil
	}
	if fi, err := os.Stat(abs); err != nil {
		return prefix + err.Error(), nil
	} else if fi.IsDir() {
		return prefix + fmt.Sprintf("%q is a directory", a.FileName), nil
	}
	p.log.Warn("python: running a file; PythonTools can run arbitrary code, please provide human supervision", "file", abs)
	o, err := p.run(ctx, "file", abs, "", deref(a.VariableToReturn))
	if err != nil {
		return prefix + err.Error(), nil
	}
	if o.Error {
		return prefix + o.text(p.maxResult), nil
	}
	return p.result(o, a.VariableToReturn, "successfully ran "+abs), nil
}

func (p *pythonTools) runPythonCode(ctx context.Context, a runCodeArgs) (string, error) {
	const prefix = "Error running python code: "
	p.log.Warn("python: running model-written code; PythonTools can run arbitrary code, please provide human supervision")
	o, err := p.run(ctx, "code", "", a.Code, deref(a.VariableToReturn))
	if err != nil {
		return prefix + err.Error(), nil
	}
	if o.Error {
		return prefix + o.text(p.maxResult), nil
	}
	return p.result(o, a.VariableToReturn, "successfully ran python code"), nil
}

func (p *pythonTools) pipInstall(ctx context.Context, a pipArgs) (string, error) {
	return p.install(ctx, a.PackageName, "pip", "allow_pip_install")
}

func (p *pythonTools) uvPipInstall(ctx context.Context, a pipArgs) (string, error) {
	return p.install(ctx, a.PackageName, "uv", "allow_pip_install")
}

// install runs `python -m pip install <name>` (or `-m uv pip install`),
// only when the operator allowed downloads.
func (p *pythonTools) install(ctx context.Context, name, via, key string) (string, error) {
	fail := func(msg string) (string, error) {
		return fmt.Sprintf("Error installing package %s: %s", name, msg), nil
	}
	if !p.allowPip {
		return fail(fmt.Sprintf("installing packages is disabled: set %s = true in [toolkits.python] to allow it", key))
	}
	if strings.TrimSpace(name) == "" || strings.HasPrefix(name, "-") {
		return fail("package_name must name a package, not be empty or an option")
	}
	interp, err := exec.LookPath(p.interpreter)
	if err != nil {
		return fail(fmt.Sprintf("%v: %q was not found; set interpreter in [toolkits.python]", ErrNoInterpreter, p.interpreter))
	}
	args := []string{"-m", "pip", "install", name}
	if via == "uv" {
		args = []string{"-m", "uv", "pip", "install", name}
	}
	ctx, cancel := context.WithTimeout(ctx, pipTimeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, interp, args...)
	cmd.Dir = p.base.Dir()
	var out tail
	cmd.Stdout, cmd.Stderr = &out, &out
	cmd.WaitDelay = 2 * time.Second
	inGroup(cmd)
	if err := cmd.Run(); err != nil {
		return fail(fmt.Sprintf("%v: %s", err, strings.TrimSpace(out.String())))
	}
	return "successfully installed package " + name, nil
}

func (p *pythonTools) readFile(_ context.Context, a readArgs) (string, error) {
	const prefix = "Error reading file: "
	var data []byte
	var err error
	if p.restrict {
		data, err = p.base.ReadFile("file_name", a.FileName)
		if errors.Is(err, file.ErrOutsideBase) {
			return "Error reading file: path outside allowed directory", nil
		}
	} else {
		abs, _ := p.path(a.FileName)
		data, err = os.ReadFile(abs)
	}
	if err != nil {
		return prefix + err.Error(), nil
	}
	if !utf8.Valid(data) {
		return prefix + fmt.Sprintf("%q is not UTF-8 text", a.FileName), nil
	}
	if n := utf8.RuneCount(data); n > p.maxResult {
		return prefix + fmt.Sprintf("%q has %d characters, more than max_result_length (%d)", a.FileName, n, p.maxResult), nil
	}
	return string(data), nil
}

func (p *pythonTools) listFiles(context.Context, listArgs) (string, error) {
	entries, err := os.ReadDir(p.base.Dir())
	if err != nil {
		return "Error reading files: " + err.Error(), nil
	}
	names := make([]string, 0, len(entries))
	for _, e := range entries {
		names = append(names, e.Name())
	}
	slices.Sort(names)
	s := strings.Join(names, ", ")
	if n := utf8.RuneCountInString(s); n > p.maxResult {
		return fmt.Sprintf("Error reading files: the list of %d files has %d characters, more than max_result_length (%d)", len(names), n, p.maxResult), nil
	}
	return s, nil
}
