package websearch_test

import "github.com/BurntSushi/toml"

func tomlDecode(s string, v any) (toml.MetaData, error) { return toml.Decode(s, v) }
