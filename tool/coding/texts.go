package coding

// agno v2.6.13's CodingTools instruction blocks (_TOOL_INSTRUCTIONS), one
// per function, composed by instructions for the enabled functions.
var toolInstructions = map[string]string{
	"read_file":  "**read_file** - Read files with line numbers. Use offset and limit to paginate large files.\n- Always read a file before editing it to understand its current contents.\n- Use the line numbers in the output to understand the file structure.",
	"edit_file":  "**edit_file** - Make precise edits using exact text matching (find and replace).\n- The old_text must match exactly one location in the file, including whitespace and indentation.\n- Include enough surrounding context in old_text to ensure a unique match.\n- Prefer small, focused edits over rewriting entire files.\n- If an edit fails due to multiple matches, include more surrounding lines in old_text.",
	"write_file": "**write_file** - Create new files or overwrite existing ones entirely.\n- Use this for creating new files. For modifying existing files, prefer edit_file.\n- Parent directories are created automatically.",
	"run_shell":  "**run_shell** - Execute shell commands with timeout protection.\n- Use this for: running tests, git operations, installing packages, searching files (grep/find),\n  checking system state, compiling code, and any other command-line task.\n- Commands run from the base directory.\n- Output is truncated if too long; the full output is saved to a temp file.",
	"grep":       "**grep** - Search file contents for a pattern with line numbers.\n- Use for finding code patterns, function definitions, imports, etc.\n- Supports regex patterns and case-insensitive search.\n- Use the include parameter to filter by file type (e.g. \"*.py\").",
	"find":       "**find** - Search for files by glob pattern.\n- Use for discovering files in the project structure.\n- Supports recursive patterns like \"**/*.py\".",
	"ls":         "**ls** - List directory contents.\n- Use for quick directory exploration.\n- Directories are shown with a trailing /.",
}
