package file

import (
	"path"
	"path/filepath"
	"strings"
)

// DefaultExcludePatterns are agno's DEFAULT_EXCLUDE_PATTERNS: fnmatch
// patterns matched against every component of a path under the root.
var DefaultExcludePatterns = []string{
	".context",
	".conductor",
	".claude",
	".codex",
	".cursor",
	".venv",
	".venvs",
	"venv",
	".env*",
	"*.env",
	".git",
	".hg",
	".svn",
	"__pycache__",
	".mypy_cache",
	".ruff_cache",
	".pytest_cache",
	".tox",
	".nox",
	".ipynb_checkpoints",
	"dist",
	"build",
	"*.egg-info",
	"node_modules",
	".next",
	".turbo",
	".nuxt",
	".svelte-kit",
	".docusaurus",
	".parcel-cache",
	".nyc_output",
	"*.tsbuildinfo",
	".serverless",
	".gradle",
	".kotlin",
	"*.class",
	".dart_tool",
	".flutter-plugins",
	".flutter-plugins-dependencies",
	".build",
	"xcuserdata",
	"*.xcuserstate",
	".bundle",
	"*.gem",
	".yardoc",
	"_build",
	".elixir_ls",
	".vs",
	".terraform",
	"*.tfstate",
	"*.tfstate.*",
	".terragrunt-cache",
	".DS_Store",
}

// Excluded is agno's path_matches_exclude: whether any component of rel
// (a path relative to the base) matches any of the fnmatch patterns.
func Excluded(rel string, patterns []string) bool {
	for _, part := range strings.Split(filepath.ToSlash(rel), "/") {
		for _, p := range patterns {
			if ok, _ := path.Match(p, part); ok {
				return true
			}
		}
	}
	return false
}
