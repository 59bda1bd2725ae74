package daytona

import (
	"context"
	"errors"
	"strings"

	"github.com/agno-go/agno/internal/shellquote"
	"github.com/agno-go/agno/tool"
)

type codeArgs struct {
	Code string `json:"code" description:"Code to execute"`
}

type commandArgs struct {
	Command string `json:"command" description:"Shell command to execute"`
}

type createFileArgs struct {
	FilePath string `json:"file_path" description:"Path to the file (relative to current directory or absolute)"`
	Content  string `json:"content" description:"Content to write to the file"`
}

type filePathArgs struct {
	FilePath string `json:"file_path" description:"Path to the file (relative to current directory or absolute)"`
}

type listFilesArgs struct {
	Directory *string `json:"directory,omitempty" description:"Directory to list (defaults to current working directory)"`
}

type deleteFileArgs struct {
	FilePath string `json:"file_path" description:"Path to the file or directory (relative to current directory or absolute)"`
}

type changeDirectoryArgs struct {
	Directory string `json:"directory" description:"Directory to change to (relative to current directory or absolute)"`
}

func (t *toolkit) functions() ([]*tool.Function, error) {
	var fns []*tool.Function
	var firstErr error
	add := func(f *tool.Function, err error) {
		if err != nil && firstErr == nil {
			firstErr = err
		}
		fns = append(fns, f)
	}
	add(tool.New("run_code", "Execute Python code in the Daytona sandbox.",
		func(ctx context.Context, a codeArgs) (string, error) { return t.runCode(ctx, a.Code) }))
	add(tool.New("run_shell_command", "Execute a shell command in the sandbox.",
		func(ctx context.Context, a commandArgs) (string, error) { return t.runShellCommand(ctx, a.Command) }))
	add(tool.New("create_file", "Create or update a file in the sandbox.",
		func(ctx context.Context, a createFileArgs) (string, error) {
			return t.createFile(ctx, a.FilePath, a.Content)
		}))
	add(tool.New("read_file", "Read a file from the sandbox.",
		func(ctx context.Context, a filePathArgs) (string, error) { return t.readFile(ctx, a.FilePath) }))
	add(tool.New("list_files", "List files in a directory.",
		func(ctx context.Context, a listFilesArgs) (string, error) { return t.listFiles(ctx, a.Directory) }))
	add(tool.New("delete_file", "Delete a file or directory from the sandbox.",
		func(ctx context.Context, a deleteFileArgs) (string, error) { return t.deleteFile(ctx, a.FilePath) }))
	add(tool.New("change_directory", "Change the current working directory.",
		func(ctx context.Context, a changeDirectoryArgs) (string, error) {
			return t.changeDirectory(ctx, a.Directory)
		}))
	return fns, firstErr
}

// fail is agno's error result: {"status": "error", "message": prefix+err}.
// A cancelled run gets its context error instead, so a cancellation is
// not reported to the model as a sandbox failure.
func fail(ctx context.Context, prefix string, err error) (string, error) {
	if ctx.Err() != nil {
		return "", ctx.Err()
	}
	return errorJSON(prefix + err.Error()), nil
}

var errNUL = errors.New("contains a NUL byte, which a shell command cannot carry")

func (t *toolkit) runCode(ctx context.Context, code string) (string, error) {
	sb, err := t.sandbox(ctx)
	if err != nil {
		return fail(ctx, "Error executing code: ", err)
	}
	if t.language == "python" {
		code = preparePythonCode(code)
	}
	res, err := t.api.codeRun(ctx, sb, code, t.language)
	if err != nil {
		return fail(ctx, "Error executing code: ", err)
	}
	return res.Result, nil
}

// runShellCommand runs the model's command verbatim in the working
// directory, except "cd <dir>", which is resolved against the sandbox,
// checked, and stored as the new working directory (only the checked
// absolute path is ever stored).
func (t *toolkit) runShellCommand(ctx context.Context, command string) (string, error) {
	const prefix = "Error executing command: "
	sb, err := t.sandbox(ctx)
	if err != nil {
		return fail(ctx, prefix, err)
	}
	cwd := t.workingDir(ctx)
	trimmed := pyStrip(command)
	if !strings.HasPrefix(trimmed, "cd ") {
		res, err := t.api.exec(ctx, sb, command, &cwd)
		if err != nil {
			return fail(ctx, prefix, err)
		}
		return res.Result, nil
	}
	root := "/"
	target := parsePath(pyStrip(trimmed[3:]))
	if !target.isAbs() {
		res, err := t.api.exec(ctx, sb, pwdCommand(cwd), &root)
		if err != nil {
			return fail(ctx, prefix, err)
		}
		target = parsePath(pyStrip(res.Result)).join(target)
	}
	dir := shellquote.Normpath(target.String())
	res, err := t.api.exec(ctx, sb, dirExistsCommand(dir), &root)
	if err != nil {
		return fail(ctx, prefix, err)
	}
	if !strings.Contains(res.Result, "exists") {
		return "Error: Directory " + dir + " not found", nil
	}
	t.setState(ctx, StateWorkingDirectory, dir)
	t.log.InfoContext(ctx, "daytona: updated working directory", "working_directory", dir)
	return "Changed directory to: " + dir, nil
}

func (t *toolkit) createFile(ctx context.Context, filePath, content string) (string, error) {
	const prefix = "Error creating file: "
	sb, err := t.sandbox(ctx)
	if err != nil {
		return fail(ctx, prefix, err)
	}
	p := resolvePath(t.workingDir(ctx), filePath)
	path := p.String()
	if strings.IndexByte(path, 0) >= 0 {
		return fail(ctx, prefix, errors.New("the path "+errNUL.Error()))
	}
	if strings.IndexByte(content, 0) >= 0 {
		return fail(ctx, prefix, errors.New("the content "+errNUL.Error()))
	}
	if parent := p.parent().String(); parent != "" && parent != "/" {
		res, err := t.api.exec(ctx, sb, mkdirCommand(parent), nil)
		if err != nil {
			return fail(ctx, prefix, err)
		}
		if res.ExitCode != 0 {
			return errorJSON("Failed to create directory: " + res.Result), nil
		}
	}
	res, err := t.api.exec(ctx, sb, writeFileCommand(path, content, t.newDelimiter(content)), nil)
	if err != nil {
		return fail(ctx, prefix, err)
	}
	if res.ExitCode != 0 {
		return errorJSON("Failed to create file: " + res.Result), nil
	}
	return "File created/updated: " + path, nil
}

func (t *toolkit) readFile(ctx context.Context, filePath string) (string, error) {
	const prefix = "Error reading file: "
	sb, err := t.sandbox(ctx)
	if err != nil {
		return fail(ctx, prefix, err)
	}
	path := resolvePath(t.workingDir(ctx), filePath).String()
	res, err := t.api.exec(ctx, sb, readFileCommand(path), nil)
	if err != nil {
		return fail(ctx, prefix, err)
	}
	if res.ExitCode != 0 {
		return errorJSON(prefix + res.Result), nil
	}
	return res.Result, nil
}

func (t *toolkit) listFiles(ctx context.Context, directory *string) (string, error) {
	sb, err := t.sandbox(ctx)
	if err != nil {
		return fail(ctx, "Error listing files: ", err)
	}
	wd := t.workingDir(ctx)
	dir := parsePath(wd).String()
	if directory != nil {
		dir = resolvePath(wd, *directory).String()
	}
	res, err := t.api.exec(ctx, sb, listCommand(dir), nil)
	if err != nil {
		return fail(ctx, "Error listing files: ", err)
	}
	if res.ExitCode != 0 {
		return errorJSON("Error listing directory: " + res.Result), nil
	}
	return "Contents of " + dir + ":\n" + res.Result, nil
}

func (t *toolkit) deleteFile(ctx context.Context, filePath string) (string, error) {
	const prefix = "Error deleting file: "
	sb, err := t.sandbox(ctx)
	if err != nil {
		return fail(ctx, prefix, err)
	}
	path := resolvePath(t.workingDir(ctx), filePath).String()
	kind, err := t.api.exec(ctx, sb, kindCommand(path), nil)
	if err != nil {
		return fail(ctx, prefix, err)
	}
	res, err := t.api.exec(ctx, sb, removeCommand(path, strings.Contains(kind.Result, "directory")), nil)
	if err != nil {
		return fail(ctx, prefix, err)
	}
	if res.ExitCode != 0 {
		return errorJSON("Failed to delete: " + res.Result), nil
	}
	return "Deleted: " + path, nil
}

// changeDirectory is agno's: run_shell_command("cd " + directory).
func (t *toolkit) changeDirectory(ctx context.Context, directory string) (string, error) {
	return t.runShellCommand(ctx, "cd "+directory)
}
