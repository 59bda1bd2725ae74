package config_test

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/agno-go/agno/config"
)

// BenchmarkParseUsersConfig parses the upgrade guide's config.toml.
func BenchmarkParseUsersConfig(b *testing.B) {
	data, err := os.ReadFile(filepath.Join("testdata", "config.toml"))
	if err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	for b.Loop() {
		if _, err := config.Parse("/bench/config.toml", data); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkLoadSources re-reads testdata/registry (3 agents, 2 teams, 2
// workflows with every step kind and CEL), as a registry reload does.
func BenchmarkLoadSources(b *testing.B) {
	dir := b.TempDir()
	src := filepath.Join("testdata", "registry")
	err := filepath.WalkDir(src, func(path string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		rel, _ := filepath.Rel(src, path)
		data, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		if err := os.MkdirAll(filepath.Join(dir, filepath.Dir(rel)), 0o755); err != nil {
			return err
		}
		data = []byte(strings.ReplaceAll(string(data), "{{BASE_URL}}", "http://127.0.0.1:9/v1"))
		return os.WriteFile(filepath.Join(dir, rel), data, 0o644)
	})
	if err != nil {
		b.Fatal(err)
	}
	b.Setenv(testKeyEnv, testKey)
	c, err := config.Load(filepath.Join(dir, "config.toml"))
	if err != nil {
		b.Fatal(err)
	}
	c.Storage.Driver = config.DriverMemory
	c.Logger, _ = newLogger()
	ctx := context.Background()
	res, err := c.Build(ctx, registryFunctions(), config.Existing{})
	if err != nil {
		b.Fatal(err)
	}
	defer res.Close()
	b.ReportAllocs()
	for b.Loop() {
		src, rep := c.LoadSources(ctx, res, registryFunctions())
		if len(rep.Failures) > 0 || len(src.Workflows) != 2 {
			b.Fatal(rep.String())
		}
	}
}
